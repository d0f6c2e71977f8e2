package fingerprint_test

import (
	"math"
	"slices"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/musicdetect"
)

// TestSongUnderNarration: 30 s of a catalog song under continuous espeak-ng
// narration, the music 8 dB below the voice (AAC), is found at the right
// alignment with both ends within a second – the case the per-window
// threshold alone missed (issue 16).
func TestSongUnderNarration(t *testing.T) {
	audiotest.RequireEspeak(t)
	tracks := loadNamed(t, "battle-epic", "knolls", "wanderer", "elvish-theme")
	ix, _, _ := buildIndex(t, tracks, func(int) bool { return true })
	c := narratedCase{track: 0, voice: 0, trackStart: 20, levelDB: -8, seed: 6}
	pcm := renderNarrated(t, tracks, c)
	st := ix.Timeline(fingerprint.New(fingerprint.QueryOptions).Fingerprint(pcm), fingerprint.TimelineOptions{Music: musicdetect.Detect(pcm, musicdetect.Options{})})
	var found []fingerprint.Stretch
	for _, s := range st {
		if s.TrackID != "" {
			found = append(found, s)
		}
	}
	if len(found) != 1 || found[0].TrackID != "battle-epic" {
		t.Fatalf("stretches %+v, want battle-epic alone", st)
	}
	s := found[0]
	start, end := float64(s.StartMs)/1000, float64(s.EndMs)/1000
	if math.Abs(start-narrLead) > 1 || math.Abs(end-(narrLead+narrLen)) > 1 {
		t.Errorf("bounds %.2f–%.2f s, want %g–%g ±1 s", start, end, narrLead, narrLead+narrLen)
	}
	if off := float64(s.TrackOffsetMs)/1000 - start; math.Abs(off-(c.trackStart-narrLead)) > 0.5 {
		t.Errorf("alignment %.2f s, want %.2f", off, c.trackStart-narrLead)
	}
}

// TestSongUnderNarrationCutInBlock: the same with the music from 5.6 to
// 35.6 s, both cuts 0.3 s inside music detection's 0.98-s blocks, as a real
// video's cuts fall anywhere (issue 16, narration round 8). Music detection
// ranged at block resolution from 3.9 s, two blocks before the music, and
// the song's start snapped there, 1.7 s early; with the ranges' edges placed
// to the frame (musicdetect, refine.go) both ends come within half a
// second.
func TestSongUnderNarrationCutInBlock(t *testing.T) {
	requireNarratedBounds(t, []string{"vengeful", "battle-epic", "knolls", "wanderer"},
		narratedCase{track: 0, voice: 0, trackStart: 48.8, levelDB: -8, seed: 100010, lead: 5.6})
}

// requireNarratedBounds renders c (its song the first of songs, all of
// them indexed) and requires its song alone, both ends within 0.5 s of the
// cuts.
func requireNarratedBounds(t *testing.T, songs []string, c narratedCase) {
	t.Helper()
	audiotest.RequireEspeak(t)
	tracks := loadNamed(t, songs...)
	ix, _, _ := buildIndex(t, tracks, func(int) bool { return true })
	pcm := renderNarrated(t, tracks, c)
	music := musicdetect.Detect(pcm, musicdetect.Options{})
	st := ix.Timeline(fingerprint.New(fingerprint.QueryOptions).Fingerprint(pcm), fingerprint.TimelineOptions{Music: music})
	var found []fingerprint.Stretch
	for _, s := range st {
		if s.TrackID != "" {
			found = append(found, s)
		}
	}
	if len(found) != 1 || found[0].TrackID != songs[c.track] {
		t.Fatalf("stretches %+v, want %s alone", st, songs[c.track])
	}
	lead := c.leadSeconds()
	start, end := float64(found[0].StartMs)/1000, float64(found[0].EndMs)/1000
	if math.Abs(start-lead) > 0.5 || math.Abs(end-(lead+narrLen)) > 0.5 {
		t.Errorf("bounds %.2f–%.2f s (music detected %v), want %g–%g ±0.5 s", start, end, music, lead, lead+narrLen)
	}
}

// TestNarratedSongStart: narration that starts 2 s before song B and covers
// its first 10 s (music 8 dB below the voice) delays B's reported start
// less (issue 16: starts were reported 3–17 s late). Over these eight
// videos B started within a second in 2 before the edges were settled at
// the stretch's alignment (edges.go) and in 4 after; the others stay late
// where the voice leaves no aligned hash for more than edgeGapSeconds. All
// songs must be found at their alignment, nothing else named.
func TestNarratedSongStart(t *testing.T) {
	audiotest.RequireEspeak(t)
	tracks := loadNamed(t, "breaking_the_chains", "knolls", "weight_of_revenge", "northerners")
	ix, _, _ := buildIndex(t, tracks, func(int) bool { return true })
	qfp := fingerprint.New(fingerprint.QueryOptions)
	onTime := 0
	for seed := uint64(1); seed <= 8; seed++ {
		pcm, segs := introVideo(t, tracks, []int{0, 1, 2, 3}, []int{0, 2, 4}, seed)
		st := ix.Timeline(qfp.Fingerprint(pcm), fingerprint.TimelineOptions{Music: musicdetect.Detect(pcm, musicdetect.Options{})})
		bs, spurious := scoreTimeline(tracks, segs, st)
		for i, b := range bs {
			if !b.found {
				t.Errorf("seed %d: %s %.2f–%.2f not found at its alignment in %+v", seed, tracks[b.seg.track].name, b.seg.start, b.seg.end, st)
				continue
			}
			if i == 1 { // song B
				t.Logf("seed %d: %s starts %+.2f s", seed, tracks[b.seg.track].name, b.err[0])
				if math.Abs(b.err[0]) <= 1 {
					onTime++
				}
			}
		}
		if len(spurious) > 0 {
			t.Errorf("seed %d: spurious %+v", seed, spurious)
		}
	}
	if onTime < 4 {
		t.Errorf("song B started within 1 s in %d of 8 videos, want at least 4", onTime)
	}
}

// TestNarratedEdgeSnapsToRangeInside: under the voice a song's edge where
// the track still explains a third or more of the query's hashed frames
// next to it was taken for an edge in the clear and kept from the music
// range's edge, which music detection places to the frame (issue 16,
// narration round 9): this song's end stopped 1.75 s early at 33.85 s,
// music detection's range ending at 35.60 s, at the cut (0.3 s inside a
// block). A range edge inside the recording now draws it.
func TestNarratedEdgeSnapsToRangeInside(t *testing.T) {
	requireNarratedBounds(t, []string{"the_dangerous_symphony", "battle-epic", "knolls", "wanderer"},
		narratedCase{track: 0, voice: slices.Index(audiotest.Voices, "en-gb-x-rp+m5"), trackStart: 163.2, levelDB: -8, seed: 200011, lead: 5.6})
}
