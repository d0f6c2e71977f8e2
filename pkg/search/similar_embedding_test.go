package search

import (
	"slices"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/searchtest"
)

// TestByIDMixesAudioEmbeddings: when the seed and a track both have an
// AudioEmbedding, by-id scores them with (1-m)·cos(features) +
// m·cos(embedding), so a track the features rank low rises to the top
// when the embedding says it sounds alike; a track without an embedding
// keeps its score; a seed without one ranks as before.
func TestByIDMixesAudioEmbeddings(t *testing.T) {
	plain := searchtest.DemoContents(t, 60, demo.DefaultSeed, true)
	before := byIDOf(t, plain, 0)
	// far: the 11th hit by features; bare: a track left without embedding.
	far, bare := before[10].Track.ID, before[len(before)/2].Track.ID

	mixed := searchtest.DemoContents(t, 60, demo.DefaultSeed, true)
	for i, tr := range mixed.Tracks {
		switch {
		case i == 0 || tr.ID == far:
			tr.AudioEmbedding = []float32{1, 0, 0, 0}
		case tr.ID != bare:
			tr.AudioEmbedding = []float32{0, 1, 0, 0}
		}
	}
	after := byIDOf(t, mixed, 0)
	if r := rankOf(after, far); r > 1 {
		t.Errorf("the 11th hit by features, with the seed's embedding, is hit %d, want one of the first two", r+1)
	}
	if b, a := scoreOf(before, bare), scoreOf(after, bare); b != a {
		t.Errorf("a track without embedding scored %g, %g before", a, b)
	}
	// The seed without an embedding: the features alone, as before.
	mixed.Tracks[0].AudioEmbedding = nil
	if got := byIDOf(t, mixed, 0); !slices.EqualFunc(got, before, func(a, b Hit) bool { return a.Track.ID == b.Track.ID && a.Score == b.Score }) {
		t.Error("a seed without embedding ranks otherwise than by its features")
	}
}

func byIDOf(t *testing.T, c catalog.Contents, seed int) []Hit {
	t.Helper()
	id := c.Tracks[seed].ID
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := NewIndex(cat)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.ByID(id, Options{Plan: "enterprise", Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	return res.Hits
}

func rankOf(hits []Hit, id string) int {
	return slices.IndexFunc(hits, func(h Hit) bool { return h.Track.ID == id })
}

func scoreOf(hits []Hit, id string) float64 {
	for _, h := range hits {
		if h.Track.ID == id {
			return float64(h.Score)
		}
	}
	return -1
}
