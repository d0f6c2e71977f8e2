package app

import (
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/licensing"
)

// newLicensing wires the license service: licenses on the store, tracks
// from the catalog snapshot being served.
func (d *Deps) newLicensing() {
	svc, err := licensing.New(licensing.Config{Store: d.Store, Catalog: currentCatalog{d}, Clock: d.Clock, Log: d.Log})
	if err != nil {
		d.Log.Error("licensing service", "error", err) // only missing dependencies, which newDeps always has
		return
	}
	d.Licensing = svc
}

// licensesAPI hands the license service and the page base to the API.
func (d *Deps) licensesAPI(a *httpapi.API) {
	if d.Licensing != nil { // a nil *Service in the interface would not read as "none"
		a.Licenses = d.Licensing
	}
	a.LicensePageBase = d.Config.LicensePageBase
}
