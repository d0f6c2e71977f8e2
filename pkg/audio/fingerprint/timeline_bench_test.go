package fingerprint_test

import (
	"cmp"
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
	// audibleStart and audibleEnd bound where the song is audible in the
	// mix (see inaudibleDB); start ≤ audibleStart ≤ audibleEnd ≤ end.
	audibleStart, audibleEnd float64
}

// inaudibleDB: a track window can begin or end in a near-silent part of
// the track (a soft intro, a fade, the silence after the last chord), so the
// nominal cut is not always where the song starts or stops being heard. A
// 0.5-s block of the song more than this far under the added noise is
// counted as inaudible – 5 dB beyond the hardest condition of the issue
// (−5 dB SNR) – and a boundary inside such an edge may be placed anywhere
// in it. Quiet passages between audible ones still count as the song.
const inaudibleDB = 10

// audibleSpan returns the offsets (seconds) of the first and last 0.5-s
// blocks of p whose RMS is at least floor.
func audibleSpan(p audio.PCM, floor float64) (float64, float64) {
	const block = 0.5
	n := int(p.Seconds() / block)
	first, last := 0.0, p.Seconds()
	for i := range n {
		if p.Window(float64(i)*block, block).RMS() >= floor {
			first = float64(i) * block
			break
		}
	}
	for i := range n {
		at := p.Seconds() - float64(i+1)*block
		if p.Window(at, block).RMS() >= floor {
			last = at + block
			break
		}
	}
	return first, max(first, last)
}

// part is one piece of a video layout: length seconds of a track from
// trackStart, or silence when track < 0.
type part struct {
	track              int
	trackStart, length float64
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
	var layout []part
	add := func(track int, length float64) {
		p := part{track: track, length: length}
		if track >= 0 {
			p.trackStart = math.Round(r.Float64()*(tracks[track].pcm.Seconds()-length-1)*10) / 10
		}
		layout = append(layout, p)
	}
	add(-1, 1+3*r.Float64())
	add(a, 20+25*r.Float64())
	add(-1, 2+2*r.Float64())
	add(b, 20+20*r.Float64())
	add(b, 15+15*r.Float64())
	add(x, 15)
	add(a, 20)
	return renderVideo(tb, tracks, layout, func(i int) bool { return !heldOut(i) }, seed, fmt.Sprintf("video-%d", seed))
}

// renderVideo plays the layout, adds pink noise (seed) at 10 dB under the
// whole video's RMS and round-trips it through AAC, cached under name.
func renderVideo(tb testing.TB, tracks []benchTrack, layout []part, inIndex func(int) bool, seed uint64, name string) (audio.PCM, []segment) {
	rate := audio.DefaultSampleRate
	var parts []audio.PCM
	var segs []segment
	at := 0.0
	for _, l := range layout {
		s := segment{track: l.track, trackStart: l.trackStart, start: at, inIndex: l.track >= 0 && inIndex(l.track)}
		if l.track < 0 {
			parts = append(parts, audiotest.Silence(rate, l.length))
		} else {
			parts = append(parts, tracks[l.track].pcm.Window(l.trackStart, l.length))
		}
		at += parts[len(parts)-1].Seconds()
		s.end = at
		segs = append(segs, s)
	}
	video := audiotest.Concat(parts...)
	// MixSNR scales the noise to the video's RMS less 10 dB.
	floor := video.RMS() * math.Pow(10, -(10+inaudibleDB)/20.0)
	for i := range segs {
		a, b := audibleSpan(parts[i], floor)
		segs[i].audibleStart, segs[i].audibleEnd = segs[i].start+a, segs[i].start+b
	}
	noise := audiotest.PinkNoise(rate, video.Seconds()+1, 0.1, seed)
	mixed := audiotest.MixSNR(video, noise, 10)
	return aacRoundTrip(tb, mixed, name), segs
}

// aacRoundTrip encodes p to AAC 128k in an MP4 and decodes it back at
// p's rate, as a re-encoded video would carry it; cached by name.
func aacRoundTrip(tb testing.TB, p audio.PCM, name string) audio.PCM {
	return aacRoundTripAt(tb, p, name, p.Rate)
}

// aacRoundTripAt is aacRoundTrip decoding back at rate.
func aacRoundTripAt(tb testing.TB, p audio.PCM, name string, rate int) audio.PCM {
	dir := cacheDir(tb)
	cache := filepath.Join(dir, name+".f32")
	if s, ok := readF32(cache); ok {
		return audio.PCM{Samples: s, Rate: rate}
	}
	wav, mp4 := filepath.Join(dir, name+".wav"), filepath.Join(dir, name+".mp4")
	defer os.Remove(wav)
	defer os.Remove(mp4)
	if err := os.WriteFile(wav, decode.WAVBytes(p), 0o644); err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command("ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", wav, "-ar", "44100", "-c:a", "aac", "-b:a", "128k", mp4).CombinedOutput(); err != nil {
		tb.Fatalf("aac: %v %s", err, out)
	}
	back, err := decode.Decoder{SampleRate: rate}.DecodeFile(context.Background(), mp4)
	if err != nil {
		tb.Fatal(err)
	}
	if err := writeF32(cache, back.Samples); err != nil {
		tb.Fatal(err)
	}
	return back
}

// boundary is the outcome for one in-index segment of a video.
type boundary struct {
	seg   segment
	found bool
	got   fingerprint.Stretch
	err   [2]float64 // start and end minus the nominal cut (found only)
	fair  [2]float64 // distance outside [cut, audible edge] (+Inf if not found)
}

