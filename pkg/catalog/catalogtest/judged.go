package catalogtest

import (
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// CheckAnswerable checks a judged query set against its generated
// catalog: no query text twice, and each query grading 2 or more on at
// least 3 tracks (enough to fill a good part of the first page) and on
// at most half of them (not so many that any page would do). grade is a
// query's grade of a track built from the manifest line's facets.
func CheckAnswerable[Q any](t *testing.T, tracks []manifest.Track, queries []Q, text func(Q) string, grade func(Q, *catalog.Track) int) {
	t.Helper()
	seen := map[string]bool{}
	for _, q := range queries {
		s := text(q)
		if seen[s] {
			t.Errorf("%q twice", s)
		}
		seen[s] = true
		good := 0
		for k := range tracks {
			mt := &tracks[k]
			tr := &catalog.Track{Name: mt.Name, Genre: mt.Genre, Subgenre: mt.Subgenre, Mood: mt.Mood,
				SecondaryMood: mt.SecondaryMood, Tempo: mt.Tempo, Vocals: mt.Vocals}
			if grade(q, tr) >= 2 {
				good++
			}
		}
		if good < 3 || good > len(tracks)/2 {
			t.Errorf("%q: %d tracks graded 2 or more", s, good)
		}
	}
}

// CheckTextNamesNoFacet checks a generated catalog's rule that a track's
// title, description, tags and stem names never name a facet value
// (namesIn returns the facet names a text holds), and that namesIn itself
// finds the facet in each of named.
func CheckTextNamesNoFacet(t *testing.T, tracks []manifest.Track, namesIn func(string) []string, named []string) {
	t.Helper()
	for _, tr := range tracks {
		texts := append([]string{tr.Name, tr.Description}, tr.Tags...)
		for _, st := range tr.Stems {
			texts = append(texts, st.Name)
		}
		for _, s := range texts {
			if f := namesIn(s); len(f) > 0 {
				t.Errorf("%s: %q names %q", tr.Name, s, f)
			}
		}
	}
	for _, s := range named {
		if len(namesIn(s)) == 0 {
			t.Errorf("check misses the facet in %q", s)
		}
	}
}
