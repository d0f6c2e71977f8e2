// Package searchapp wires the search group (interface.md §4.2): the
// ranking service over the catalog snapshot, the media analysis of by-url
// and by-video (the soundtrack service), and the ranking endpoints next
// to the filter listings of package httpapi.
package searchapp

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/playlistsapp"
	"musiccatalog/pkg/app/soundtrackapp"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/httpapi/searchapi"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/search"
	"musiccatalog/pkg/soundtrack"
)

var _ search.PlaylistFinder = (*playlists.Service)(nil)

// New is the search service over c's catalog, with the public playlists
// of pl for playlist_search (nil: none); it loads the text index
// published with each snapshot instead of building it (issue 12, item 5).
func New(c *core.Core, pl *playlists.Service) *search.Service {
	opts := []search.Option{search.WithLogger(c.Log)}
	if c.Blob != nil {
		opts = append(opts, search.WithPrebuilt(c.Blob))
	}
	if pl != nil {
		opts = append(opts, search.WithPlaylists(pl))
	}
	return search.NewService(c.CatalogSource(), opts...)
}

// Mount adds the ranking endpoints over svc and the media analyzer (nil:
// by-url and by-video answer 501).
func Mount(a *httpapi.API, svc *search.Service, media *soundtrack.Service) {
	h := &searchapi.API{API: a}
	if svc != nil { // nil pointers in the interfaces would not read as "none"
		h.Search = svc
	}
	if media != nil {
		h.Media = media
	}
	a.Mounts[httpapi.GroupSearch] = h.Mount
}

// Wiring is the api-search function's.
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	media := soundtrackapp.New(c, &fpindex.Index{Blob: c.Blob}, soundtrackapp.VideoFetcher(c.Config))
	Mount(a, New(c, playlistsapp.New(c)), media)
	return nil
}}
