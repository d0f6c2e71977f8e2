package fingerprint_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
)

// BenchmarkSungQueries: catalog songs with a sung lead, queried with voice
// suppression on and off (issue 16: suppression must take narration, not
// a song's own vocal). Run it with
//
//	go test ./pkg/audio/fingerprint/ -run '^$' -bench BenchmarkSungQueries -benchtime 1x -timeout 30m
//
// Every catalog song of halfSets (in-index, ≥ 60 s) gets a synthetic sung
// lead (fingerprint.SynthSung) over its whole length, 0 to +6 dB over the
// accompaniment where it sounds (drawn per song); the MIX replaces the
// song in the index. Queries are clips of the mix, 5 and 10 s, with pink
// noise at the clip benchmark's SNRs (10, 0, −5 dB), re-levelled and sent
// through AAC 128k like makeClip's (the mix is made at the analysis rate,
// so the round trip starts there); each clip is at least 60 % sung. For
// each vibrato depth (±0.3 and ±0.6 semitones), half and condition: recall
// (the song first, offset within 1 s) without → with suppression, the
// geometric mean of the song's score over the best other track's, and the
// share of the sung frames (and of the rest) the voice detector takes.
// AUDIO_BENCH_SUNG sets the clips per half and condition (default 24).
func BenchmarkSungQueries(b *testing.B) {
	tracks := loadTracks(b)
	songs, _ := halfSets(tracks)
	n := envInt("AUDIO_BENCH_SUNG", 24)
	var report strings.Builder
	fmt.Fprintf(&report, "\nsung lead over the catalog songs (%d tuning, %d held-out), %d clips per half and condition; without → with voice suppression\n", len(songs[0]), len(songs[1]), n)
	fmt.Fprintf(&report, "%-7s %-5s %-6s %-9s %-13s %-17s %-13s %-6s\n", "vibrato", "clip", "SNR", "half", "recall", "true/runner-up", "sung voiced", "rest")
	for _, depth := range []float64{0.3, 0.6} {
		mixes, lines := sungMixes(b, tracks, songs, depth)
		ix, _, _ := buildIndex(b, mixes, func(i int) bool { return !heldOut(i) })
		for _, length := range []float64{5, 10} {
			for _, snr := range []float64{10, 0, -5} {
				for h := range 2 {
					r := sungCondition(b, mixes, lines, songs[h], ix, depth, length, snr, n)
					fmt.Fprintf(&report, "±%-6.1f %-5s %-6g %-9s %.3f → %-5.3f %5.2f → %-8.2f %.2f        %.2f\n", depth, fmt.Sprintf("%gs", length), snr, halfNames[h],
						r.recall[0], r.recall[1], r.margin[0], r.margin[1], r.sung, r.rest)
				}
			}
		}
	}
	fmt.Print(report.String())
}

// sungMixes returns the tracks with each song of songs replaced by its mix
// with a sung lead of vibrato depth, and the lines by track.
func sungMixes(tb testing.TB, tracks []benchTrack, songs [2][]int, depth float64) ([]benchTrack, map[int]fingerprint.SungLine) {
	out := append([]benchTrack(nil), tracks...)
	lines := map[int]fingerprint.SungLine{}
	var all []int
	for _, s := range songs {
		all = append(all, s...)
	}
	mixed := make([]benchTrack, len(all))
	sung := make([]fingerprint.SungLine, len(all))
	parallel(len(all), func(k int) {
		i := all[k]
		t := tracks[i]
		line := fingerprint.SynthSung(t.pcm.Rate, t.pcm.Seconds(), depth, uint64(i)+1)
		level := rand.New(rand.NewPCG(uint64(i), 77)).Float64() * 6
		mixed[k] = benchTrack{name: t.name, path: t.path, pcm: relevel(sungMix(t.pcm, line, level))}
		sung[k] = line
	})
	for k, i := range all {
		out[i] = mixed[k]
		lines[i] = sung[k]
	}
	return out, lines
}

