package fingerprint_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/fingerprint/background"
	"musiccatalog/pkg/audio/musicdetect"
)

// BenchmarkSmallCatalog measures a small index – a new deployment, the demo
// catalog, a partner's own library – with and without the background
// (package background; fingerprint.WithBackground): indexes of 1, 3, 10
// and up to 30 wesnoth tracks (every other track from the first: 21 there
// are).
//
//   - false: whole wesnoth tracks that are not in the index (every fourth
//     from the second; Timeline over each, clean); every catalog stretch
//     reported is false (the set does share a few passages between
//     tracks: casualties_of_war holds 3 s of the_deep_path and 7 s of
//     battle, scores 73 and 85);
//
//   - clips: 5-s clips of the indexed tracks in pink noise at −5 dB, AAC
//     (Match: the right track first);
//
//   - warped: 10-s clips played 5 % slower and faster and pitched ±1
//     semitone, noise at 0 dB (MatchWarped: the right track first);
//
//   - narrated: 30 s of an indexed track 14 dB under espeak narration
//     (Timeline with music detection and guided edges: found at the right
//     alignment; both ends within ±1 s).
//
//     go test ./pkg/audio/fingerprint/ -run '^$' -bench BenchmarkSmallCatalog -benchtime 1x
//
// AUDIO_BENCH_SMALL_CLIPS sets the clips per size and condition (default
// 24; warped and narrated a third of it each); AUDIO_BENCH_BACKGROUND=FILE
// measures another background index (gen -out DIR writes one).
func BenchmarkSmallCatalog(b *testing.B) {
	tracks := loadTracks(b)
	audiotest.RequireEspeak(b)
	bg, err := background.Index()
	if f := os.Getenv("AUDIO_BENCH_BACKGROUND"); f != "" {
		// Another background to compare (gen -out DIR writes one).
		var data []byte
		if data, err = os.ReadFile(f); err == nil {
			bg = new(fingerprint.Index)
			err = bg.UnmarshalBinary(data)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	fp := fingerprint.New(fingerprint.IndexOptions)
	qfp := fingerprint.New(fingerprint.QueryOptions)
	var outside []benchTrack
	for i := 1; i < len(tracks); i += 4 {
		outside = append(outside, tracks[i])
	}
	nClips := envInt("AUDIO_BENCH_SMALL_CLIPS", 24)
	warps := []speedCond{}
	for _, c := range speedConds() {
		if c.name == "rate -5%" || c.name == "rate +5%" || c.name == "pitch -1 st" || c.name == "pitch +1 st" {
			warps = append(warps, c)
		}
	}
	for range b.N {
		var report strings.Builder
		for _, size := range []int{1, 3, 10, 30} {
			bl := fingerprint.NewBuilder()
			in := map[int]bool{}
			for i := 0; i < len(tracks) && len(in) < size; i += 2 {
				if err := bl.Add(tracks[i].name, tracks[i].pcm.Seconds(), fp.Fingerprint(tracks[i].pcm)); err != nil {
					b.Fatal(err)
				}
				in[i] = true
			}
			catalog := bl.Build()
			withBg, err := fingerprint.WithBackground(catalog, bg)
			if err != nil {
				b.Fatal(err)
			}
			pick := func(i int) bool { return in[i] }
			clips := clipSpecs(tracks, pick, nClips, 5, []float64{-5}, uint64(size))[0]
			wclips := clipSpecs(tracks, func(i int) bool { return in[i] && tracks[i].pcm.Seconds() > 30 }, max(1, nClips/3), speedClipSeconds*1.1, []float64{0}, uint64(100+size))[0]
			narrated := smallNarrated(tracks, in, max(1, nClips/3), uint64(size))
			for _, ix := range []struct {
				name string
				ix   *fingerprint.Index
			}{{"no background", catalog}, {"background", withBg}} {
				var stretches int
				var falseSec, total float64
				for _, q := range outside {
					total += q.pcm.Seconds()
					for _, s := range ix.ix.Timeline(qfp.Fingerprint(q.pcm), fingerprint.TimelineOptions{Music: musicdetect.Detect(q.pcm, musicdetect.Options{})}) {
						if s.TrackID != "" {
							stretches++
							falseSec += float64(s.EndMs-s.StartMs) / 1000
						}
					}
				}
				found := 0
				for _, c := range clips {
					cs := ix.ix.Match(qfp.Fingerprint(makeClip(b, tracks, c)), fingerprint.MatchOptions{})
					if len(cs) > 0 && cs[0].TrackID == tracks[c.track].name {
						found++
					}
				}
				wfound, wn := 0, 0
				for _, cond := range warps {
					for _, c := range wclips {
						wn++
						cs := ix.ix.MatchWarped(qfp.Fingerprint(makeSpeedClip(b, tracks, c, cond)), fingerprint.MatchOptions{})
						if len(cs) > 0 && cs[0].TrackID == tracks[c.track].name {
							wfound++
						}
					}
				}
				var t speechTally
				for _, c := range narrated {
					pcm, seg := renderNarratedSeg(b, tracks, c)
					music := musicdetect.Detect(pcm, musicdetect.Options{})
					st := guided(b, tracks, pcm, ix.ix.Timeline(qfp.Fingerprint(pcm), fingerprint.TimelineOptions{Music: music}))
					t.add(tracks, []segment{seg}, st)
				}
				fmt.Fprintf(&report, "index of %2d tracks, %-13s: false %3d stretches, %5.0f of %5.0f s (%4.1f %%); clips −5 dB %5.3f (%d/%d); warped %5.3f (%d/%d); narrated −14 dB %5.3f (%d/%d), bounds ±1 s %d/%d, spurious %d\n",
					len(in), ix.name, stretches, falseSec, total, 100*falseSec/total, float64(found)/float64(len(clips)), found, len(clips),
					float64(wfound)/float64(max(wn, 1)), wfound, wn, float64(t.found)/float64(max(t.videos, 1)), t.found, t.videos, t.bounds, t.boundsTotal, t.spurious)
			}
		}
		fmt.Print(report.String())
		if f := os.Getenv("AUDIO_BENCH_REPORT"); f != "" {
			if err := os.WriteFile(f, []byte(report.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// smallNarrated draws n narrated cases (music 14 dB under the voice) from
// the indexed tracks at least 60 s long (in), the tuning half's voices in
// turn.
func smallNarrated(tracks []benchTrack, in map[int]bool, n int, seed uint64) []narratedCase {
	var songs []int
	for i := range tracks {
		if in[i] && tracks[i].pcm.Seconds() >= 60 {
			songs = append(songs, i)
		}
	}
	if len(songs) == 0 {
		return nil
	}
	var voices []int
	for v := range audiotest.Voices {
		if halfOf(v) == 0 {
			voices = append(voices, v)
		}
	}
	r := rand.New(rand.NewPCG(seed, 14))
	var out []narratedCase
	for k := range n {
		ti := songs[r.IntN(len(songs))]
		start := 10 + math.Round(r.Float64()*(tracks[ti].pcm.Seconds()-narrLen-20)*10)/10
		out = append(out, narratedCase{track: ti, voice: voices[k%len(voices)], trackStart: start, levelDB: -14, seed: 5_000_000 + seed*1000 + uint64(k)})
	}
	return out
}
