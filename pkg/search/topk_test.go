package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopKKeepsTheBest: the page topK keeps is the best max candidates
// of a full sort (score, then catalog position), in that order, with
// ties, in any offering order, and for pages larger than the candidates.
func TestTopKKeepsTheBest(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 5, 40, 1000} {
		for _, size := range []int{0, 1, 3, 20, 100, 2000} {
			all := make([]scored, n)
			for i := range all {
				all[i] = scored{int32(i), float64(r.IntN(8))} // many ties
			}
			r.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
			h := topK{max: size}
			for _, c := range all {
				h.offer(c)
			}
			want := slices.Clone(all)
			slices.SortFunc(want, func(a, b scored) int {
				if better(a, b) {
					return -1
				}
				return 1
			})
			want = want[:min(size, n)]
			if got := h.sorted(); !slices.Equal(got, want) {
				t.Fatalf("n=%d max=%d: %v, want %v", n, size, got, want)
			}
		}
	}
}