// sungMix adds line to music, levelDB over the music's RMS where it sounds.
func sungMix(music audio.PCM, line fingerprint.SungLine, levelDB float64) audio.PCM {
	var m, v float64
	var cnt int
	for i, x := range line.Samples {
		if i < len(music.Samples) && line.Sung(float64(i)/float64(music.Rate)) {
			m += float64(music.Samples[i]) * float64(music.Samples[i])
			v += float64(x) * float64(x)
			cnt++
		}
	}
	out := audiotest.Concat(music)
	if cnt == 0 || v == 0 {
		return out
	}
	g := math.Sqrt(m/v) * math.Pow(10, levelDB/20)
	for i, x := range line.Samples {
		if i < len(out.Samples) {
			out.Samples[i] += float32(g) * x
		}
	}
	return out
}

type sungResult struct {
	recall, margin [2]float64 // without, with suppression
	sung, rest     float64    // shares of frames taken for a voice
}

// sungCondition queries n clips of the songs' mixes (length, snr) with
// suppression off and on.
func sungCondition(tb testing.TB, mixes []benchTrack, lines map[int]fingerprint.SungLine, songs []int, ix *fingerprint.Index, depth, length, snr float64, n int) sungResult {
	r := rand.New(rand.NewPCG(uint64(length*1000), uint64(len(songs))))
	type clip struct {
		track int
		start float64
	}
	specs := make([]clip, 0, n)
	for len(specs) < n {
		ti := songs[r.IntN(len(songs))]
		start := math.Round(r.Float64()*(mixes[ti].pcm.Seconds()-length-0.5)*1000) / 1000
		sung := 0
		for k := range 100 {
			if lines[ti].Sung(start + length*(float64(k)+0.5)/100) {
				sung++
			}
		}
		if sung >= 60 {
			specs = append(specs, clip{ti, start})
		}
	}
	pcms := make([]audio.PCM, n)
	parallel(n, func(i int) {
		c := specs[i]
		src := mixes[c.track].pcm.Window(c.start, length)
		seed := uint64(i)*31 + uint64(snr+100)
		noise := audiotest.PinkNoise(src.Rate, src.Seconds()+0.1, 0.1, seed)
		key := fmt.Sprintf("sung-%s-%g-%.3f-%g-%g-%d", mixes[c.track].name, depth, c.start, length, snr, seed)
		pcms[i] = aacRoundTripAt(tb, relevel(audiotest.MixSNR(src, noise, snr)), key, audio.DefaultSampleRate)
	})
	var out sungResult
	var sungSum, restSum float64
	for mode, suppress := range []bool{false, true} {
		opts := fingerprint.QueryOptions
		opts.SuppressVoice = suppress
		fp := fingerprint.New(opts)
		hits := 0
		var logs float64
		for i, c := range specs {
			h := fp.Fingerprint(pcms[i])
			want := mixes[c.track].name
			if cs := ix.Match(h, fingerprint.MatchOptions{}); len(cs) > 0 && cs[0].TrackID == want && math.Abs(cs[0].TrackOffset-c.start) < 1 {
				hits++
			}
			tr, other := 0, 0
			for _, m := range ix.Match(h, fingerprint.MatchOptions{MinRatio: 1e-9, MinScore: 1, MaxCandidates: 10}) {
				if m.TrackID == want && tr == 0 {
					tr = m.Score
				} else if m.TrackID != want && other == 0 {
					other = m.Score
				}
			}
			logs += math.Log(float64(max(tr, 1)) / float64(max(other, 1)))
			if suppress {
				s, o := fingerprint.VoicedShare(pcms[i], lines[c.track], c.start)
				sungSum += s
				restSum += o
			}
		}
		out.recall[mode] = float64(hits) / float64(n)
		out.margin[mode] = math.Exp(logs / float64(n))
	}
	out.sung, out.rest = sungSum/float64(n), restSum/float64(n)
	if verboseBench() {
		fmt.Fprintf(os.Stderr, "sung ±%.1f %gs %g dB: %+v\n", depth, length, snr, out)
	}
	return out
}
