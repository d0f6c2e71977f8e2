package fingerprint

import (
	"slices"
	"testing"
)

// TestGapWindows: the warp search sees all of a gap, in windows of at
// least the timeline's window and of equal length: a 10-s gap is one
// window of 10 s.
func TestGapWindows(t *testing.T) {
	sec := func(s float64) uint32 { return uint32(s / FrameSeconds) }
	win := sec(6)
	for _, c := range []struct {
		from, to float64
		starts   []float64
		length   float64
	}{
		{0, 10, []float64{0}, 10},
		{3, 4, []float64{3}, 6},
		{0, 15, []float64{0, 7.5}, 7.5},
		{20, 38, []float64{20, 26, 32}, 6},
		{0, 13, []float64{0, 6.5}, 6.5},
	} {
		starts, length := gapWindows(sec(c.from), sec(c.to), win)
		var want []uint32
		for _, s := range c.starts {
			want = append(want, sec(s))
		}
		near := func(a, b uint32) bool { return a <= b+1 && b <= a+1 } // frame rounding
		if !slices.EqualFunc(starts, want, near) || length < win || !near(length, sec(c.length)) {
			t.Errorf("gap %.1f–%.1f s: windows at %v frames of %d, want at %v of about %d", c.from, c.to, starts, length, want, sec(c.length))
		}
		if end := starts[len(starts)-1] + length; c.to-c.from >= 6 && end+uint32(len(starts)) < sec(c.to) {
			t.Errorf("gap %.1f–%.1f s: windows end at frame %d, before the gap's %d", c.from, c.to, end, sec(c.to))
		}
	}
}
