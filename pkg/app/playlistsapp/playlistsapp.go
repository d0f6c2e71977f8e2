// Package playlistsapp wires the playlists group (interface.md §4.7): the
// playlists service on the store, the blob store for covers, the catalog
// snapshot and identity for collaborators. Its handlers are package
// httpapi's; search uses the same service for playlist_search.
package playlistsapp

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
)

var _ httpapi.PlaylistsService = (*playlists.Service)(nil)

// New wires the playlists service.
func New(c *core.Core) *playlists.Service {
	return playlists.New(c.Store, c.Blob, c.CatalogSource(), c.Identity, c.Clock, ids.Random{}, c.Log)
}

// Mount fills the playlist endpoints' service.
func Mount(a *httpapi.API, svc *playlists.Service) {
	if svc != nil { // a nil *Service in the interface would not read as "none"
		a.Playlists = svc
	}
}

// Wiring is the api-playlists function's (covers and the catalog are in S3).
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	Mount(a, New(c))
	return nil
}}
