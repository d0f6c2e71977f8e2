package fingerprint

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
)

// evidenceRun appends n frames where each frame has evidence with
// probability p (two aligned hashes, weight 1).
func evidenceRun(ev []float32, r *rand.Rand, n int, p float64) []float32 {
	for range n {
		var e float32
		if r.Float64() < p {
			e = 1
		}
		ev = append(ev, e)
	}
	return ev
}

// TestBestSpanBoundaries: the span runs from the first to the last frame
// of the play-through, through a quiet passage where matches thin out, but
// not across a silent gap to a burst of matches beyond it (a shared phrase
// or chance).
func TestBestSpanBoundaries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ev []float32
	ev = evidenceRun(ev, r, 80, 0.02) // chance
	ev = append(ev, 1)                // the song starts at frame 80
	ev = evidenceRun(ev, r, 300, 0.5)
	ev = evidenceRun(ev, r, 90, 0.1) // a quiet passage under noise, below p0
	ev = evidenceRun(ev, r, 300, 0.5)
	ev = append(ev, 1) // the song's last aligned frame, 771
	ev = evidenceRun(ev, r, 100, 0)
	ev = evidenceRun(ev, r, 30, 0.5) // a shared phrase after a 2.3-s gap
	ev = evidenceRun(ev, r, 80, 0.02)
	// p0 as refine sets it: a quarter of the way from chance to the body.
	first, last, gain := bestSpan(ev, 0.02+0.25*(0.5-0.02))
	if first != 80 || last != 771 || gain <= 0 {
		t.Errorf("span %d–%d (gain %.1f), want 80–771", first, last, gain)
	}
}

// TestChangePoint: a cut goes where one alignment's evidence gives way to
// the other's, and in the middle of a stretch that neither explains.
func TestChangePoint(t *testing.T) {
	a := []float32{1, 0, 1, 1, 0.35, 0, 0, 0, 0, 0}
	b := []float32{0, 0, 0, 0, 0, 1, 1, 0, 1, 1}
	if k := changePoint(a, b); k != 5 {
		t.Errorf("cut at %d, want 5", k)
	}
	a = []float32{1, 1, 0, 0, 0, 0, 0, 0}
	b = []float32{0, 0, 0, 0, 0, 0, 1, 1}
	if k := changePoint(a, b); k != 4 {
		t.Errorf("cut at %d, want 4 (middle of 2–6)", k)
	}
}

// TestDropSlivers: a stretch under 3 s next to a longer one is a piece of
// its neighbour's edge and goes; one standing alone, or as long, stays.
func TestDropSlivers(t *testing.T) {
	in := []Stretch{
		{StartMs: 0, EndMs: 20_000, TrackID: "a"},
		{StartMs: 20_000, EndMs: 22_500, TrackID: "b"}, // sliver after a's end
		{StartMs: 22_500, EndMs: 50_000, TrackID: "c"},
		{StartMs: 60_000, EndMs: 62_500, TrackID: "d"}, // short, but alone
		{StartMs: 70_000, EndMs: 80_000, TrackID: "e"},
		{StartMs: 80_500, EndMs: 83_500, TrackID: "f"}, // 3 s: not a sliver
	}
	got := dropSlivers(in)
	var ids []string
	for _, s := range got {
		ids = append(ids, s.TrackID)
	}
	if want := []string{"a", "c", "d", "e", "f"}; !slices.Equal(ids, want) {
		t.Fatalf("kept %v, want %v", ids, want)
	}
}

// TestNoUnexplainedSliver: music no track explains is reported only when
// it lasts at least 3 s; a shorter piece is a gap inside a song.
func TestNoUnexplainedSliver(t *testing.T) {
	ix := NewBuilder().Build()
	music := []audio.Range{{StartMs: 1_000, EndMs: 3_800}, {StartMs: 10_000, EndMs: 14_000}}
	got := ix.Timeline(nil, TimelineOptions{Music: music})
	if len(got) != 1 || got[0].StartMs != 10_000 || got[0].EndMs != 14_000 || got[0].TrackID != "" {
		t.Fatalf("got %+v, want one unexplained stretch 10–14 s", got)
	}
}

