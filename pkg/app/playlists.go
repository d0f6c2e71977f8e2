package app

import (
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/search"
)

var (
	_ httpapi.PlaylistsService = (*playlists.Service)(nil)
	_ search.PlaylistFinder    = (*playlists.Service)(nil)
)

// newPlaylists wires the playlists service: the item store, the blob
// store for cover images, the current catalog for what may be added and
// the identity service for collaborators. Search uses it too (the
// caller's playlists in playlist_search), so it is built first.
func (d *Deps) newPlaylists() {
	d.Playlists = playlists.New(d.Store, d.Blob, currentCatalog{d}, d.Identity, d.Clock, ids.Random{}, d.Log)
}

// searchPlaylists is the search port, or none without playlists.
func (d *Deps) searchPlaylists() search.Option {
	if d.Playlists == nil {
		return func(*search.Service) {}
	}
	return search.WithPlaylists(d.Playlists)
}

// playlistsAPI fills the playlist endpoints' service.
func (d *Deps) playlistsAPI(a *httpapi.API) {
	if d.Playlists != nil { // a nil *Service in the interface would not read as "none"
		a.Playlists = d.Playlists
	}
}
