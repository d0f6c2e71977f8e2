package app

import (
	"musiccatalog/pkg/app/licensesapp"
	"musiccatalog/pkg/httpapi"
)

// newLicensing wires the license service (licensesapp.New).
func (d *Deps) newLicensing() { d.Licensing = licensesapp.New(d.Core) }

// licensesAPI hands the license service and the page base to the API.
func (d *Deps) licensesAPI(a *httpapi.API) {
	licensesapp.Mount(a, d.Licensing, d.Config.LicensePageBase)
}