// TestMusicRangesFindSparseSong: a song that keeps one aligned hash every
// 1.4 s (a song far under a voice) scores under the threshold in every
// 6-s and 24-s window, but over the 30 s music detection marks as music
// it beats every other track: given the range, the timeline names it
// there; without ranges, nothing.
func TestMusicRangesFindSparseSong(t *testing.T) {
	const perFrame = 3
	frames := uint32(math.Round(120 / FrameSeconds))
	ix := syntheticIndex(t, 120, perFrame, "song", "other")
	const from, to, trackAt = 5.0, 35.0, 50.0 // query seconds of the music; the track's time at its start
	step := 1.4
	var query []Hash
	r := rand.New(rand.NewPCG(3, 4))
	for q := 0.0; q < 40; q += FrameSeconds {
		f := uint32(math.Round(q / FrameSeconds))
		if r.IntN(4) == 0 { // the voice's own peaks: keys no track holds
			query = append(query, Hash{Key: 1<<30 + uint32(r.IntN(1<<20)), Time: f})
		}
	}
	for q := from; q < to; q += step {
		tf := uint32(math.Round((trackAt + q - from) / FrameSeconds))
		query = append(query, Hash{Key: tf * perFrame, Time: uint32(math.Round(q / FrameSeconds))})
	}
	// A few chance hits on the other track, at scattered alignments.
	for i := range 6 {
		query = append(query, Hash{Key: (frames+uint32(r.IntN(int(frames))))*perFrame + 1, Time: uint32(math.Round(float64(5+5*i) / FrameSeconds))})
	}
	slices.SortFunc(query, func(a, b Hash) int { return int(a.Time) - int(b.Time) })
	if st := ix.Timeline(query, TimelineOptions{}); slices.ContainsFunc(st, func(s Stretch) bool { return s.TrackID != "" }) {
		t.Fatalf("without music ranges the windows named a track: %+v", st)
	}
	st := ix.Timeline(query, TimelineOptions{Music: []audio.Range{{StartMs: ms(from), EndMs: ms(to)}}})
	var named []Stretch
	for _, s := range st {
		if s.TrackID != "" {
			named = append(named, s)
		}
	}
	if len(named) != 1 || named[0].TrackID != "song" || math.Abs(float64(named[0].StartMs)/1000-from) > 1.5 ||
		math.Abs(float64(named[0].EndMs)/1000-to) > 1.5 || math.Abs(float64(named[0].TrackOffsetMs-named[0].StartMs)/1000-(trackAt-from)) > 0.1 {
		t.Fatalf("with the range: %+v", st)
	}
}

// TestTrimLoneEnds: evidence beyond a gap longer than edgeGapSeconds that
// does not add minEdgeGain on its own is not part of a span (the case
// found: three single hits 3.4 s past a narrated song's end); a cluster
// that does stays, as does sparse evidence with shorter gaps.
func TestTrimLoneEnds(t *testing.T) {
	at := func(s float64) int { return int(math.Round(s / FrameSeconds)) }
	const p = 0.0107
	body := func() []float32 {
		ev := make([]float32, at(45))
		for s := 10.0; s <= 35; s += 0.5 {
			ev[at(s)] = 1
		}
		return ev
	}
	cases := []struct {
		name        string
		add         map[float64]float32
		first, last float64
	}{
		{"body alone", nil, 10, 35},
		{"three single hits past a 3.4-s gap", map[float64]float32{38.4: singleWeight, 38.6: singleWeight, 39.0: singleWeight}, 10, 35},
		{"a lone hit before the body", map[float64]float32{6.0: 1}, 10, 35},
		{"a cluster past the gap", map[float64]float32{38.4: 1, 38.6: 1}, 10, 38.6},
		{"hits within the gap limit", map[float64]float32{37.0: 1, 39.0: 1}, 10, 39},
	}
	for _, c := range cases {
		ev := body()
		for s, w := range c.add {
			ev[at(s)] = w
		}
		first, last, _ := bestSpan(ev, p)
		if c.name == "body alone" && (first != at(10) || last != at(35)) {
			t.Fatalf("bestSpan %d–%d", first, last)
		}
		first, last = trimLoneEnds(ev, first, last, p, func(int, int) bool { return false })
		if first != at(c.first) || last != at(c.last) {
			t.Errorf("%s: span %.2f–%.2f s, want %.2f–%.2f", c.name, float64(first)*FrameSeconds, float64(last)*FrameSeconds, c.first, c.last)
		}
	}
	// Where music detection hears music, a lone piece stays.
	ev := body()
	ev[at(6.0)] = singleWeight
	ev[at(6.5)] = singleWeight
	first, last, _ := bestSpan(ev, 0.001)
	inMusic := func(a, b int) bool { return a >= at(5) && b <= at(36) }
	if f, l := trimLoneEnds(ev, first, last, 0.001, inMusic); f != at(6.0) || l != at(35) {
		t.Errorf("a sparse start inside detected music: span %.2f–%.2f s, want 6.00–35.00", float64(f)*FrameSeconds, float64(l)*FrameSeconds)
	}
	if f, _ := trimLoneEnds(ev, first, last, 0.001, func(int, int) bool { return false }); f != at(10) {
		t.Errorf("the same start without music detection: %.2f s, want 10.00", float64(f)*FrameSeconds)
	}
}