// scoreTimeline matches each in-index segment with the stretch that should
// explain it – same track, alignment within 1 s, overlapping it the most
// (a jump of under a second inside a song leaves two stretches within 1 s
// of either alignment) – and reports the stretches with a track that
// explain none.
func scoreTimeline(tracks []benchTrack, segs []segment, st []fingerprint.Stretch) (out []boundary, spurious []fingerprint.Stretch) {
	return scoreAligned(tracks, segs, st, 1)
}

// scoreReported scores st as the recognition API reports it: touching
// stretches of one track are one segment (recognition's mergeTouching),
// and a segment names its track whatever the alignment – a loop's repeat
// is the same music, which a listener cannot tell from the one played.
func scoreReported(tracks []benchTrack, segs []segment, st []fingerprint.Stretch) (out []boundary, spurious []fingerprint.Stretch) {
	named := slices.Clone(st)
	slices.SortFunc(named, func(a, b fingerprint.Stretch) int { return cmp.Compare(a.StartMs, b.StartMs) })
	var merged []fingerprint.Stretch
	for _, x := range named {
		if n := len(merged); n > 0 && x.TrackID != "" && merged[n-1].TrackID == x.TrackID && merged[n-1].EndMs >= x.StartMs {
			merged[n-1].EndMs = max(merged[n-1].EndMs, x.EndMs)
			continue
		}
		merged = append(merged, x)
	}
	return scoreAligned(tracks, segs, merged, math.Inf(1))
}

// scoreAligned is scoreTimeline with the alignment a stretch may be off
// by (seconds).
func scoreAligned(tracks []benchTrack, segs []segment, st []fingerprint.Stretch, alignTol float64) (out []boundary, spurious []fingerprint.Stretch) {
	used := make([]bool, len(st))
	for _, s := range segs {
		if !s.inIndex {
			continue
		}
		best, most := -1, 0.0
		for i, x := range st {
			// The stretch's alignment: track time minus video time.
			align := float64(x.TrackOffsetMs-x.StartMs) / 1000
			overlap := min(float64(x.EndMs)/1000, s.end) - max(float64(x.StartMs)/1000, s.start)
			if x.TrackID == tracks[s.track].name && math.Abs(align-(s.trackStart-s.start)) < alignTol && overlap > most {
				best, most = i, overlap
			}
		}
		b := boundary{seg: s, fair: [2]float64{math.Inf(1), math.Inf(1)}}
		if best >= 0 {
			used[best] = true
			x := st[best]
			got0, got1 := float64(x.StartMs)/1000, float64(x.EndMs)/1000
			b.found, b.got = true, x
			b.err = [2]float64{got0 - s.start, got1 - s.end}
			b.fair = [2]float64{outside(got0, s.start, s.audibleStart), outside(got1, s.audibleEnd, s.end)}
		}
		out = append(out, b)
	}
	for i, x := range st {
		if !used[i] && x.TrackID != "" {
			spurious = append(spurious, x)
		}
	}
	return out, spurious
}

// timelineReport checks every boundary of every in-index segment against
// the stretch that should explain it.
func timelineReport(tb testing.TB, tracks []benchTrack, ix *fingerprint.Index, videos int, report *strings.Builder) {
	var errs, fair []float64
	missing, spurious, total := 0, 0, 0
	var spent time.Duration
	var seconds float64
	verbose := os.Getenv("AUDIO_BENCH_VERBOSE") == "1"
	qfp := fingerprint.New(fingerprint.QueryOptions)
	for v := range videos {
		pcm, segs := makeVideo(tb, tracks, uint64(v+1))
		t0 := time.Now()
		st := guided(tb, tracks, pcm, ix.Timeline(qfp.Fingerprint(pcm), fingerprint.TimelineOptions{}))
		spent += time.Since(t0)
		seconds += pcm.Seconds()
		bs, sp := scoreTimeline(tracks, segs, st)
		for _, b := range bs {
			total += 2
			fair = append(fair, b.fair[:]...)
			if !b.found {
				missing++
				errs = append(errs, math.Inf(1), math.Inf(1))
				continue
			}
			e1, e2 := b.err[0], b.err[1]
			errs = append(errs, math.Abs(e1), math.Abs(e2))
			if verbose && (math.Abs(e1) > 1 || math.Abs(e2) > 1) {
				s := b.seg
				fmt.Fprintf(report, "  video %d: segment %s %.1f–%.1f (audible %.1f–%.1f): start %+.2f end %+.2f\n",
					v+1, tracks[s.track].name, s.start, s.end, s.audibleStart, s.audibleEnd, e1, e2)
			}
		}
		spurious += len(sp)
		for _, x := range sp {
			if verbose {
				fmt.Fprintf(report, "  video %d: spurious %s %.1f–%.1f (score %d); truth %+v\n", v+1, x.TrackID, float64(x.StartMs)/1000, float64(x.EndMs)/1000, x.Score, segs)
			}
		}
	}
	slices.Sort(errs)
	fmt.Fprintf(report, "timelines: %d videos (%.0f s, pink noise 10 dB, AAC), %d song boundaries: %.1f %% within ±1 s of the cut (%.1f %% counting an edge where the song is >%d dB under the noise as anywhere in it), median error %.2f s, p90 %.2f s; %d segments missed, %d spurious stretches; %.0fx real time\n",
		videos, seconds, total, withinPct(errs, 1), withinPct(fair, 1), inaudibleDB, errs[len(errs)/2], errs[len(errs)*9/10], missing, spurious, seconds/spent.Seconds())
}

// outside is how far x lies outside [lo, hi].
func outside(x, lo, hi float64) float64 { return max(0, lo-x, x-hi) }

func withinPct(errs []float64, limit float64) float64 {
	n := 0
	for _, e := range errs {
		if e <= limit {
			n++
		}
	}
	return 100 * float64(n) / float64(len(errs))
}
