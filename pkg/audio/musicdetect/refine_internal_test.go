package musicdetect

import (
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
)

// TestSplitStartReachingTheWindowStart: a start edge whose held partials,
// at most maxGapFrames apart, run back to the search window's first frame
// is still a split (at 0). Before, the "not a split" answer came from the
// reached-out frame being 0, and the start went back to its block edge.
func TestSplitStartReachingTheWindowStart(t *testing.T) {
	x := make([]float64, 80)
	for _, f := range []int{0, 9, 18, 27} {
		x[f] = 1
	}
	for f := 30; f < len(x); f++ {
		x[f] = 3
	}
	s, ok := split(x, -1)
	if !ok || s != 0 {
		t.Errorf("split = %d, %v; want 0, true", s, ok)
	}
	x[0], x[1] = 0, 1
	if s, ok := split(x, -1); !ok || s != 1 {
		t.Errorf("with the first partial at frame 1: split = %d, %v; want 1, true", s, ok)
	}
}

// TestMergeCloseJoinsRangesLessThanABlockApart: refined edges can leave two
// ranges tens of ms apart (or touching), which block ranges never were.
func TestMergeCloseJoinsRangesLessThanABlockApart(t *testing.T) {
	got := mergeClose([]audio.Range{{StartMs: 1834, EndMs: 5781}, {StartMs: 5851, EndMs: 8939}, {StartMs: 8939, EndMs: 9500}, {StartMs: 12000, EndMs: 15000}}, 975)
	want := []audio.Range{{StartMs: 1834, EndMs: 9500}, {StartMs: 12000, EndMs: 15000}}
	if !slices.Equal(got, want) {
		t.Errorf("mergeClose = %v; want %v", got, want)
	}
}
