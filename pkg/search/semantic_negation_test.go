package search

import (
	"testing"

	"musiccatalog/pkg/catalog"
)

// TestNegationByMeaning: over a catalog whose text never names a facet
// (tuning2), what a request excludes is pushed down by meaning, not only
// left out by the word: the first page of "X, nothing Y" holds at most
// one track of kind Y where "X" alone holds two or more.
func TestNegationByMeaning(t *testing.T) {
	svc, _ := tuning2Set(t)
	bad := func(text string, is func(*catalog.Track) bool) int {
		res, err := svc.ByText(t.Context(), text, Options{Plan: "enterprise", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) < 10 {
			t.Errorf("%q: %d hits", text, len(res.Hits))
		}
		n := 0
		for _, h := range res.Hits {
			if is(h.Track) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		base, negated string
		is            func(*catalog.Track) bool
	}{
		{"a dark film scene", "a dark film scene, nothing frightening", moodIs("Scary")},
		{"dance all night", "dance all night, nothing synthetic", genreIs("Electronic")},
		{"slow and emotional", "slow and emotional without tears", moodIs("Sad", "Melancholic")},
	} {
		before, after := bad(c.base, c.is), bad(c.negated, c.is)
		if before < 2 || after > 1 {
			t.Errorf("%q: %d of the excluded kind on the first page, %q: %d", c.base, before, c.negated, after)
		}
	}
}
