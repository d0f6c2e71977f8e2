package fingerprint

import (
	"math/rand/v2"
	"testing"
)

// TestExtendEdges: an edge is carried over sparse evidence (a song going on
// under a voice, about one aligned frame a second), not across a gap longer
// than edgeGapSeconds, and not to a lone hit beyond a gap.
func TestExtendEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := edgeRate(0.05) * FrameSeconds
	var ev []float32
	ev = evidenceRun(ev, r, 100, 0)
	ev = append(ev, 1) // the song's first aligned frame under the voice, 100
	ev = evidenceRun(ev, r, 200, 0.05)
	first := len(ev) // where the body (no voice) starts, 301
	ev = evidenceRun(ev, r, 200, 0.5)
	last := len(ev) - 1
	ev = evidenceRun(ev, r, 20, 0) // a gap of 0.9 s
	ev = append(ev, 1, 0, 1)       // then the voice covers the song's end
	ev = evidenceRun(ev, r, 30, 0.05)
	ev = append(ev, 1) // its last aligned frame, 554
	ev = evidenceRun(ev, r, 70, 0)
	ev = append(ev, 1) // a lone chance hit 3.2 s later
	ev = evidenceRun(ev, r, 40, 0)
	f, l := extendEdges(ev, first, last, p, p)
	if f != 100 || l != 554 {
		t.Errorf("extended to %d–%d, want 100–554", f, l)
	}
	// A lone hit within the gap limit is not enough either.
	ev = make([]float32, 200)
	ev[100], ev[150] = 1, 1
	if f, l := extendEdges(ev, 100, 100, p, p); f != 100 || l != 100 {
		t.Errorf("a lone hit 2.3 s away moved the edge to %d–%d", f, l)
	}
}
