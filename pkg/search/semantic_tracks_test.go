package search

import "testing"

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
