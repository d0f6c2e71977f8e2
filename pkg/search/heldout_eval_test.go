package search

import (
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/heldout"
	"musiccatalog/pkg/catalog/manifest"
	"musiccatalog/pkg/search/searchtest"
)

// The held-out evaluation of issue 15: situation and intent queries over
// a catalog the ranking was never tuned on, judged from the latent
// attributes its tracks were written from (package heldout). Ranking work
// must not read the queries or tune to them; it reads the figures.

// Floors of the held-out set: the figures measured when the set was
// committed (mean 0.477, worst decile 0.000, 51 of 127 queries below 0.3)
// less a small margin, so a change that loses ground on words the engine
// was not written for fails. Raise them as the engine improves (issue
// 15's targets: mean ≥ 0.85, no query below 0.3).
const (
	heldoutMeanFloor        = 0.45
	heldoutWorstDecileFloor = 0.0
	heldoutMaxWeak          = 54
)

// heldoutSet is the held-out catalog's search service (its metadata as
// ingestion publishes it; by-text needs no audio) and its judged queries,
// each track graded through its ISRC's latent attributes.
func heldoutSet(tb testing.TB) (*Service, []evalQuery) {
	tb.Helper()
	tracks := heldout.Tracks(heldout.DefaultTracks, heldout.DefaultSeed)
	latent := make(map[string]*heldout.Latent, len(tracks))
	recs := make([]manifest.Track, len(tracks))
	for i := range tracks {
		recs[i] = tracks[i].Manifest
		latent[recs[i].ISRC] = &tracks[i].Latent
	}
	svc := evalService(tb, "heldout", func() catalog.Contents {
		return searchtest.ManifestContents(tb, recs, nil, heldout.DefaultSeed, false)
	})
	judged, err := heldout.Queries()
	if err != nil {
		tb.Fatal(err)
	}
	qs := make([]evalQuery, len(judged))
	for i, q := range judged {
		qs[i] = evalQuery{text: q.Text, grade: func(t *catalog.Track) int {
			if l, ok := latent[t.ISRC]; ok {
				return q.Grade(l)
			}
			return 0
		}}
	}
	return svc, qs
}
