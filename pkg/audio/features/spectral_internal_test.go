package features

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSelectKthPartitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 1 + r.IntN(60)
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(r.IntN(8)) // many ties
			if trial%2 == 0 {
				s[i] = r.Float64()
			}
		}
		k := r.IntN(n + 1)
		sorted := slices.Sorted(slices.Values(s))
		selectKth(s, k)
		got := slices.Sorted(slices.Values(s[:k]))
		if !slices.Equal(got, sorted[:k]) {
			t.Fatalf("n=%d k=%d: s[:k] = %v, want the %d smallest %v", n, k, got, k, sorted[:k])
		}
	}
}
