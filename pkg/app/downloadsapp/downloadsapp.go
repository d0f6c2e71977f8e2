// Package downloadsapp wires the downloads group: the download service on
// the object store (renditions, signed URLs) and the item store (counts).
// Its handlers are package httpapi's.
package downloadsapp

import (
	"log/slog"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi"
)

// New wires the download service (nil without an object store, where
// there is nothing to download).
func New(c *core.Core) *downloads.Service {
	if c.Blob == nil {
		return nil
	}
	svc, err := downloads.New(downloads.Config{Store: c.Store, Blob: c.Blob, Catalog: c.CatalogSource(), Clock: c.Clock, Log: c.Log})
	if err != nil {
		c.Log.Error("downloads service", slog.Any("error", err)) // only missing dependencies, excluded above
		return nil
	}
	return svc
}

// Mount hands the download service to the API.
func Mount(a *httpapi.API, svc *downloads.Service) {
	if svc != nil { // a nil *Service in the interface would not read as "none"
		a.Downloads = svc
	}
}

// Wiring is the api-downloads function's.
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	Mount(a, New(c))
	return nil
}}