// TestConfirmedByHalves: a range's best track below the ratio bar is taken
// when each half of the range, matched apart, names it first at the same
// alignment, and not when one half names the runner-up (chance evidence
// gathered in one place) or the ratio is under halvesMinRatio.
func TestConfirmedByHalves(t *testing.T) {
	const perFrame = 3
	frames := uint32(math.Round(120 / FrameSeconds))
	ix := syntheticIndex(t, 120, perFrame, "song", "other")
	hit := func(track int, trackSec, querySec float64) Hash {
		return Hash{Key: (uint32(track)*frames + uint32(math.Round(trackSec/FrameSeconds))) * perFrame, Time: uint32(math.Round(querySec / FrameSeconds))}
	}
	const length = 30.0
	// query builds a 30-s range: the song throughout at one alignment
	// (songHits), the other track's hits at one alignment of their own
	// over [otherFrom, otherTo).
	query := func(songHits int, otherHits int, otherFrom, otherTo float64) []Hash {
		var q []Hash
		for i := range songHits {
			s := (float64(i) + 0.5) * length / float64(songHits)
			q = append(q, hit(0, 40+s, s))
		}
		for i := range otherHits {
			s := otherFrom + (float64(i)+0.5)*(otherTo-otherFrom)/float64(otherHits)
			q = append(q, hit(1, 70+s, s))
		}
		slices.SortFunc(q, func(a, b Hash) int { return int(a.Time) - int(b.Time) })
		return q
	}
	rangeFrames := uint32(math.Round(length / FrameSeconds))
	for _, c := range []struct {
		name       string
		q          []Hash
		wantAccept bool
	}{
		{"song throughout, runner-up spread", query(30, 20, 0, length), true},
		{"runner-up gathered in one half", query(30, 20, 0, length/2), false},
		{"ratio under halvesMinRatio", query(30, 25, 0, length), false},
	} {
		if cands := ix.matchAll(c.q, MatchOptions{}); len(cands) > 0 {
			t.Fatalf("%s: the clip thresholds already take it: %+v", c.name, cands[0])
		}
		got, ok := ix.confirmedByHalves(c.q, rangeFrames, MatchOptions{})
		if ok != c.wantAccept || ok && (got.TrackID != "song" || math.Abs(got.TrackOffset-40) > 0.1) {
			t.Errorf("%s: %+v %v; want accepted %v (song at 40 s)", c.name, got, ok, c.wantAccept)
		}
	}
}

// TestUnexplainedMusicLeavesSilencesOut: music detection bridges a
// silence inside a range; the unexplained music the timeline reports
// leaves the silence out (a song's own last second of digital silence
// before a cut was reported as unidentified music).
func TestUnexplainedMusicLeavesSilencesOut(t *testing.T) {
	const perFrame = 3
	ix := syntheticIndex(t, 60, perFrame, "song")
	var query []Hash // the song's first 20 s, every frame
	for f := uint32(0); f < uint32(math.Round(20/FrameSeconds)); f++ {
		for k := range uint32(perFrame) {
			query = append(query, Hash{Key: f*perFrame + k, Time: f})
		}
	}
	music := []audio.Range{{StartMs: 0, EndMs: 40000}}
	unexplained := func(silences []audio.Range) []audio.Range {
		var out []audio.Range
		for _, s := range ix.Timeline(query, TimelineOptions{Music: music, Silences: silences}) {
			if s.TrackID == "" {
				out = append(out, audio.Range{StartMs: s.StartMs, EndMs: s.EndMs})
			}
		}
		return out
	}
	if got := unexplained(nil); len(got) != 1 || got[0].EndMs != 40000 || math.Abs(float64(got[0].StartMs)-20000) > 500 {
		t.Fatalf("without silences: %+v", got)
	}
	got := unexplained([]audio.Range{{StartMs: 21000, EndMs: 26000}})
	if len(got) != 1 || got[0].StartMs != 26000 || got[0].EndMs != 40000 {
		t.Fatalf("with a silence at 21–26 s: %+v; want 26000–40000", got)
	}
}

// syntheticIndex indexes tracks of seconds each whose every frame holds
// perFrame hashes no other frame or track has: track i's frame f has the
// keys (i·frames+f)·perFrame + k.
func syntheticIndex(t *testing.T, seconds float64, perFrame uint32, ids ...string) *Index {
	t.Helper()
	frames := uint32(math.Round(seconds / FrameSeconds))
	b := NewBuilder()
	for ti, id := range ids {
		var hs []Hash
		for f := uint32(0); f < frames; f++ {
			for k := range perFrame {
				hs = append(hs, Hash{Key: (uint32(ti)*frames+f)*perFrame + k, Time: f})
			}
		}
		if err := b.Add(id, seconds, hs); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}
