package fingerprint_test

import (
	"math"
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
)

// TestWarpCloseCalls: BenchmarkSpeedPitch clips (tuning half, the same
// clips: song, start, noise seed) that the warp search or the timeline
// missed although the song wins plainly once looked at with the whole
// query, against the benchmark's index (every song but the heldOut ones):
//
//   - vengeful two semitones up, which the coarse grid's sample ranked
//     first by only 1.31 over another track (rescore);
//   - traveling_minstrels two semitones up, whose refined lead over a
//     chance contender that matches at any tempo was 1.74 (under
//     warpMinCellsRatio) while its own tempo contrast was 1.72
//     (warpCellsTimesContrast);
//   - journeys_end two semitones up, which won its cell by 2.08 (under the
//     former warp ratio of 2.2);
//   - battle-epic a semitone up, which MatchWarped found but the timeline
//     did not: the run's body, weighed on the hashes warped with the
//     warp's slack, failed the chance test (trackTimeline's evidence);
//   - elf-land 5 % fast, which MatchWarped found but the timeline named as
//     revelation over 2.9–9.8 s on a weak identity stretch (best window
//     44) that touched no unexplained music, so the warp search never
//     contested it (weakStretch).
//
// Each must be found at its place with its shift by MatchWarped and by the
// timeline over the clip as music.
func TestWarpCloseCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the benchmark's 35-track index")
	}
	tracks := loadTracks(t)
	ix, _, _ := buildIndex(t, tracks, func(i int) bool { return !heldOut(i) })
	conds := map[string]speedCond{}
	for _, c := range speedConds() {
		conds[c.name] = c
	}
	cases := []struct {
		song  string
		start float64
		seed  uint64
		cond  string
	}{
		{"vengeful", 59.622, 1000840, "pitch +2 st"},
		{"traveling_minstrels", 187.754, 1000809, "pitch +2 st"},
		{"journeys_end", 211.011, 1001398, "pitch +2 st"},
		{"battle-epic", 46.124, 1000437, "pitch +1 st"},
		{"battle-epic", 46.124, 1000437, "pitch +2 st"},
		{"elf-land", 7.646, 1002018, "rate +5%"},
	}
	q := fingerprint.New(fingerprint.QueryOptions)
	for _, c := range cases {
		t.Run(c.song+" "+c.cond, func(t *testing.T) {
			ti := slices.IndexFunc(tracks, func(b benchTrack) bool { return b.name == c.song })
			cond := conds[c.cond]
			h := q.Fingerprint(makeSpeedClip(t, tracks, clipSpec{track: ti, start: c.start, length: speedClipSeconds + 2, snr: 10, seed: c.seed}, cond))
			ok := func(id string, offset float64, w fingerprint.Warp) bool {
				return id == c.song && math.Abs(offset-c.start) < 1 && math.Abs(w.Semitones-cond.semitones) <= 0.2
			}
			if cs := ix.MatchWarped(h, fingerprint.MatchOptions{}); len(cs) == 0 || !ok(cs[0].TrackID, cs[0].TrackOffset, cs[0].Warp) {
				t.Errorf("MatchWarped: %+v, want %s at %.1f s, %s", cs, c.song, c.start, c.cond)
			}
			st := ix.Timeline(h, fingerprint.TimelineOptions{Music: []audio.Range{{EndMs: speedClipSeconds * 1000}}})
			if !slices.ContainsFunc(st, func(s fingerprint.Stretch) bool {
				return s.EndMs-s.StartMs >= 5000 &&
					ok(s.TrackID, float64(s.TrackOffsetMs)/1000-float64(s.StartMs)/1000*s.Warp().Speed, s.Warp())
			}) {
				t.Errorf("Timeline: %s %v, want %s at %.1f s, %s", describe(st), stretchWarps(st), c.song, c.start, c.cond)
			}
		})
	}
}
