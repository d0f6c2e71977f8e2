package fingerprint_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/musicdetect"
)

// Music under narration (issue 16), part of BenchmarkAccuracy
// (AUDIO_BENCH_ONLY=speech runs only this part):
//
//   - narrated: 40 s of continuous espeak-ng narration with 30 s of a
//     catalog song under it from 5 s to 35 s, the music 8 or 14 dB below
//     the voice, AAC; the song must be found at the right alignment and
//     both its ends placed within ±1 s;
//   - intro timelines: silence, song A, song B whose first 10 s are
//     covered by narration that starts 2 s before B (over A's tail, music
//     8 dB below the voice), a gap, song C; pink noise 10 dB under the
//     music, AAC; every song boundary within ±1 s.
//
// Songs (in-index tracks in name order) and voices (audiotest.Voices) are
// split by audiotest.TuningHalf; every figure is given for both halves.
// AUDIO_BENCH_EXTRA_MUSIC=DIR (e.g. /usr/share/hyperrogue/music, Debian's
// hyperrogue-music: 14 decodable tracks by other composers, 12 of them at
// least 60 s) indexes that music too and adds a third pool, "fresh": its
// songs under the held-out voices – music no tuning has heard, the way a
// partner's videos carry music the team never listened to
// (AUDIO_BENCH_HALF=fresh runs it alone).
// AUDIO_BENCH_SPEECH sets the narrated videos per half and level (default
// 12), and the intro timelines per half (the same number).
// AUDIO_BENCH_LEVELS replaces the levels (comma-separated dB, e.g.
// "-10,-11,-14") and AUDIO_BENCH_HALF=tuning (or held-out) runs one half
// only: tuning looks at the tuning half alone. AUDIO_BENCH_SPEECH_SEED=k
// (k ≥ 1; default 0, the videos above) draws other videos from the same
// half's songs and voices – other songs, offsets, voice order and texts –
// so that tuning can see many more edges than the default set holds.

// speechLevels are the music levels under the voice (dB).
var speechLevels = []float64{-8, -14}

// benchLevels returns AUDIO_BENCH_LEVELS or speechLevels.
func benchLevels(tb testing.TB) []float64 {
	v := os.Getenv("AUDIO_BENCH_LEVELS")
	if v == "" {
		return speechLevels
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		l, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			tb.Fatalf("AUDIO_BENCH_LEVELS: %v", err)
		}
		out = append(out, l)
	}
	return out
}

// benchHalves returns the halves AUDIO_BENCH_HALF selects (both by default).
func benchHalves(tb testing.TB) []int {
	switch v := os.Getenv("AUDIO_BENCH_HALF"); v {
	case "":
		return []int{0, 1}
	case halfNames[0]:
		return []int{0}
	case halfNames[1]:
		return []int{1}
	default:
		tb.Fatalf("AUDIO_BENCH_HALF=%q: want %q or %q (%q: only BenchmarkAccuracy's narration report, with AUDIO_BENCH_EXTRA_MUSIC)", v, halfNames[0], halfNames[1], halfNames[2])
		return nil
	}
}

// narratedCase is one narrated video: narration by voice over narrLen
// seconds of the track from trackStart, levelDB under the voice.
type narratedCase struct {
	track, voice        int
	trackStart, levelDB float64
	seed                uint64
	// lead is the narration alone before the music (seconds; 0: narrLead).
	lead float64
}

// leadSeconds is c's lead: c.lead, or narrLead.
func (c narratedCase) leadSeconds() float64 {
	if c.lead > 0 {
		return c.lead
	}
	return narrLead
}

const (
	narrLen  = 30.0 // music under the narration
	narrTail = 5.0  // narration alone after it
)

// narrLead is the narration alone before the music: 5 s, or
// AUDIO_BENCH_SPEECH_LEAD seconds. At 5 s both cuts fall within 0.12 s of
// a 0.98-s music detection block's edge; 5.6 s puts them 0.28 and 0.32 s
// inside blocks, where edges at block resolution are off.
var narrLead = func() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("AUDIO_BENCH_SPEECH_LEAD"), 64); err == nil && v >= 2 && v <= 20 {
		return v
	}
	return defaultNarrLead
}()

