package app

import (
	"musiccatalog/pkg/app/downloadsapp"
	"musiccatalog/pkg/httpapi"
)

// newDownloads wires the download service (downloadsapp.New).
func (d *Deps) newDownloads() { d.Downloads = downloadsapp.New(d.Core) }

// downloadsAPI hands the download service to the API.
func (d *Deps) downloadsAPI(a *httpapi.API) { downloadsapp.Mount(a, d.Downloads) }
