package fingerprint_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
)

// segment is one part of a generated video; track < 0 is silence.
type segment struct {
	track      int
	trackStart float64
	start, end float64 // in the video
	inIndex    bool
}

// makeVideo lays out: silence, song A, a silent gap, song B, a cut to
// elsewhere in B, an out-of-index song, A again from another point – then
// adds pink noise at 10 dB and round-trips the whole through AAC.
func makeVideo(tb testing.TB, tracks []benchTrack, seed uint64) (audio.PCM, []segment) {
	r := rand.New(rand.NewPCG(seed, 77))
	var in, out []int
	for i, t := range tracks {
		if t.pcm.Seconds() < 70 {
			continue
		}
		if heldOut(i) {
			out = append(out, i)
		} else {
			in = append(in, i)
		}
	}
	a, b := in[r.IntN(len(in))], in[r.IntN(len(in))]
	for b == a {
		b = in[r.IntN(len(in))]
	}
	x := out[r.IntN(len(out))]
	rate := audio.DefaultSampleRate
	var parts []audio.PCM
	var segs []segment
	at := 0.0
	add := func(track int, length float64) {
		s := segment{track: track, start: at, end: at + length, inIndex: track >= 0 && !heldOut(track)}
		if track < 0 {
			parts = append(parts, audiotest.Silence(rate, length))
		} else {
			s.trackStart = math.Round(r.Float64()*(tracks[track].pcm.Seconds()-length-1)*10) / 10
			parts = append(parts, tracks[track].pcm.Window(s.trackStart, length))
		}
		segs = append(segs, s)
		at += parts[len(parts)-1].Seconds()
	}
	add(-1, 1+3*r.Float64())
	add(a, 20+25*r.Float64())
	add(-1, 2+2*r.Float64())
	add(b, 20+20*r.Float64())
	add(b, 15+15*r.Float64())
	add(x, 15)
	add(a, 20)
	video := audiotest.Concat(parts...)
	noise := audiotest.PinkNoise(rate, video.Seconds()+1, 0.1, seed)
	mixed := audiotest.MixSNR(video, noise, 10)
	return aacRoundTrip(tb, mixed, fmt.Sprintf("video-%d", seed)), segs
}

func aacRoundTrip(tb testing.TB, p audio.PCM, name string) audio.PCM {
	dir := cacheDir(tb)
	cache := filepath.Join(dir, name+".f32")
	if s, ok := readF32(cache); ok {
		return audio.PCM{Samples: s, Rate: p.Rate}
	}
	wav, mp4 := filepath.Join(dir, name+".wav"), filepath.Join(dir, name+".mp4")
	defer os.Remove(wav)
	defer os.Remove(mp4)
	f, err := os.Create(wav)
	if err != nil {
		tb.Fatal(err)
	}
	if err := decode.WriteWAV(f, p); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	if out, err := exec.Command("ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", wav, "-ar", "44100", "-c:a", "aac", "-b:a", "128k", mp4).CombinedOutput(); err != nil {
		tb.Fatalf("aac: %v %s", err, out)
	}
	back, err := decode.Decoder{SampleRate: p.Rate}.DecodeFile(context.Background(), mp4)
	if err != nil {
		tb.Fatal(err)
	}
	writeF32(cache, back.Samples)
	return back
}

// timelineReport checks every boundary of every in-index segment against
// the stretch that should explain it (same track, alignment within 1 s).
func timelineReport(tb testing.TB, tracks []benchTrack, ix *fingerprint.Index, videos int, report *strings.Builder) {
	var errs []float64
	missing, spurious, total := 0, 0, 0
	var spent time.Duration
	var seconds float64
	qfp := fingerprint.New(fingerprint.QueryOptions)
	for v := range videos {
		pcm, segs := makeVideo(tb, tracks, uint64(v+1))
		t0 := time.Now()
		st := ix.Timeline(qfp.Fingerprint(pcm), fingerprint.TimelineOptions{})
		spent += time.Since(t0)
		seconds += pcm.Seconds()
		used := make([]bool, len(st))
		for _, s := range segs {
			if !s.inIndex {
				continue
			}
			total += 2
			best := -1
			for i, x := range st {
				// The stretch's alignment: track time minus video time.
				align := float64(x.TrackOffsetMs-x.StartMs) / 1000
				if x.TrackID == tracks[s.track].name && math.Abs(align-(s.trackStart-s.start)) < 1 &&
					float64(x.EndMs)/1000 > s.start && float64(x.StartMs)/1000 < s.end {
					if best < 0 || x.EndMs-x.StartMs > st[best].EndMs-st[best].StartMs {
						best = i
					}
				}
			}
			if best < 0 {
				missing++
				errs = append(errs, math.Inf(1), math.Inf(1))
				continue
			}
			used[best] = true
			e1, e2 := float64(st[best].StartMs)/1000-s.start, float64(st[best].EndMs)/1000-s.end
			errs = append(errs, math.Abs(e1), math.Abs(e2))
			if os.Getenv("AUDIO_BENCH_VERBOSE") == "1" && (math.Abs(e1) > 1 || math.Abs(e2) > 1) {
				fmt.Fprintf(report, "  video %d: segment %s %.1f–%.1f: start %+.2f end %+.2f\n", v+1, tracks[s.track].name, s.start, s.end, e1, e2)
			}
		}
		for i, x := range st {
			if !used[i] && x.TrackID != "" {
				spurious++
				if os.Getenv("AUDIO_BENCH_VERBOSE") == "1" {
					fmt.Fprintf(report, "  video %d: spurious %+v; truth %+v\n", v+1, x, segs)
				}
			}
		}
	}
	within := 0
	for _, e := range errs {
		if e <= 1 {
			within++
		}
	}
	slices.Sort(errs)
	fmt.Fprintf(report, "timelines: %d videos (%.0f s, pink noise 10 dB, AAC), %d song boundaries: %.1f %% within ±1 s, median error %.2f s, p90 %.2f s; %d segments missed, %d spurious stretches; %.0fx real time\n",
		videos, seconds, total, 100*float64(within)/float64(len(errs)), errs[len(errs)/2], errs[len(errs)*9/10], missing, spurious, seconds/spent.Seconds())
}
