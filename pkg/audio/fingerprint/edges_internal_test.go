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

// TestSettleEdgesBridge: two stretches of one track at one alignment are
// one play-through when the music goes on between them (sparse evidence
// at the alignment, as under a voice), and stay two when the gap holds
// nothing (a mute); touching pieces are always one.
func TestSettleEdgesBridge(t *testing.T) {
	const frames = 1200
	var track []Hash
	for f := uint32(0); f < frames; f++ {
		track = append(track, Hash{Key: 2 * f, Time: f}, Hash{Key: 2*f + 1, Time: f})
	}
	b := NewBuilder()
	if err := b.Add("a", frames*FrameSeconds, track); err != nil {
		t.Fatal(err)
	}
	ix := b.Build()
	align := int64(ix.tracks[0].Start)
	// The query is the track itself from frame 0 (offset 0) in 0–400 and
	// 600–1000; in between, every keep-th frame only.
	query := func(keep uint32) []Hash {
		var q []Hash
		for _, h := range track {
			in := h.Time < 400 || (h.Time >= 600 && h.Time < 1000)
			if in || (keep > 0 && h.Time < 1000 && h.Time%keep == 0) {
				q = append(q, h)
			}
		}
		return q
	}
	stretches := func() []Stretch {
		return []Stretch{
			{StartMs: frameMs(0), EndMs: frameMs(400), TrackID: "a", align: align},
			{StartMs: frameMs(600), EndMs: frameMs(1000), TrackID: "a", align: align},
		}
	}
	if got := ix.settleEdges(stretches(), query(20)); len(got) != 1 || got[0].StartMs != 0 || got[0].EndMs != frameMs(1000) {
		t.Errorf("music on between them: got %+v, want one stretch 0–%d ms", got, frameMs(1000))
	}
	if got := ix.settleEdges(stretches(), query(0)); len(got) != 2 {
		t.Errorf("muted gap: got %+v, want two stretches", got)
	}
	// Touching pieces (a weak stretch's remnant next to the strong one it
	// continues) are one whatever the evidence.
	touching := []Stretch{
		{StartMs: frameMs(0), EndMs: frameMs(400), TrackID: "a", align: align},
		{StartMs: frameMs(400), EndMs: frameMs(1000), TrackID: "a", align: align},
	}
	if got := ix.settleEdges(touching, query(0)); len(got) != 1 || got[0].EndMs != frameMs(1000) {
		t.Errorf("touching pieces: got %+v, want one stretch", got)
	}
}

// TestSparsePad: an edge next to aligned frames a second apart moves out by
// most of a second; next to dense ones by under a tenth; never by more
// than maxPadSeconds.
func TestSparsePad(t *testing.T) {
	ev := make([]float32, 400)
	for i := 0; i < 200; i += 22 { // about one a second
		ev[i] = 1
	}
	for i := 200; i < 400; i += 2 {
		ev[i] = 1
	}
	if got := sparsePad(ev, 0, 1); got < 600 || got > 900 {
		t.Errorf("sparse: pad %d ms, want about 750", got)
	}
	if got := sparsePad(ev, 399, -1); got > 100 {
		t.Errorf("dense: pad %d ms, want under a tenth of a second", got)
	}
	if got := sparsePad(make([]float32, 100), 0, 1); got != ms(maxPadSeconds) {
		t.Errorf("no evidence: pad %d ms, want %d", got, ms(maxPadSeconds))
	}
}
