package app

import (
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi"
)

// newDownloads wires the download service: renditions and signed URLs
// from the object store, counts in the item store (nil without an object
// store, where there is nothing to download).
func (d *Deps) newDownloads() {
	d.Downloads = nil
	if d.Blob == nil {
		return
	}
	svc, err := downloads.New(downloads.Config{Store: d.Store, Blob: d.Blob, Catalog: currentCatalog{d}, Clock: d.Clock, Log: d.Log})
	if err != nil {
		d.Log.Error("downloads service", "error", err) // only missing dependencies, excluded above
		return
	}
	d.Downloads = svc
}

// downloadsAPI hands the download service to the API.
func (d *Deps) downloadsAPI(a *httpapi.API) {
	if d.Downloads != nil { // a nil *Service in the interface would not read as "none"
		a.Downloads = d.Downloads
	}
}
