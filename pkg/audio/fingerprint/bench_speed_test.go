package fingerprint_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/cputime"
)

// The speed and pitch benchmark (issue 16 item 2). Run it with
//
//	go test ./pkg/audio/fingerprint/ -run '^$' -bench BenchmarkSpeedPitch -benchtime 1x -timeout 60m
//
// 10-s clips of indexed songs played faster or slower (playback rate:
// tempo and pitch together, asetrate+aresample), pitch-shifted with the
// tempo kept (rubberband) and time-stretched with the pitch kept (atempo),
// then pink noise at 10 dB under the clip (the timelines' level) and AAC
// 128k. The songs are split by audiotest.TuningHalf and every figure is
// given for both halves. The index holds every song but BenchmarkAccuracy's
// heldOut ones, whose clips under the same transforms measure false
// positives. Knobs: AUDIO_BENCH_SPEED_CLIPS and AUDIO_BENCH_SPEED_FP_CLIPS (clips per condition and half,
// default 25; false positives: 15), AUDIO_BENCH_SEED (other clips: tuning material beyond the
// default draw), AUDIO_BENCH_CACHE (see bench_test.go), AUDIO_BENCH_HALF=tuning (or held-out: one
// half only), AUDIO_BENCH_CONDITIONS (comma-separated condition names without spaces, "st" or "%",
// e.g. "pitch+1,pitch+2,rate-5"; default all), AUDIO_BENCH_VERBOSE=1 (the tuning half's misses of
// the warp and timeline searches, and its false positives).

// speedCond is one transform of the benchmark.
type speedCond struct {
	name string
	// speed is the tempo ratio of the clip to the song (1.05: 5 % faster),
	// semitones its pitch shift.
	speed, semitones float64
	filter           string // ffmpeg audio filter at 44.1 kHz; "" for none
}

// benchSpeedConds returns the conditions AUDIO_BENCH_CONDITIONS names
// (all by default).
func benchSpeedConds(tb testing.TB) []speedCond {
	all := speedConds()
	v := os.Getenv("AUDIO_BENCH_CONDITIONS")
	if v == "" {
		return all
	}
	short := strings.NewReplacer(" st", "", " ", "", "%", "")
	var out []speedCond
	for _, want := range strings.Split(v, ",") {
		i := slices.IndexFunc(all, func(c speedCond) bool { return short.Replace(c.name) == strings.TrimSpace(want) })
		if i < 0 {
			tb.Fatalf("AUDIO_BENCH_CONDITIONS: no condition %q", want)
		}
		out = append(out, all[i])
	}
	return out
}

func speedConds() []speedCond {
	rate := func(r float64) speedCond {
		return speedCond{fmt.Sprintf("rate %+.0f%%", 100*(r-1)), r, 12 * math.Log2(r),
			fmt.Sprintf("asetrate=%d,aresample=44100", int(math.Round(44100*r)))}
	}
	pitch := func(s float64) speedCond {
		return speedCond{fmt.Sprintf("pitch %+g st", s), 1, s, fmt.Sprintf("rubberband=pitch=%.6f", math.Pow(2, s/12))}
	}
	stretch := func(a float64) speedCond {
		return speedCond{fmt.Sprintf("stretch %+.0f%%", 100*(a-1)), a, 0, fmt.Sprintf("atempo=%.4f", a)}
	}
	return []speedCond{
		{name: "none", speed: 1},
		rate(0.92), rate(0.95), rate(1.05), rate(1.08),
		pitch(-2), pitch(-1), pitch(1), pitch(2),
		stretch(0.94), stretch(1.06),
	}
}

const speedClipSeconds = 10

// makeSpeedClip decodes enough of the song at 44.1 kHz for a 10-s clip
// after the transform, applies it with ffmpeg, adds the noise and
// round-trips the result through AAC (makeClip's pipeline with a filter).
func makeSpeedClip(tb testing.TB, tracks []benchTrack, c clipSpec, cond speedCond) audio.PCM {
	key := fmt.Sprintf("speed-%s-%.3f-%s-%d", tracks[c.track].name, c.start, strings.ReplaceAll(cond.filter, "=", "_"), c.seed)
	if s, ok := readF32(filepath.Join(cacheDir(tb), key+".f32")); ok {
		return audio.PCM{Samples: s, Rate: audio.DefaultSampleRate}
	}
	src := ffmpegFilter(tb, tracks[c.track].path, c.start, speedClipSeconds*cond.speed+0.5, cond.filter)
	src = src.Window(0, speedClipSeconds)
	noise := audiotest.PinkNoise(44100, src.Seconds()+0.1, 0.1, c.seed)
	mixed := audiotest.MixSNR(src, noise, c.snr)
	peak := float32(0)
	for _, v := range mixed.Samples {
		peak = max(peak, v, -v)
	}
	if peak > 0.99 {
		audiotest.Scale(mixed, 0.99/float64(peak))
	}
	return aacRoundTripAt(tb, mixed, key, audio.DefaultSampleRate)
}

