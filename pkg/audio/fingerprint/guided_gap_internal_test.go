package fingerprint

import "testing"

// TestSplitGap: in a gap between two placed stretches, the earlier song's
// tail under a voice (1–3 above chance) is given back to it; a pause where
// neither plays moves nothing; where the later song is heard, the earlier
// one's resemblance does not claim it; the later song's weak start is
// given back to it; quiet blocks count nothing.
func TestSplitGap(t *testing.T) {
	cases := []struct {
		name         string
		early, late  []float64
		quietEarly   []int
		endA, startB int
	}{
		{"the earlier song's tail under a voice",
			[]float64{1.7, 3.4, 2.9, 1.6, 1.9, 1.4, 1.9}, []float64{-0.8, -0.1, -0.6, -0.4, -0.3, -0.3, 0.0}, nil, 7, 7},
		{"a pause between songs",
			[]float64{0.0, 1.4, 0.7, 1.9, -0.5, 0.2, -1.0, 0.3}, []float64{0.3, -0.5, 0.2, 0.1, -0.3, 0.4, 1.2, -0.2}, nil, 0, 8},
		{"the later song's weak start",
			[]float64{0.4, -0.6, 0.9, 0.1, 0.8, 2.0, 0.3, -0.4}, []float64{-0.2, 0.5, 1.8, 2.2, 1.6, 2.4, 1.9, 2.1}, nil, 0, 2},
		{"the earlier song resembles the later one where that plays",
			[]float64{2.9, 2.2, 2.6, 2.4, 2.5, 2.2, 2.4}, []float64{0.1, -0.4, 3.5, 4.1, 3.2, 3.8, 3.6}, nil, 2, 2},
		{"a quiet tail tells nothing",
			[]float64{1.9, 2.4, 2.2, 2.0, guidedBar, guidedBar, guidedBar, guidedBar}, []float64{0, 0.2, -0.3, 0.1, -0.5, 0.3, 0.4, -0.1}, []int{4, 5, 6, 7}, 4, 8},
	}
	for _, c := range cases {
		early := blockPresence{z: c.early, quiet: make([]bool, len(c.early)), block: 1}
		for _, k := range c.quietEarly {
			early.quiet[k] = true
		}
		late := blockPresence{z: c.late, block: 1}
		if a, b := splitGap(early, late); a != c.endA || b != c.startB {
			t.Errorf("%s: split at %d and %d, want %d and %d", c.name, a, b, c.endA, c.startB)
		}
	}
}
