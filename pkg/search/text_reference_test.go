package search

import (
	"math"
	"testing"

	"musiccatalog/pkg/catalog/demo"
)

// TestTextReference: the reference score textIndex.scores returns is the
// sum of each word's best match (what a track holding every word as well
// as its best match would score), so a one-word request's best match is a
// full match as before, and in a request of several words no track
// scores above it.
func TestTextReference(t *testing.T) {
	ix := demoIndex(t, demo.DefaultTracks)
	n := len(ix.tracks)
	run := func(text string) (best, ref float32, matched int) {
		q := ix.correct(Understand(text, 0))
		acc := make([]float32, n)
		m, ref, err := ix.text.scores(t.Context(), q.Groups, acc, make([]int32, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range m {
			best = max(best, acc[d])
		}
		return best, ref, len(m)
	}
	words := []string{"jazz", "piano", "night"}
	var sum float32
	for _, w := range words {
		best, ref, m := run(w)
		if m == 0 {
			t.Fatalf("%q matches nothing: the test needs words the demo holds", w)
		}
		if math.Abs(float64(best-ref)) > 1e-4*float64(best) {
			t.Errorf("%q: one word's reference %.4f is not its best match %.4f", w, ref, best)
		}
		sum += best
	}
	best, ref, _ := run("jazz piano night")
	if math.Abs(float64(ref-sum)) > 1e-4*float64(sum) {
		t.Errorf("reference %.4f, want the words' best matches summed %.4f", ref, sum)
	}
	if best > ref*(1+1e-4) {
		t.Errorf("a track scores %.4f above the reference %.4f", best, ref)
	}
}
