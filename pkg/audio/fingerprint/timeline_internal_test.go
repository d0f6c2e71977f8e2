package fingerprint

import (
	"math/rand/v2"
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
)

// evidenceRun appends n frames where each frame has evidence with
// probability p (two aligned hashes, weight 1).
func evidenceRun(ev []float32, r *rand.Rand, n int, p float64) []float32 {
	for range n {
		var e float32
		if r.Float64() < p {
			e = 1
		}
		ev = append(ev, e)
	}
	return ev
}

// TestBestSpanBoundaries: the span runs from the first to the last frame
// of the play-through, through a quiet passage where matches thin out, but
// not across a silent gap to a burst of matches beyond it (a shared phrase
// or chance).
func TestBestSpanBoundaries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ev []float32
	ev = evidenceRun(ev, r, 80, 0.02) // chance
	ev = append(ev, 1)                // the song starts at frame 80
	ev = evidenceRun(ev, r, 300, 0.5)
	ev = evidenceRun(ev, r, 90, 0.1) // a quiet passage under noise, below p0
	ev = evidenceRun(ev, r, 300, 0.5)
	ev = append(ev, 1) // the song's last aligned frame, 771
	ev = evidenceRun(ev, r, 100, 0)
	ev = evidenceRun(ev, r, 30, 0.5) // a shared phrase after a 2.3-s gap
	ev = evidenceRun(ev, r, 80, 0.02)
	// p0 as refine sets it: a quarter of the way from chance to the body.
	first, last, gain := bestSpan(ev, 0.02+0.25*(0.5-0.02))
	if first != 80 || last != 771 || gain <= 0 {
		t.Errorf("span %d–%d (gain %.1f), want 80–771", first, last, gain)
	}
}

// TestChangePoint: a cut goes where one alignment's evidence gives way to
// the other's, and in the middle of a stretch that neither explains.
func TestChangePoint(t *testing.T) {
	a := []float32{1, 0, 1, 1, 0.35, 0, 0, 0, 0, 0}
	b := []float32{0, 0, 0, 0, 0, 1, 1, 0, 1, 1}
	if k := changePoint(a, b); k != 5 {
		t.Errorf("cut at %d, want 5", k)
	}
	a = []float32{1, 1, 0, 0, 0, 0, 0, 0}
	b = []float32{0, 0, 0, 0, 0, 0, 1, 1}
	if k := changePoint(a, b); k != 4 {
		t.Errorf("cut at %d, want 4 (middle of 2–6)", k)
	}
}

// TestDropSlivers: a stretch under 3 s next to a longer one is a piece of
// its neighbour's edge and goes; one standing alone, or as long, stays.
func TestDropSlivers(t *testing.T) {
	in := []Stretch{
		{StartMs: 0, EndMs: 20_000, TrackID: "a"},
		{StartMs: 20_000, EndMs: 22_500, TrackID: "b"}, // sliver after a's end
		{StartMs: 22_500, EndMs: 50_000, TrackID: "c"},
		{StartMs: 60_000, EndMs: 62_500, TrackID: "d"}, // short, but alone
		{StartMs: 70_000, EndMs: 80_000, TrackID: "e"},
		{StartMs: 80_500, EndMs: 83_500, TrackID: "f"}, // 3 s: not a sliver
	}
	got := dropSlivers(in)
	var ids []string
	for _, s := range got {
		ids = append(ids, s.TrackID)
	}
	if want := []string{"a", "c", "d", "e", "f"}; !slices.Equal(ids, want) {
		t.Fatalf("kept %v, want %v", ids, want)
	}
}

// TestNoUnexplainedSliver: music no track explains is reported only when
// it lasts at least 3 s; a shorter piece is a gap inside a song.
func TestNoUnexplainedSliver(t *testing.T) {
	ix := NewBuilder().Build()
	music := []audio.Range{{StartMs: 1_000, EndMs: 3_800}, {StartMs: 10_000, EndMs: 14_000}}
	got := ix.Timeline(nil, TimelineOptions{Music: music})
	if len(got) != 1 || got[0].StartMs != 10_000 || got[0].EndMs != 14_000 || got[0].TrackID != "" {
		t.Fatalf("got %+v, want one unexplained stretch 10–14 s", got)
	}
}
