package search

import (
	"context"
	"testing"

	"musiccatalog/pkg/catalog"
)

// TestVectorsOfOtherRecipe: track vectors stored by the same embedder
// under an older recipe are not used (they are computed again).
func TestVectorsOfOtherRecipe(t *testing.T) {
	emb := DefaultEmbedder()
	cols := make([]int8, emb.Dim()*3)
	ti := &textIndex{n: 3, semCols: cols}
	for id, want := range map[string]bool{emb.ID(): false, vectorsID(emb): true, "": false} {
		ti.semID = id
		if got := ti.vectorsOf(emb) != nil; got != want {
			t.Errorf("vectors stored under %q used: %v, want %v", id, got, want)
		}
	}
}

// TestMoodGivenTwiceCountsOnce: a track whose secondary mood repeats its
// main mood ("Epic, Epic") gets the vector of a track with that mood once;
// it had counted one and a half times and outranked tracks the request fit
// better.
func TestMoodGivenTwiceCountsOnce(t *testing.T) {
	mk := func(mood2 string) *catalog.Track {
		return &catalog.Track{Name: "Anthem", Genre: "Rock", Subgenre: "Hard Rock", Mood: "Epic", SecondaryMood: mood2}
	}
	other := &catalog.Track{Name: "Calm", Genre: "Ambient", Mood: "Calm"}
	got, err := trackVectors(context.Background(), DefaultEmbedder(), []*catalog.Track{mk("epic"), mk(""), other})
	if err != nil {
		t.Fatal(err)
	}
	n := 3
	for d := 0; d < len(got)/n; d++ {
		if got[d*n] != got[d*n+1] {
			t.Fatalf("dimension %d: %d with the mood twice, %d with it once", d, got[d*n], got[d*n+1])
		}
	}
}
