// Package licensesapp wires the licenses group (interface.md §4.6, §7.3):
// the license service on the store and the catalog snapshot being served,
// and the public page base. Its handlers are package httpapi's.
package licensesapp

import (
	"log/slog"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/licensing"
)

// New wires the license service: licenses on the store, tracks from the
// catalog snapshot being served (nil when a dependency is missing).
func New(c *core.Core) *licensing.Service {
	svc, err := licensing.New(licensing.Config{Store: c.Store, Catalog: c.CatalogSource(), Clock: c.Clock, Log: c.Log})
	if err != nil {
		c.Log.Error("licensing service", slog.Any("error", err)) // only missing dependencies, which core always has
		return nil
	}
	return svc
}

// Mount hands the license service and the page base to the API.
func Mount(a *httpapi.API, svc *licensing.Service, pageBase string) {
	if svc != nil { // a nil *Service in the interface would not read as "none"
		a.Licenses = svc
	}
	a.LicensePageBase = pageBase
}

// Wiring is the api-licenses function's (the catalog snapshot is in S3).
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	Mount(a, New(c), c.Config.LicensePageBase)
	return nil
}}
