package fingerprint

import (
	"math/rand/v2"
	"testing"
)

func TestSlidingMaxMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 5, 33, 100, 768} {
		for _, w := range []int{0, 1, 3, 16, 50} {
			src := make([]float32, n)
			for i := range src {
				src[i] = r.Float32()
			}
			dst, g, h := make([]float32, n), make([]float32, n), make([]float32, n)
			slidingMax(dst, src, g, h, w)
			for i := range n {
				want := src[i]
				for j := max(0, i-w); j <= min(n-1, i+w); j++ {
					want = max(want, src[j])
				}
				if dst[i] != want {
					t.Fatalf("n=%d w=%d i=%d: got %v want %v", n, w, i, dst[i], want)
				}
			}
		}
	}
}