// ffmpegFilter decodes length seconds of path from start at 44.1 kHz mono
// through an ffmpeg audio filter graph ("" for none), in one process.
func ffmpegFilter(tb testing.TB, path string, start, length float64, filter string) audio.PCM {
	args := []string{"-nostdin", "-loglevel", "error", "-ss", fmt.Sprint(start), "-t", fmt.Sprint(length), "-i", path}
	if filter != "" {
		args = append(args, "-af", filter)
	}
	out, err := exec.Command("ffmpeg", append(args, "-ar", "44100", "-ac", "1", "-f", "wav", "-")...).Output()
	if err != nil {
		tb.Fatalf("ffmpeg %s: %v", filter, err)
	}
	p, err := decode.ReadWAV(bytes.NewReader(out))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// speedQuery is one way of querying the index with a clip's hashes: the
// track found (or ""), the track time at the clip's start, and the speed
// and pitch shift it reports.
type speedQuery struct {
	name string
	run  func(ix *fingerprint.Index, h []fingerprint.Hash) (id string, offset, speed, semitones float64)
}

func speedQueries() []speedQuery {
	return []speedQuery{
		{"identity", func(ix *fingerprint.Index, h []fingerprint.Hash) (string, float64, float64, float64) {
			cs := ix.Match(h, fingerprint.MatchOptions{})
			if len(cs) == 0 {
				return "", 0, 1, 0
			}
			return cs[0].TrackID, cs[0].TrackOffset, 1, 0
		}},
		{"warp", func(ix *fingerprint.Index, h []fingerprint.Hash) (string, float64, float64, float64) {
			cs := ix.MatchWarped(h, fingerprint.MatchOptions{})
			if len(cs) == 0 {
				return "", 0, 1, 0
			}
			return cs[0].TrackID, cs[0].TrackOffset, cs[0].Warp.Speed, cs[0].Warp.Semitones
		}},
		// What recognition does (pkg/recognition): the timeline over the
		// clip, all of it music (as music detection marks it); the
		// longest named stretch answers.
		{"timeline", func(ix *fingerprint.Index, h []fingerprint.Hash) (string, float64, float64, float64) {
			ss := ix.Timeline(h, fingerprint.TimelineOptions{Music: []audio.Range{{EndMs: speedClipSeconds * 1000}}})
			best := -1
			for i, s := range ss {
				if s.TrackID != "" && (best < 0 || s.EndMs-s.StartMs > ss[best].EndMs-ss[best].StartMs) {
					best = i
				}
			}
			if best < 0 {
				return "", 0, 1, 0
			}
			s := ss[best]
			w := s.Warp()
			return s.TrackID, float64(s.TrackOffsetMs)/1000 - float64(s.StartMs)/1000*w.Speed, w.Speed, w.Semitones
		}},
	}
}

func BenchmarkSpeedPitch(b *testing.B) {
	tracks := loadTracks(b)
	n := envInt("AUDIO_BENCH_SPEED_CLIPS", 25)
	nOut := envInt("AUDIO_BENCH_SPEED_FP_CLIPS", 15)
	seed := uint64(envInt("AUDIO_BENCH_SEED", 1))
	ix, _, _ := buildIndex(b, tracks, func(i int) bool { return !heldOut(i) })
	qfp := fingerprint.New(fingerprint.QueryOptions)
	queries := speedQueries()
	var report strings.Builder
	fmt.Fprintf(&report, "\nspeed/pitch: 10-s clips, pink noise 10 dB, AAC; %d clips per condition and half (%d for false positives); index of %d tracks\n", n, nOut, len(ix.Tracks()))
	fmt.Fprintf(&report, "%-12s %-9s", "condition", "half")
	for _, q := range queries {
		fmt.Fprintf(&report, " %-22s", q.name+" recall/FP/p50")
	}
	fmt.Fprintf(&report, " %s\n", "reported speed, semitones (median |error|); found without the shift")
	for _, cond := range benchSpeedConds(b) {
		for _, half := range benchHalves(b) {
			pick := func(i int) bool { return audiotest.TuningHalf(i) == (half == 0) }
			in := clipSpecs(tracks, func(i int) bool { return !heldOut(i) && pick(i) }, n, speedClipSeconds+2, []float64{10}, seed)[0]
			out := clipSpecs(tracks, func(i int) bool { return heldOut(i) && pick(i) }, nOut, speedClipSeconds+2, []float64{10}, seed+1000)[0]
			inClips := make([]audio.PCM, len(in))
			outClips := make([]audio.PCM, len(out))
			parallel(len(in), func(i int) { inClips[i] = makeSpeedClip(b, tracks, in[i], cond) })
			parallel(len(out), func(i int) { outClips[i] = makeSpeedClip(b, tracks, out[i], cond) })
			inH := make([][]fingerprint.Hash, len(in))
			for i, c := range inClips {
				inH[i] = qfp.Fingerprint(c)
			}
			outH := make([][]fingerprint.Hash, len(out))
			for i, c := range outClips {
				outH[i] = qfp.Fingerprint(c)
			}
			fmt.Fprintf(&report, "%-12s %-9s", cond.name, audiotest.Half(half))
			var speedErr, pitchErr []float64
			for qi, q := range queries {
				hits, fps := 0, 0
				var times []time.Duration
				for i, h := range inH {
					t0 := time.Now()
					id, off, speed, semis := q.run(ix, h)
					times = append(times, time.Since(t0))
					if verboseBench() && half == 0 && q.name != "identity" && (id != tracks[in[i].track].name || math.Abs(off-in[i].start) >= 1) {
						fmt.Printf("tuning-half miss, %s, %s: want %s at %.1f s, got %q at %.1f s, speed %.3f, %+.2f st\n",
							q.name, cond.name, tracks[in[i].track].name, in[i].start, id, off, speed, semis)
					}
					if id == tracks[in[i].track].name && math.Abs(off-in[i].start) < 1 {
						hits++
						if qi == len(queries)-1 {
							speedErr = append(speedErr, math.Abs(speed-cond.speed))
							pitchErr = append(pitchErr, math.Abs(semis-cond.semitones))
						}
					}
				}
				for i, h := range outH {
					if id, off, speed, semis := q.run(ix, h); id != "" {
						fps++
						if verboseBench() && half == 0 {
							fmt.Printf("tuning-half false positive, %s, %s: %s at %.1f s named %q at %.1f s, speed %.3f, %+.2f st\n",
								q.name, cond.name, tracks[out[i].track].name, out[i].start, id, off, speed, semis)
						}
					}
				}
				fmt.Fprintf(&report, " %-22s", fmt.Sprintf("%.3f/%.3f/%s", float64(hits)/float64(len(in)), float64(fps)/float64(len(out)),
					percentile(times, 0.5).Round(10*time.Microsecond)))
			}
			// A shifted clip found at the right place but reported unshifted
			// (an identity match of a modulated repeat, say).
			unshifted := 0
			for _, e := range pitchErr {
				if cond.semitones != 0 && e > 0.2 {
					unshifted++
				}
			}
			fmt.Fprintf(&report, " %.3f, %.2f; %d\n", median(speedErr), median(pitchErr), unshifted)
		}
	}
	fmt.Print(report.String())
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkMatchWarped100h is MatchWarped's cost against 100 hours (see
// big100h) for a 10-s query: as recorded (the identity search answers),
// 5 % faster and two semitones up (the warp search runs and finds it),
// and music the index does not hold (the whole search runs and finds
// nothing). cpu-ms/op is the search's thread CPU time.
func BenchmarkMatchWarped100h(b *testing.B) {
	ix, tracks := index100h(b)
	q := fingerprint.New(fingerprint.QueryOptions)
	conds := speedConds()
	queries := []struct {
		name string
		pcm  audio.PCM
	}{
		{"identity", tracks[1].pcm.Window(30, 10)},
		{"rate+5%", ffmpegFilter(b, tracks[1].path, 30, 11, conds[3].filter).Window(0, 10)},
		{"pitch+2st", ffmpegFilter(b, tracks[1].path, 30, 11, conds[8].filter).Window(0, 10)},
		{"outside", audiotest.KeyPiece(fingerprint.SampleRate, 10, 2, false, 7)},
	}
	for _, x := range queries {
		h := q.Fingerprint(x.pcm)
		b.Run(x.name, func(b *testing.B) {
			// The search runs on one goroutine: its thread's CPU time is
			// the cost, whatever the machine's load does to wall time.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			found, cpu0 := 0, cputime.Thread()
			for b.Loop() {
				found = len(ix.MatchWarped(h, fingerprint.MatchOptions{}))
			}
			b.ReportMetric(float64(found), "found")
			b.ReportMetric(float64((cputime.Thread()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