const defaultNarrLead = 5.0

// halfSets splits the catalog songs (in-index, at least 60 s) and the voices
// into the two halves.
func halfSets(tracks []benchTrack) (songs, voices [2][]int) {
	for i, t := range tracks {
		if heldOut(i) || extraFrom > 0 && i >= extraFrom || t.pcm.Seconds() < 60 {
			continue
		}
		songs[halfOf(i)] = append(songs[halfOf(i)], i)
	}
	for i := range audiotest.Voices {
		voices[halfOf(i)] = append(voices[halfOf(i)], i)
	}
	return songs, voices
}

func halfOf(i int) int {
	if audiotest.TuningHalf(i) {
		return 0
	}
	return 1
}

// speechHalves are the pools the narration report runs: benchHalves, and
// the fresh pool of speechPools when there is one (AUDIO_BENCH_HALF=fresh:
// it alone).
func speechHalves(tb testing.TB) []int {
	if os.Getenv("AUDIO_BENCH_HALF") == halfNames[2] {
		if extraFrom == 0 {
			tb.Fatalf("AUDIO_BENCH_HALF=%s needs AUDIO_BENCH_EXTRA_MUSIC", halfNames[2])
		}
		return []int{2}
	}
	h := benchHalves(tb)
	if extraFrom > 0 && os.Getenv("AUDIO_BENCH_HALF") == "" {
		h = append(h, 2)
	}
	return h
}

// halfNames names the halves, and the third pool of speechPools.
var halfNames = [3]string{"tuning", "held-out", "fresh"}

// speechPools are the two halves and, with AUDIO_BENCH_EXTRA_MUSIC, a third
// pool: the extra songs (at least 60 s) under the held-out voices – music no
// tuning has heard, as partners' videos carry.
func speechPools(tracks []benchTrack) (songs, voices [3][]int) {
	s, v := halfSets(tracks)
	songs[0], songs[1], voices[0], voices[1] = s[0], s[1], v[0], v[1]
	if extraFrom > 0 {
		for i := extraFrom; i < len(tracks); i++ {
			if tracks[i].pcm.Seconds() >= 60 {
				songs[2] = append(songs[2], i)
			}
		}
		voices[2] = v[1]
	}
	return songs, voices
}

// overlay adds voice into music starting at (seconds), the voice scaled so
// that the music's RMS over the overlap is levelDB relative to the voice's.
func overlay(music, voice audio.PCM, at, levelDB float64) audio.PCM {
	out := audiotest.Concat(music)
	m := music.Window(at, voice.Seconds()).RMS()
	g := m / math.Max(voice.RMS(), 1e-9) * math.Pow(10, -levelDB/20)
	a := int(at * float64(music.Rate))
	for i, v := range voice.Samples {
		if a+i < len(out.Samples) {
			out.Samples[a+i] += float32(g) * v
		}
	}
	return out
}

// relevel scales p to a 0.99 peak when it clips, as a produced video is.
func relevel(p audio.PCM) audio.PCM {
	peak := float32(0)
	for _, v := range p.Samples {
		peak = max(peak, v, -v)
	}
	if peak > 0.99 {
		audiotest.Scale(p, 0.99/float64(peak))
	}
	return p
}

