package fingerprint

import (
	"testing"

	"musiccatalog/pkg/audio"
)

// TestRoomStopsAtAnOverlappingStretch: the warp search's room around an
// unexplained gap ends at the named stretches beside it, also at one that
// overlaps the gap by a few frames. Seen on a narrated warzone song: a
// suspect's span reached 14 ms into the next stretch, the room ran to the
// query's end, and the warp search reported that stretch's play a second
// time, overlapping itself.
func TestRoomStopsAtAnOverlappingStretch(t *testing.T) {
	query := []Hash{{Time: msFrame(40_000)}}
	end := frameMs(msFrame(40_000) + 1)
	cases := []struct {
		name string
		in   []Stretch
		want audio.Range
	}{
		{"none", nil, audio.Range{EndMs: end}},
		{"beside", []Stretch{{StartMs: 1000, EndMs: 5000, TrackID: "a"}, {StartMs: 14_600, EndMs: 35_000, TrackID: "b"}},
			audio.Range{StartMs: 5000, EndMs: 14_600}},
		{"overlapping after", []Stretch{{StartMs: 14_582, EndMs: 35_566, TrackID: "b"}}, audio.Range{EndMs: 14_596}},
		{"overlapping before", []Stretch{{StartMs: 0, EndMs: 5400, TrackID: "a"}}, audio.Range{StartMs: 5348, EndMs: end}},
		{"unnamed ignored", []Stretch{{StartMs: 14_000, EndMs: 20_000}}, audio.Range{EndMs: end}},
	}
	for _, c := range cases {
		if got := (&Index{}).room(audio.Range{StartMs: 5348, EndMs: 14_596}, c.in, query); got != c.want {
			t.Errorf("%s: room %v, want %v", c.name, got, c.want)
		}
	}
}
