package fingerprint_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/musicdetect"
)

// warpTracks are indexed (60 s of each) by the warp tests.
var warpTracks = []string{"battle", "elvish-theme", "knolls", "wanderer", "northerners"}

func warpIndex(t *testing.T) (*fingerprint.Index, []benchTrack) {
	t.Helper()
	tracks := loadSome(t, warpTracks)
	b := fingerprint.NewBuilder()
	fp := fingerprint.New(fingerprint.IndexOptions)
	for _, tr := range tracks {
		if err := b.Add(tr.name, tr.pcm.Seconds(), fp.Fingerprint(tr.pcm)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build(), tracks
}

// warped is length seconds of the track from start (seconds of the
// original) through the condition's filter, with pink noise at 10 dB, at
// the analysis rate.
func warped(t *testing.T, tr benchTrack, start, length float64, cond speedCond, seed uint64) audio.PCM {
	src := ffmpegFilter(t, tr.path, start, length*cond.speed+0.5, cond.filter).Window(0, length)
	mixed := audiotest.MixSNR(src, audiotest.PinkNoise(44100, length+0.1, 0.1, seed), 10)
	return mixed
}

// TestMatchWarped: clips played 5 % faster or slower, pitch-shifted by
// ±2 semitones or by one, are found at the right place by MatchWarped
// (and not by Match), with the speed within 0.01 and the shift within 0.2
// semitones; an unchanged clip comes back from the identity search.
func TestMatchWarped(t *testing.T) {
	ix, tracks := warpIndex(t)
	q := fingerprint.New(fingerprint.QueryOptions)
	conds := speedConds()
	byName := map[string]speedCond{}
	for _, c := range conds {
		byName[c.name] = c
	}
	cases := []string{"none", "rate +5%", "rate -5%", "pitch +2 st", "pitch -1 st", "rate +8%"}
	for i, name := range cases {
		cond := byName[name]
		tr := tracks[i%len(tracks)]
		start := 15.0 + 3*float64(i)
		t.Run(fmt.Sprintf("%s/%s", name, tr.name), func(t *testing.T) {
			h := q.Fingerprint(warped(t, tr, start, 10, cond, uint64(i)))
			if name != "none" {
				if cs := ix.Match(h, fingerprint.MatchOptions{}); len(cs) > 0 && cs[0].TrackID == tr.name {
					t.Logf("the identity search found it too (score %d)", cs[0].Score)
				}
			}
			cs := ix.MatchWarped(h, fingerprint.MatchOptions{})
			if len(cs) == 0 {
				t.Fatal("not found")
			}
			c := cs[0]
			t.Logf("%s at %.2f s, score %d, ratio %.1f, warp %+v", c.TrackID, c.TrackOffset, c.Score, c.Ratio, c.Warp)
			if c.TrackID != tr.name || math.Abs(c.TrackOffset-start) > 0.3 {
				t.Fatalf("got %s at %.2f s, want %s at %.2f s", c.TrackID, c.TrackOffset, tr.name, start)
			}
			if math.Abs(c.Warp.Speed-cond.speed) > 0.01 || math.Abs(c.Warp.Semitones-cond.semitones) > 0.2 {
				t.Errorf("warp %+v, want speed %.3f, %.2f semitones", c.Warp, cond.speed, cond.semitones)
			}
		})
	}
}

// TestMatchWarpedPastAChanceMatch: a clip that is mostly one song played
// 8 % slow, ending on a second and a half of another song as indexed (a
// sting), is that first song, warped: the identity search's match of the
// sting aligns a few hashes over a small part of the clip, which is too
// weak to answer without the warp search.
func TestMatchWarpedPastAChanceMatch(t *testing.T) {
	ix, tracks := warpIndex(t)
	var slow speedCond
	for _, c := range speedConds() {
		if c.name == "rate -8%" {
			slow = c
		}
	}
	song, sting := tracks[1], tracks[4]
	clip := audiotest.Concat(ffmpegFilter(t, song.path, 20, 9*slow.speed+0.5, slow.filter).Window(0, 8.5), ffmpegFilter(t, sting.path, 30, 1.6, "").Window(0, 1.5))
	h := fingerprint.New(fingerprint.QueryOptions).Fingerprint(audiotest.MixSNR(clip, audiotest.PinkNoise(44100, 10.1, 0.1, 3), 10))
	cs := ix.Match(h, fingerprint.MatchOptions{})
	if len(cs) == 0 || cs[0].TrackID != sting.name {
		t.Fatalf("the identity search found %+v, want the sting %s (the case this test is about)", cs, sting.name)
	}
	t.Logf("identity: %s, score %d over %.1f s", cs[0].TrackID, cs[0].Score, cs[0].QueryEnd-cs[0].QueryStart)
	ws := ix.MatchWarped(h, fingerprint.MatchOptions{})
	if len(ws) == 0 || ws[0].TrackID != song.name || math.Abs(ws[0].TrackOffset-20) > 0.5 || math.Abs(ws[0].Warp.Speed-slow.speed) > 0.01 {
		t.Fatalf("MatchWarped: %+v, want %s at 20 s, speed %.2f", ws, song.name, slow.speed)
	}
}

// TestMatchWarpedOutsideMusic: clips of music the index does not hold,
// under the largest changes, are matched by nothing the warp search adds.
func TestMatchWarpedOutsideMusic(t *testing.T) {
	ix, _ := warpIndex(t)
	outside := loadSome(t, []string{"heroes_rite", "loyalists", "the_deep_path"})
	q := fingerprint.New(fingerprint.QueryOptions)
	for i, cond := range speedConds() {
		if cond.speed != 0.92 && cond.speed != 1.08 && math.Abs(cond.semitones) != 2 {
			continue
		}
		tr := outside[i%len(outside)]
		h := q.Fingerprint(warped(t, tr, 10+4*float64(i%8), 10, cond, uint64(i)))
		if cs := ix.MatchWarped(h, fingerprint.MatchOptions{}); len(cs) > 0 && !cs[0].Warp.IsIdentity() {
			t.Errorf("%s of %s matched %+v", cond.name, tr.name, cs[0])
		}
	}
}

// TestTimelineWarped: a video with one song 5 % faster and another two
// semitones up, silence around them: each is one stretch at its place
// (±1 s), its alignment and its reported speed and shift.
func TestTimelineWarped(t *testing.T) {
	ix, tracks := warpIndex(t)
	conds := map[string]speedCond{}
	for _, c := range speedConds() {
		conds[c.name] = c
	}
	a := warped(t, tracks[1], 12, 25, conds["rate +5%"], 1)
	b := warped(t, tracks[3], 20, 20, conds["pitch +2 st"], 2)
	video := audiotest.Concat(audiotest.Silence(44100, 2), a, audiotest.Silence(44100, 3), b, audiotest.Silence(44100, 2))
	st := ix.Timeline(fingerprint.New(fingerprint.QueryOptions).Fingerprint(video), fingerprint.TimelineOptions{})
	want := []struct {
		id           string
		start, end   float64
		offset       float64
		speed, semis float64
	}{
		{tracks[1].name, 2, 27, 12, 1.05, 12 * math.Log2(1.05)},
		{tracks[3].name, 30, 50, 20, 1, 2},
	}
	if len(st) != len(want) {
		t.Fatalf("got %s, want 2 stretches", describe(st))
	}
	for i, w := range want {
		s := st[i]
		if s.TrackID != w.id || math.Abs(float64(s.StartMs)/1000-w.start) > 1 || math.Abs(float64(s.EndMs)/1000-w.end) > 1 {
			t.Errorf("stretch %d: got %s, want %s %.0f–%.0f s", i, describe(st[i:i+1]), w.id, w.start, w.end)
		}
		// The track time at the stretch's start, from where the song starts.
		wantOffset := w.offset + (float64(s.StartMs)/1000-w.start)*w.speed
		if math.Abs(float64(s.TrackOffsetMs)/1000-wantOffset) > 0.5 {
			t.Errorf("stretch %d: track offset %d ms, want %.2f s", i, s.TrackOffsetMs, wantOffset)
		}
		if wp := s.Warp(); math.Abs(wp.Speed-w.speed) > 0.01 || math.Abs(wp.Semitones-w.semis) > 0.2 {
			t.Errorf("stretch %d: warp %+v, want %.3f, %.2f", i, wp, w.speed, w.semis)
		}
	}
}

// TestMatchWarpedSparseSong: a sparse song (suspense) pitch-shifted by a
// semitone up or two down is found with its shift although the other
// tracks' best cells come close on the coarse grid's sample (ratios
// 1.68–1.79 there, which once refused it): the contenders are refined
// with the whole query, where it wins by more than 2. The index holds
// the tracks that were its rivals among BenchmarkSpeedPitch's 200.
func TestMatchWarpedSparseSong(t *testing.T) {
	tracks := loadNamed(t, "suspense", "weight_of_revenge", "return_to_wesnoth", "silvan_sanctuary",
		"the_city_falls", "journeys_end", "knolls")
	ix, _, _ := buildIndex(t, tracks, func(int) bool { return true })
	q := fingerprint.New(fingerprint.QueryOptions)
	spec := clipSpec{track: 0, start: 6.371, length: speedClipSeconds + 2, snr: 10, seed: 1000189}
	for _, cond := range speedConds() {
		if cond.name != "pitch +1 st" && cond.name != "pitch -2 st" {
			continue
		}
		t.Run(cond.name, func(t *testing.T) {
			cs := ix.MatchWarped(q.Fingerprint(makeSpeedClip(t, tracks, spec, cond)), fingerprint.MatchOptions{})
			if len(cs) == 0 {
				t.Fatal("not found")
			}
			c := cs[0]
			t.Logf("%s at %.2f s, score %d, ratio %.2f, warp %+v", c.TrackID, c.TrackOffset, c.Score, c.Ratio, c.Warp)
			if c.TrackID != "suspense" || math.Abs(c.TrackOffset-spec.start) > 0.3 || math.Abs(c.Warp.Semitones-cond.semitones) > 0.2 {
				t.Errorf("got %s at %.2f s %+v, want suspense at %.2f s, %+.0f semitones", c.TrackID, c.TrackOffset, c.Warp, spec.start, cond.semitones)
			}
		})
	}
}

// TestTimelineModulatedRepeat: knolls returns to its theme two semitones
// up near its end, so a play of its opening shifted up two semitones
// lines up, unshifted, with that repeat – the identity pass names the
// right song at the wrong place (389–397 s) and without its shift. The
// warp that explains the play better is taken: one stretch at 40 s, +2
// semitones. Played as recorded, the repeat stays an identity match.
func TestTimelineModulatedRepeat(t *testing.T) {
	tracks := loadNamed(t, "battle", "knolls", "traveling_minstrels")
	ix, _, _ := buildIndex(t, tracks, func(int) bool { return true })
	q := fingerprint.New(fingerprint.QueryOptions)
	var up, none speedCond
	for _, c := range speedConds() {
		switch c.name {
		case "pitch +2 st":
			up = c
		case "none":
			none = c
		}
	}
	cases := []struct {
		name          string
		start, length float64
		cond          speedCond
		semitones     float64
	}{
		{"opening +2 st", 40, 15, up, 2},
		{"repeat as recorded", 389, 10, none, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := q.Fingerprint(warped(t, tracks[1], tc.start, tc.length, tc.cond, uint64(i+1)))
			if tc.semitones != 0 {
				// The premise: the identity pass names the repeat.
				id := ix.Timeline(h, fingerprint.TimelineOptions{NoWarp: true})
				if !slices.ContainsFunc(id, func(s fingerprint.Stretch) bool {
					return s.TrackID == "knolls" && math.Abs(float64(s.TrackOffsetMs-s.StartMs)/1000-tc.start) > 10
				}) {
					t.Fatalf("identity pass: %s, want knolls away from %.0f s", describe(id), tc.start)
				}
				t.Logf("identity pass: %s", describe(id))
			}
			st := ix.Timeline(h, fingerprint.TimelineOptions{})
			if len(st) != 1 {
				t.Fatalf("got %s (warps %v), want one stretch", describe(st), stretchWarps(st))
			}
			s := st[0]
			if s.TrackID != "knolls" || float64(s.StartMs) > 1000 || math.Abs(float64(s.EndMs)/1000-tc.length) > 1 {
				t.Errorf("got %s, want knolls over 0–%.0f s", describe(st), tc.length)
			}
			if off := float64(s.TrackOffsetMs)/1000 - float64(s.StartMs)/1000*s.Warp().Speed; math.Abs(off-tc.start) > 0.5 {
				t.Errorf("track offset at the clip's start %.2f s, want %.0f", off, tc.start)
			}
			if math.Abs(s.Warp().Semitones-tc.semitones) > 0.2 || math.Abs(s.Warp().Speed-1) > 0.01 {
				t.Errorf("warp %+v, want %+.0f semitones at speed 1", s.Warp(), tc.semitones)
			}
		})
	}
}

func stretchWarps(st []fingerprint.Stretch) []fingerprint.Warp {
	out := make([]fingerprint.Warp, len(st))
	for i, s := range st {
		out[i] = s.Warp()
	}
	return out
}

// TestTimelineWarpedNoSlivers: knolls from 70 s played 5 % slower, or a
// semitone down, lines up for a few seconds with traveling_minstrels
// unwarped (identity scores 27–34), and music detection breaks the
// clip's range for a quiet bar. The identity pass names
// traveling_minstrels there (3.6–9.0 s, 5.3–7.9 s), which left the
// slower clip's music around it too short for a warp window (the whole
// clip was reported as traveling_minstrels and unexplained music) and
// split the lower one into two knolls stretches around a 2.6-s sliver.
// The warp search looks at a short identity stretch next to unexplained
// music too, and the warped play that outscores it replaces it: one
// stretch, knolls with its warp, over the clip (±1 s).
func TestTimelineWarpedNoSlivers(t *testing.T) {
	tracks := loadNamed(t, "battle", "knolls", "traveling_minstrels")
	ix, _, _ := buildIndex(t, tracks, func(int) bool { return true })
	q := fingerprint.New(fingerprint.QueryOptions)
	for i, cond := range speedConds() {
		if cond.name != "rate -5%" && cond.name != "pitch -1 st" {
			continue
		}
		t.Run(cond.name, func(t *testing.T) {
			const start, length = 70, 15
			pcm := warped(t, tracks[1], start, length, cond, 1)
			h := q.Fingerprint(pcm)
			music := musicdetect.Detect(pcm, musicdetect.Options{})
			id := ix.Timeline(h, fingerprint.TimelineOptions{Music: music, NoWarp: true})
			t.Logf("identity pass: %s", describe(id))
			st := ix.Timeline(h, fingerprint.TimelineOptions{Music: music})
			if len(st) != 1 {
				t.Fatalf("case %d: got %s (warps %v), want one knolls stretch", i, describe(st), stretchWarps(st))
			}
			s := st[0]
			if s.TrackID != "knolls" || s.StartMs > 1000 || math.Abs(float64(s.EndMs)/1000-length) > 1 {
				t.Errorf("got %s, want knolls over 0–%d s", describe(st), length)
			}
			if off := float64(s.TrackOffsetMs)/1000 - float64(s.StartMs)/1000*s.Warp().Speed; math.Abs(off-start) > 0.5 {
				t.Errorf("track offset at the clip's start %.2f s, want %d", off, start)
			}
			if w := s.Warp(); math.Abs(w.Speed-cond.speed) > 0.01 || math.Abs(w.Semitones-cond.semitones) > 0.2 {
				t.Errorf("warp %+v, want %.3f, %+.2f semitones", w, cond.speed, cond.semitones)
			}
		})
	}
}
