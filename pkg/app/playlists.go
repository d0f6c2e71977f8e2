package app

import (
	"musiccatalog/pkg/app/playlistsapp"
	"musiccatalog/pkg/httpapi"
)

// newPlaylists wires the playlists service (playlistsapp.New). Search
// uses it too (playlist_search), so it is built first.
func (d *Deps) newPlaylists() { d.Playlists = playlistsapp.New(d.Core) }

// playlistsAPI fills the playlist endpoints' service.
func (d *Deps) playlistsAPI(a *httpapi.API) { playlistsapp.Mount(a, d.Playlists) }
