package catalogtest

import (
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// CheckAnswerable checks a judged query set against its generated
// catalog: no query text twice, and each query grading 2 or more on at
// least 3 tracks (enough to fill a good part of the first page) and on
// at most half of them (not so many that any page would do). grade is
// query i's grade of a track built from the manifest line's facets.
func CheckAnswerable(t *testing.T, tracks []manifest.Track, texts []string, grade func(i int, tr *catalog.Track) int) {
	t.Helper()
	seen := map[string]bool{}
	for i, text := range texts {
		if seen[text] {
			t.Errorf("%q twice", text)
		}
		seen[text] = true
		good := 0
		for k := range tracks {
			mt := &tracks[k]
			tr := &catalog.Track{Name: mt.Name, Genre: mt.Genre, Subgenre: mt.Subgenre, Mood: mt.Mood,
				SecondaryMood: mt.SecondaryMood, Tempo: mt.Tempo, Vocals: mt.Vocals}
			if grade(i, tr) >= 2 {
				good++
			}
		}
		if good < 3 || good > len(tracks)/2 {
			t.Errorf("%q: %d tracks graded 2 or more", text, good)
		}
	}
}
