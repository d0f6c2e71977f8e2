package fingerprint

import "testing"

// TestGuidedChangePoint: an edge widens over the blocks where the track goes on
// (under a voice: 2–4 above chance) and stops where it is absent; a
// passage that resembles the track after a pause is not reached; blocks
// that tell nothing around the edge keep it.
func TestGuidedChangePoint(t *testing.T) {
	const bar = guidedBar
	cases := []struct {
		name string
		z    []float64
		dir  int
		edge float64 // blocks from the window's start
		want float64 // blocks
	}{
		{"start under a voice", []float64{0, -0.5, 0.3, 0, 3, 2.5, 4, 3, 8, 8, 8}, +1, 8, 4},
		{"end under a voice", []float64{8, 8, 8, 3, 2.6, 3.5, 0.2, -0.4, 0, 0.1}, -1, 3, 6},
		{"a resembling passage after a pause", []float64{8, 8, 8, -1, 0, 0.3, -0.2, 4, 4, 4, 4, 0, 0}, -1, 3, 3},
		{"nothing to tell", []float64{bar, bar, bar, bar, 8, 8}, +1, 4, 4},
		{"a rest inside the song before the cut", []float64{0, 0, 0, 0, 3, 3, bar, bar, 8, 8}, +1, 8, 4},
	}
	for _, c := range cases {
		p := blockPresence{z: c.z, block: 1}
		skip := p.upTo(c.edge, -c.dir)
		at, ok := p.changePoint(c.dir, c.edge-skip)
		if !ok || at+skip != c.want {
			t.Errorf("%s: edge at %v, want %v", c.name, at+skip, c.want)
		}
	}
	if _, ok := (blockPresence{block: 1}).changePoint(+1, 0); ok {
		t.Error("an empty window placed an edge")
	}
}
