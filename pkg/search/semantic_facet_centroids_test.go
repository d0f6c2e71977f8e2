package search

import (
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/searchtest"
)

// TestFacetMatchReadsTracks: a subgenre whose name the embedder cannot
// read is matched by what its tracks say (mixFacetCentroids): renamed to
// a made-up word, the demo's Ambient subgenre still matches a request
// close to its meaning, and better than Rock's subgenres do.
func TestFacetMatchReadsTracks(t *testing.T) {
	const made = "Zorvquent"
	contents := searchtest.DemoContents(t, demo.DefaultTracks, demo.DefaultSeed, true)
	renamed, rock := "", map[string]bool{}
	for _, tr := range contents.Tracks {
		switch {
		case tr.Genre == "Ambient" && (renamed == "" || tr.Subgenre == renamed):
			renamed = tr.Subgenre
			tr.Subgenre = made
		case tr.Genre == "Rock":
			rock[tr.Subgenre] = true
		}
	}
	if renamed == "" || len(rock) == 0 {
		t.Fatal("the demo catalog has no Ambient or no Rock tracks")
	}
	if v := embedFacet(t.Context(), DefaultEmbedder(), made); v != nil {
		t.Fatalf("%q means something to the embedder: the test needs a word it lacks", made)
	}
	cat, err := catalog.New(contents)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := NewIndex(cat)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ix.sem.query(t.Context(), []string{"calm", "ambient", "atmosphere"})
	if err != nil || q == nil {
		t.Fatalf("query: %v", err)
	}
	match := map[string]float32{}
	for i, tr := range ix.tracks {
		h := &ix.hot[i]
		if v := ix.sem.facetVec[h.subgenre]; v != nil {
			match[tr.Subgenre] = dot(q.vec, v)
		}
	}
	got, ok := match[made]
	if !ok || got < 0.3 {
		t.Fatalf("%s (was %s) matches a calm ambient request at %.2f, want ≥ 0.3", made, renamed, got)
	}
	for s := range rock {
		if match[s] >= got {
			t.Errorf("Rock's %s matches a calm ambient request at %.2f, ≥ %s's %.2f", s, match[s], made, got)
		}
	}
}