func narration(tb testing.TB, voice int, seconds float64, seed uint64) audio.PCM {
	p, err := audiotest.Narration(context.Background(), audiotest.Voices[voice], seconds, seed, audio.DefaultSampleRate)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// renderNarrated makes the narrated video of c: music (silence around it)
// with the narration over the whole, AAC.
func renderNarrated(tb testing.TB, tracks []benchTrack, c narratedCase) audio.PCM {
	p, _ := renderNarratedSeg(tb, tracks, c)
	return p
}

// maskedDB: under a voice, a song's edge can fall in a passage so much
// softer than the voice that no listener hears it there – a soft intro, a
// rest, the voice's loudest syllables. A 0.5-s block of the song more than
// this far under the voice in that block counts as masked – 5 dB beyond the
// hardest condition of the issue (music 14 dB under the voice), as
// inaudibleDB is for noise – and a boundary inside such an edge may be
// placed anywhere in it (the "audible" figure beside the nominal one).
// Masked passages between heard ones still count as the song.
const maskedDB = 19

// renderNarratedSeg is renderNarrated with the song's segment, its audible
// span (see maskedDB) set.
func renderNarratedSeg(tb testing.TB, tracks []benchTrack, c narratedCase) (audio.PCM, segment) {
	rate := audio.DefaultSampleRate
	name := fmt.Sprintf("narrated-%s-%.1f-%s-%g-%d", tracks[c.track].name, c.trackStart, audiotest.Voices[c.voice], c.levelDB, c.seed)
	lead := c.leadSeconds()
	if lead != defaultNarrLead {
		// The cached video must be the one with this lead: without it in
		// the name, every AUDIO_BENCH_SPEECH_LEAD run read the 5-s videos
		// back and scored them against cuts 0.6 s later.
		name += fmt.Sprintf("-lead%g", lead)
	}
	music := audiotest.Concat(audiotest.Silence(rate, lead), tracks[c.track].pcm.Window(c.trackStart, narrLen), audiotest.Silence(rate, narrTail))
	voice := narration(tb, c.voice, lead+narrLen+narrTail, c.seed)
	// The level is set against the music where it plays.
	g := music.Window(lead, narrLen).RMS() / math.Max(voice.Window(lead, narrLen).RMS(), 1e-9) * math.Pow(10, -c.levelDB/20)
	seg := segment{track: c.track, trackStart: c.trackStart, start: lead, end: lead + narrLen, inIndex: true}
	seg.audibleStart, seg.audibleEnd = audibleUnder(music, voice, g, lead, narrLen)
	for i, v := range voice.Samples {
		if i < len(music.Samples) {
			music.Samples[i] += float32(g) * v
		}
	}
	return aacRoundTripAt(tb, relevel(music), name, rate), seg
}

// audibleUnder returns the first and last 0.5-s blocks of music's
// [at, at+length) not masked by voice (scaled by g; see maskedDB).
func audibleUnder(music, voice audio.PCM, g, at, length float64) (float64, float64) {
	const block = 0.5
	n := int(length / block)
	heard := func(i int) bool {
		t := at + float64(i)*block
		m := music.Window(t, block).RMS()
		return m > 0 && m >= g*voice.Window(t, block).RMS()*math.Pow(10, -maskedDB/20.0)
	}
	first, last := at, at+length
	for i := range n {
		if heard(i) {
			first = at + float64(i)*block
			break
		}
	}
	for i := n - 1; i >= 0; i-- {
		if heard(i) {
			last = at + float64(i+1)*block
			break
		}
	}
	return first, max(first, last)
}

type speechTally struct {
	videos, found, bounds, audible, boundsTotal, spurious int
	// as the API reports the timeline (scoreReported)
	repFound, repBounds, repSpurious int
	// masked: the segments' audible spans were measured (narrated videos;
	// the intro timelines' are their cuts, so no audible figure is shown)
	masked                     bool
	detected, speechMusic      float64 // seconds called music inside / outside the song
	songSeconds, speechSeconds float64
	spent                      time.Duration
	seconds                    float64
}

func (s *speechTally) add(tracks []benchTrack, segs []segment, st []fingerprint.Stretch) {
	rs, rsp := scoreReported(tracks, segs, st)
	s.repSpurious += len(rsp)
	for _, b := range rs {
		if b.found {
			s.repFound++
			for _, e := range b.err {
				if math.Abs(e) <= 1 {
					s.repBounds++
				}
			}
		}
	}
	bs, sp := scoreTimeline(tracks, segs, st)
	s.spurious += len(sp)
	for _, b := range bs {
		s.videos++
		s.boundsTotal += 2
		if !b.found {
			continue
		}
		s.found++
		for _, e := range b.err {
			if math.Abs(e) <= 1 {
				s.bounds++
			}
		}
		for _, e := range b.fair {
			if e <= 1 {
				s.audible++
			}
		}
	}
}

func (s *speechTally) line(name string) string {
	audible := ""
	if s.masked {
		audible = fmt.Sprintf(" (audible %5.1f %%)", 100*float64(s.audible)/float64(max(s.boundsTotal, 1)))
	}
	return fmt.Sprintf("  %-28s recall %5.3f (%d/%d)  bounds ±1 s %5.1f %%%s  spurious %d  music detected under voice %4.2f, over voice alone %4.2f  %.0fx real time\n"+
		"  %-28s as the API reports it (touching stretches of a track joined, any alignment): recall %5.3f, bounds ±1 s %5.1f %%, spurious %d\n",
		name, float64(s.found)/float64(max(s.videos, 1)), s.found, s.videos, 100*float64(s.bounds)/float64(max(s.boundsTotal, 1)), audible,
		s.spurious, s.detected/math.Max(s.songSeconds, 1e-9), s.speechMusic/math.Max(s.speechSeconds, 1e-9), s.seconds/math.Max(s.spent.Seconds(), 1e-9),
		"", float64(s.repFound)/float64(max(s.videos, 1)), 100*float64(s.repBounds)/float64(max(s.boundsTotal, 1)), s.repSpurious)
}

// musicShare adds to in and out the seconds of music ranges inside and
// outside [a, b).
func musicShare(rs []audio.Range, a, b float64) (in, out float64) {
	for _, r := range rs {
		s, e := float64(r.StartMs)/1000, float64(r.EndMs)/1000
		ov := max(0, min(e, b)-max(s, a))
		in += ov
		out += e - s - ov
	}
	return in, out
}

func speechReport(tb testing.TB, tracks []benchTrack, ix *fingerprint.Index, report *strings.Builder) {
	audiotest.RequireEspeak(tb)
	n := envInt("AUDIO_BENCH_SPEECH", 12)
	seed := uint64(envInt("AUDIO_BENCH_SPEECH_SEED", 0))
	songs, voices := speechPools(tracks)
	qfp := fingerprint.New(fingerprint.QueryOptions)
	fmt.Fprintf(report, "music under narration (espeak-ng; songs %d/%d/%d, voices %d/%d/%d per pool), %d videos per pool and level:\n",
		len(songs[0]), len(songs[1]), len(songs[2]), len(voices[0]), len(voices[1]), len(voices[2]), n)
	for _, level := range benchLevels(tb) {
		for _, h := range speechHalves(tb) {
			r := rand.New(rand.NewPCG(uint64(h+1)+seed<<16, uint64(-level)))
			var cases []narratedCase
			for k := range n {
				ti := songs[h][r.IntN(len(songs[h]))]
				start := 10 + math.Round(r.Float64()*(tracks[ti].pcm.Seconds()-narrLen-20)*10)/10
				cases = append(cases, narratedCase{track: ti, voice: voices[h][(k+int(seed))%len(voices[h])], trackStart: start, levelDB: level,
					seed: uint64(1000*h+k+1) + 100_000*seed})
			}
			pcms := make([]audio.PCM, len(cases))
			segs := make([]segment, len(cases))
			parallel(len(cases), func(i int) { pcms[i], segs[i] = renderNarratedSeg(tb, tracks, cases[i]) })
			t := speechTally{masked: true}
			for i, c := range cases {
				t0 := time.Now()
				music := musicdetect.Detect(pcms[i], musicdetect.Options{})
				st := guided(tb, tracks, pcms[i], ix.Timeline(qfp.Fingerprint(pcms[i]), fingerprint.TimelineOptions{Music: music}))
				t.spent += time.Since(t0)
				t.seconds += pcms[i].Seconds()
				seg := segs[i]
				t.add(tracks, []segment{seg}, st)
				in, out := musicShare(music, narrLead, narrLead+narrLen)
				t.detected += in
				t.speechMusic += out
				t.songSeconds += narrLen
				t.speechSeconds += narrLead + narrTail
				if verboseBench() {
					fmt.Fprintf(report, "    %s@%.1f %s %+g dB seed %d: %s%v (music %v)\n", tracks[c.track].name, c.trackStart, audiotest.Voices[c.voice], level, c.seed,
						edgeErrors(tracks, []segment{seg}, st), st, music)
				}
			}
			report.WriteString(t.line(fmt.Sprintf("music %+g dB, %s", level, halfNames[h])))
		}
	}
	for _, h := range speechHalves(tb) {
		var t speechTally
		for v := range n {
			pcm, segs := introVideo(tb, tracks, songs[h], voices[h], uint64(100*h+v+1)+100_000*seed)
			t0 := time.Now()
			music := musicdetect.Detect(pcm, musicdetect.Options{})
			st := guided(tb, tracks, pcm, ix.Timeline(qfp.Fingerprint(pcm), fingerprint.TimelineOptions{Music: music}))
			t.spent += time.Since(t0)
			t.seconds += pcm.Seconds()
			t.add(tracks, segs, st)
			if verboseBench() {
				fmt.Fprintf(report, "    intro video %d: %s%v (music %v)\n      truth %+v\n", v, edgeErrors(tracks, segs, st), st, music, segs)
			}
		}
		report.WriteString(t.line(fmt.Sprintf("intro timelines, %s", halfNames[h])))
	}
}

// introVideo lays out silence, song A, song B with narration over its
// first 10 s (from 2 s before it, music 8 dB below the voice), a 2-s gap,
// song C; pink noise 10 dB under the whole, AAC.
func introVideo(tb testing.TB, tracks []benchTrack, songs, voices []int, seed uint64) (audio.PCM, []segment) {
	r := rand.New(rand.NewPCG(seed, 0x1e70))
	perm := r.Perm(len(songs))
	a, b, c := songs[perm[0]], songs[perm[1]], songs[perm[2]]
	voice := voices[r.IntN(len(voices))]
	rate := audio.DefaultSampleRate
	var parts []audio.PCM
	var segs []segment
	at := 0.0
	add := func(track int, length float64) {
		s := segment{track: track, start: at, inIndex: track >= 0}
		if track < 0 {
			parts = append(parts, audiotest.Silence(rate, length))
		} else {
			s.trackStart = 10 + math.Round(r.Float64()*(tracks[track].pcm.Seconds()-length-20)*10)/10
			parts = append(parts, tracks[track].pcm.Window(s.trackStart, length))
		}
		at += parts[len(parts)-1].Seconds()
		s.end = at
		s.audibleStart, s.audibleEnd = s.start, s.end
		segs = append(segs, s)
	}
	add(-1, 1+2*r.Float64())
	add(a, 20+20*r.Float64())
	bStart := at
	add(b, 25+15*r.Float64())
	add(-1, 2)
	add(c, 20)
	video := audiotest.Concat(parts...)
	noise := audiotest.PinkNoise(rate, video.Seconds()+1, 0.1, seed)
	video = audiotest.MixSNR(video, noise, 10)
	voiceAt := bStart - 2
	video = overlay(video, narration(tb, voice, 12, seed), voiceAt, -8)
	name := fmt.Sprintf("intro-%s-%s-%s-%s-%d", tracks[a].name, tracks[b].name, tracks[c].name, audiotest.Voices[voice], seed)
	return aacRoundTripAt(tb, relevel(video), name, rate), segs
}

// edgeErrors describes the song edges off by more than 1 s (start and end
// minus the cut, seconds) and the songs missed, for AUDIO_BENCH_VERBOSE.
func edgeErrors(tracks []benchTrack, segs []segment, st []fingerprint.Stretch) string {
	var b strings.Builder
	bs, _ := scoreTimeline(tracks, segs, st)
	for _, x := range bs {
		switch {
		case !x.found:
			fmt.Fprintf(&b, "MISSED %s; ", tracks[x.seg.track].name)
		case math.Abs(x.err[0]) > 1 || math.Abs(x.err[1]) > 1:
			fmt.Fprintf(&b, "OFF %s %.1f–%.1f start %+.2f end %+.2f; ", tracks[x.seg.track].name, x.seg.start, x.seg.end, x.err[0], x.err[1])
		}
	}
	return b.String()
}

func verboseBench() bool { return os.Getenv("AUDIO_BENCH_VERBOSE") == "1" }
