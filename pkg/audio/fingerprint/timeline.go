package fingerprint

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"musiccatalog/pkg/audio"
)

// Stretch is a part of a long query: a track (with where in the track it
// starts) or, with TrackID "", music the index does not explain.
type Stretch struct {
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	TrackID string `json:"track_id,omitempty"`
	// TrackOffsetMs is the track time at StartMs.
	TrackOffsetMs int64 `json:"track_offset_ms"`
	// Score is the best window score supporting the stretch.
	Score int `json:"score"`
	// Speed and Semitones are the warp the track plays at (warp.go);
	// zero when it plays as indexed (see Warp).
	Speed     float64 `json:"speed,omitempty"`
	Semitones float64 `json:"semitones,omitempty"`

	align  int64   // global index frame at query frame 0
	offset float64 // track seconds at query time 0
	// bg is the span of an unexplained stretch that background music
	// explains (see catalogStretches); zero when none.
	bg audio.Range
}

// TimelineOptions tune Timeline; zero fields take defaults.
type TimelineOptions struct {
	// Window and Hop (seconds) of the sliding match; defaults 6 and 1.5.
	Window, Hop float64
	// Match applies to every window.
	Match MatchOptions
	// MinSeconds drops stretches shorter than this (default 2).
	MinSeconds float64
	// Music, when set (e.g. from musicdetect), is where the query has
	// music; the parts of it no track explains come back as stretches with
	// an empty TrackID, as does time only background music explains (see
	// WithBackground).
	Music []audio.Range
	// NoWarp skips the speed and pitch search (warp.go) over the music
	// the identity pass leaves unexplained.
	NoWarp bool
	// Silences, when set (audio.Silences), are where the query is silent:
	// a stretch's edges are never carried across one (see settleEdges).
	Silences []audio.Range
}

func (o TimelineOptions) withDefaults() TimelineOptions {
	if o.Window <= 0 {
		o.Window = 6
	}
	if o.Hop <= 0 {
		o.Hop = 1.5
	}
	if o.MinSeconds <= 0 {
		o.MinSeconds = 2
	}
	return o
}

// run is a chain of windows that agree on track and alignment.
type run struct {
	track       string
	offset      float64 // track time at query time 0
	first, last float64 // query seconds covered by aligned hashes
	lastWindow  int
	score       int
	align       int64 // global index frame at query frame 0, set by refine
	// weak runs come from the long windows (see longWindows) or hold
	// little evidence (refine): they fill only time no strong run explains.
	weak bool
	// confirmed: a long window agrees with the run. A weak run from the
	// short windows must be, or one lucky window could stand alone.
	confirmed bool
	// whole: the run comes from a music range matched whole (musicRanges),
	// which already beat every other track over the whole range. refine
	// holds it to twice coreOverChance over its own chance rate instead of
	// minCore: such a song 14 dB under a voice keeps 0.35 aligned frames a
	// second, 13–19 times its chance rate (Warzone 2100, the two videos
	// minCore refused).
	whole bool
}

// offsetSlack is how far (seconds) two windows' alignments may differ and
// still be the same play-through; it absorbs jitter and slight speed change.
const offsetSlack = 0.3

// maxGapWindows is how many windows in a row may fail (a quiet passage,
// a burst of speech) before a run ends.
const maxGapWindows = 3

// Timeline splits a long query (hashes with QueryOptions over a whole
// video) into stretches of indexed tracks in order: songs back to back,
// gaps, a song that returns, cuts inside a song (a new stretch of the same
// track at another offset). Windows of the query are matched
// independently and windows that agree are chained into runs; then each
// run is bounded frame by frame where the evidence at its exact alignment
// starts and stops (refine), echoes of a longer play are dropped and
// contested time is divided where one alignment's evidence gives way to
// the other's (finish), which places boundaries to a fraction of a second.
func (ix *Index) Timeline(query []Hash, opts TimelineOptions) []Stretch {
	return ix.catalogStretches(ix.timeline(query, query, opts), opts.withDefaults())
}

// timeline is Timeline with the windows matched on query and the runs
// bounded, and their body weighed against chance, on the evidence of evq:
// the same hashes at the same times, for a warped query without the
// warp's slack (see trackTimeline).
func (ix *Index) timeline(query, evq []Hash, opts TimelineOptions) []Stretch {
	o := opts.withDefaults()
	end := uint32(0)
	for _, h := range query {
		end = max(end, h.Time)
	}
	var done []*run
	// The short windows place songs that stand out within seconds; the
	// long ones find music that only adds up over a longer stretch at one
	// alignment, such as a song under narration (see longWindows).
	done = ix.coarse(query, end, o.Window, o.Hop, o.Match, nil)
	ids := make(map[string]Track, len(ix.tracks))
	for _, t := range ix.tracks {
		ids[t.ID] = t
	}
	var kept, all, keptWeak []*run
	for _, r := range done {
		if ix.refine(r, ids[r.track], evq, o) {
			all = append(all, r)
			if !r.weak {
				kept = append(kept, r)
			}
		}
	}
	// Windows agreeing with a run kept so far add nothing to the long pass.
	long := o.Match.withDefaults()
	long.MinScore, long.MinRatio = int(float64(long.MinScore)*longBar), long.MinRatio*longBar
	for _, r := range ix.coarse(query, end, o.Window*longWindows, o.Hop*longWindows, long, all) {
		if ix.refine(r, ids[r.track], evq, o) {
			keptWeak = append(keptWeak, r)
		}
	}
	for _, r := range all {
		if r.weak && r.confirmed {
			keptWeak = append(keptWeak, r)
		}
	}
	for _, r := range ix.musicRanges(query, append(slices.Clone(kept), keptWeak...), o) {
		if ix.refine(r, ids[r.track], evq, o) {
			keptWeak = append(keptWeak, r)
		}
	}
	return ix.warpStretches(ix.finish(kept, keptWeak, evq, o), query, o)
}

// rangeSeconds is the least music no run explains (seconds) that the
// third pass matches as one query; rangeMaxSeconds the most (a longer
// range is matched in equal pieces): the clip thresholds were measured
// on ranges of 10–30 s, and a query of minutes holds that many more
// chance alignments.
const (
	rangeSeconds    = 10.0
	rangeMaxSeconds = 60.0
)

// splitRange cuts r into the fewest equal pieces no longer than maxSec.
func splitRange(r audio.Range, maxSec float64) []audio.Range {
	n := int64(math.Ceil(float64(r.EndMs-r.StartMs) / (maxSec * 1000)))
	if n <= 1 {
		return []audio.Range{r}
	}
	out := make([]audio.Range, 0, n)
	for i := range n {
		out = append(out, audio.Range{StartMs: r.StartMs + (r.EndMs-r.StartMs)*i/n, EndMs: r.StartMs + (r.EndMs-r.StartMs)*(i+1)/n})
	}
	return out
}

// musicRanges is the third pass: each stretch of o.Music (music detection's
// ranges) that no run of explained covers, rangeSeconds or longer, is
// matched whole, as a clip is (o.Match's score and ratio thresholds, the
// ratio relaxed when the range's halves agree: confirmedByHalves), and
// its best track becomes a weak run that refine then holds to chance (see
// run.whole). A song far under a voice keeps about one aligned hash a
// second, which the windows' fixed grid cuts where it pleases; music
// detection bounds the music itself. Measured on orchestral game music
// nobody tuned on (Warzone 2100) 14 dB under a voice: the 30 s matched
// whole named the right track first in 24 of 24 videos, 17 of them past
// the ratio bar, where the windows found 15.
func (ix *Index) musicRanges(query []Hash, explained []*run, o TimelineOptions) []*run {
	if len(o.Music) == 0 {
		return nil
	}
	cover := make([]audio.Range, 0, len(explained))
	for _, r := range explained {
		cover = append(cover, audio.Range{StartMs: ms(r.first), EndMs: ms(r.last)})
	}
	slices.SortFunc(cover, func(a, b audio.Range) int { return cmp.Compare(a.StartMs, b.StartMs) })
	var out []*run
	buf := make([]Hash, 0, 1024)
	var pieces []audio.Range
	for _, m := range o.Music {
		for _, gap := range m.Subtract(cover) {
			pieces = append(pieces, splitRange(gap, rangeMaxSeconds)...)
		}
	}
	for _, gap := range pieces {
		if float64(gap.EndMs-gap.StartMs) < rangeSeconds*1000 {
			continue
		}
		w, e := msFrame(gap.StartMs), msFrame(gap.EndMs)
		lo := sort.Search(len(query), func(i int) bool { return query[i].Time >= w })
		hi := sort.Search(len(query), func(i int) bool { return query[i].Time >= e })
		buf = buf[:0]
		for _, h := range query[lo:hi] {
			buf = append(buf, Hash{Key: h.Key, Time: h.Time - w})
		}
		cands := ix.matchAll(buf, o.Match)
		ws := float64(w) * FrameSeconds
		if len(cands) == 0 {
			c, ok := ix.confirmedByHalves(buf, e-w, o.Match)
			if !ok {
				continue
			}
			cands = []Candidate{c}
		}
		c := cands[0]
		if agreeing(explained, c, ws) != nil || agreeing(out, c, ws) != nil {
			// A play-through the windows found: its edges are refine's
			// and settleEdges' to place, at its own alignment (a second
			// run of it a few frames off moved the stretch's alignment
			// by 0.1–0.2 s and its edges with it, tuning half).
			continue
		}
		out = append(out, &run{track: c.TrackID, offset: c.TrackOffset - ws, first: ws + c.QueryStart,
			last: ws + c.QueryEnd, score: c.Score, weak: true, confirmed: true, whole: true})
	}
	return out
}

// longWindows is how many times longer than the short windows (and their
// hop) the second coarse pass's windows are. Music 8–14 dB under
// continuous speech keeps only a few aligned hashes in any 6-s window –
// often below the threshold, or level with the chance alignments the
// speech makes with other tracks – but the same few a second add up at one
// alignment over 24 s while chance alignments do not (measured on the
// narration benchmark's tuning half: 6-s windows at −14 dB scored the true
// track 0–50 against a runner-up of 10–25, 30-s windows 24–180 against
// 0–25). A long window also dilutes a short song between others, which is
// why the short pass stays.
const longWindows = 4

// longBar scales the long windows' score and ratio thresholds. It was
// 1.5: a true song under narration scores 85–700 over 24–30 s against a
// runner-up under 25, while unrelated music aligns with some track now and
// then over so long a window, and a small catalog had few runners-up to
// show it. Since small catalogs compete with the background music
// (WithBackground, background.For) they have those runners-up, and music
// unlike the wesnoth set the thresholds were set on scores lower: 28
// orchestral game tracks nobody tuned on (Warzone 2100) 14 dB under a voice
// score 26–175 over the 30 s at the true alignment against runners-up of
// 18–59 (ratio 1.1–7.4), so that 1.5 found 9 of 24 and 1.0 finds 15 (−8 dB:
// 22 → 23 of 24), with the same unknown music named on small catalogs
// (BenchmarkSmallCatalog, with the background) and the same catalog
// timelines. refine still holds every run to coreOverChance.
const longBar = 1.0

// coarse matches windows of win seconds every step seconds and chains
// those that agree on track and alignment into runs. Given the runs of the
// short pass (strong), it is the long pass: windows that agree with a
// strong run add nothing, and the new runs are weak ones.
func (ix *Index) coarse(query []Hash, end uint32, winSec, stepSec float64, mo MatchOptions, strong []*run) []*run {
	var runs, done []*run
	buf := make([]Hash, 0, 1024)
	win := uint32(winSec / FrameSeconds)
	step := max(1, uint32(stepSec/FrameSeconds))
	for wi, w := 0, uint32(0); w == 0 || w+win/2 <= end; wi, w = wi+1, w+step {
		lo := sort.Search(len(query), func(i int) bool { return query[i].Time >= w })
		hi := sort.Search(len(query), func(i int) bool { return query[i].Time >= w+win })
		buf = buf[:0]
		for _, h := range query[lo:hi] {
			buf = append(buf, Hash{Key: h.Key, Time: h.Time - w})
		}
		ws := float64(w) * FrameSeconds
		cands := ix.matchAll(buf, mo)
		if len(cands) > 0 {
			if x := agreeing(strong, cands[0], ws); x != nil {
				x.confirmed = true
				cands = nil
			}
		}
		if len(cands) > 0 {
			c := cands[0]
			off := c.TrackOffset - ws
			r := agreeing(runs, c, ws)
			if r == nil {
				r = &run{track: c.TrackID, offset: off, first: ws + c.QueryStart, weak: strong != nil}
				runs = append(runs, r)
			}
			r.first = min(r.first, ws+c.QueryStart)
			r.last = max(r.last, ws+c.QueryEnd)
			r.lastWindow = wi
			r.score = max(r.score, c.Score)
		}
		keep := runs[:0]
		for _, r := range runs {
			if wi-r.lastWindow > maxGapWindows {
				done = append(done, r)
			} else {
				keep = append(keep, r)
			}
		}
		runs = keep
	}
	return append(done, runs...)
}

// agreeing returns the run of rs with c's track and alignment (c from the
// window at ws seconds), or nil.
func agreeing(rs []*run, c Candidate, ws float64) *run {
	var r *run
	for _, x := range rs {
		if x.track == c.TrackID && math.Abs(x.offset-(c.TrackOffset-ws)) <= offsetSlack {
			r = x
		}
	}
	return r
}

// Boundary refinement. The coarse pass only knows which windows voted for
// a run, and a 6-s window smears that by seconds; a query hash also aligns
// with a track by chance now and then (common keys have long posting
// lists). So each run is re-examined frame by frame at its exact
// alignment (see evidence), and the stretch is the contiguous span whose
// evidence most exceeds a level p0 between the chance rate (measured at
// alignments shifted by bgShifts, where the music does not line up) and
// the rate in the body of the run. Maximising Σ(evidence − p0) over one
// contiguous span (Kadane) ends the stretch at its last aligned frame
// before the evidence stops – a cut, a silence, another song – yet carries
// it through a quiet bar where matches thin out but do not stop, and it
// will not hop over a silent gap to a few chance or repeated-material
// matches on the other side.
const (
	denseSeconds = 1.0
	// endPad accounts for the music after the last aligned anchor: a
	// pair's anchor precedes its target.
	endPad = 0.25
	// edgeLevel places p0 between the chance rate and the body rate. Low,
	// because quiet passages under noise keep only a fraction of the body's
	// matches, while after a true boundary the rate drops to chance at once.
	// 0.15–0.35 all measured within a point of each other on 40 videos.
	edgeLevel = 0.25
	// singleWeight is the evidence of a frame with one aligned hash; a
	// frame with two or more counts 1. Where the query really is the track,
	// an anchor peak that survived usually pairs with several targets that
	// survived too, so most aligned frames hold two or more hashes; a chance
	// alignment almost always holds one. Measured on the wesnoth timelines,
	// counting only frames with two kept ~90 % of the true frames and cut
	// chance frames five- to tenfold; the single ones still count a little
	// because in quiet passages under noise they are most of what is left
	// (0.2–0.5 measured alike).
	singleWeight = 0.35
)

// A run's body must beat chance by coreOverChance and hold minCore
// evidence a second, or it was the windows' luck. Music under narration
// keeps about one aligned frame a second (0.7–1.4 measured at −14 dB)
// where chance alignments give 0.05–0.2.
const (
	coreOverChance = 4
	minCore        = 0.6
)

// bgShifts (seconds) are odd values so that repeats in the music (bars,
// phrases) rarely line up with them; the median of several is the chance
// rate even when one of them does.
var bgShifts = [...]float64{5.3, 8.3, 13.7}

// refine recomputes a run's first and last from the hashes aligned with
// its track and offset, looking a window beyond what the windows saw. It
// reports false when nothing stands out from chance.
func (ix *Index) refine(r *run, t Track, query []Hash, o TimelineOptions) bool {
	from := uint32(max(0, (r.first-o.Window)/FrameSeconds))
	to := uint32((r.last + o.Window) / FrameSeconds)
	if n := len(query); n > 0 {
		to = min(to, query[n-1].Time)
	}
	if to <= from {
		return false
	}
	r.align = int64(t.Start) + int64(math.Round(r.offset/FrameSeconds))
	ev := ix.evidence(query, from, to, r.align)
	var bgs []float64
	for _, sh := range bgShifts {
		bg := ix.evidence(query, from, to, r.align+int64(math.Round(sh/FrameSeconds)))
		bgs = append(bgs, sum(bg))
	}
	slices.Sort(bgs)
	span := int(math.Round(denseSeconds / FrameSeconds))
	chance := bgs[len(bgs)/2] / float64(len(ev)) * float64(span) // chance evidence per denseSeconds
	dens := windowSums(ev, span)
	// Body density: the median over what the windows matched. It must
	// beat chance and hold at least two frames' worth a second, or the run
	// was the windows' luck.
	a, b := int(r.first/FrameSeconds)-int(from), int(r.last/FrameSeconds)-int(from)
	a, b = max(0, min(a, len(dens)-1)), max(0, min(b, len(dens)))
	if b <= a {
		return false
	}
	body := slices.Clone(dens[a:b])
	slices.Sort(body)
	core := body[len(body)/2]
	floor := max(coreOverChance*chance, minCore)
	if r.whole {
		// No hit at the shifted alignments is not a chance rate of 0: at
		// least one single hit over the window is assumed.
		floor = 2 * coreOverChance * max(chance, singleWeight*float64(span)/float64(len(ev)))
	}
	if core <= floor {
		return false
	}
	// A run whose body holds under two aligned frames a second is weak.
	r.weak = r.weak || core <= max(chance, 2)
	p0 := (chance + edgeLevel*(core-chance)) / float64(span)
	first, last, gain := bestSpan(ev, p0)
	if gain <= 0 {
		return false
	}
	first, last = trimLoneEnds(ev, first, last, p0, func(a, b int) bool {
		// Music detection hears music there: the piece is kept.
		r := audio.Range{StartMs: ms(float64(int(from)+a) * FrameSeconds), EndMs: ms(float64(int(from)+b+1) * FrameSeconds)}
		return slices.ContainsFunc(o.Music, func(m audio.Range) bool { return m.StartMs < r.EndMs && r.StartMs < m.EndMs })
	})
	// The body's level misses the run's edges where the music continues
	// under speech (narration over a song's intro): at the level weak runs
	// are kept at, the span is carried on while the evidence holds.
	if p1 := max(coreOverChance*chance, minCore) / float64(span); p1 < p0 {
		first, last = extendSpan(ev, first, last, p1)
	}
	r.first = float64(int(from)+first) * FrameSeconds
	r.last = float64(int(from)+last)*FrameSeconds + endPad
	return true
}

// bestSpan returns the contiguous span [first, last] of ev maximising
// Σ(ev − p0), and that sum. The span starts and ends on evidence.
func bestSpan(ev []float32, p0 float64) (first, last int, gain float64) {
	first, last = -1, -1
	cur, curStart := 0.0, 0
	for i, e := range ev {
		if cur <= 0 {
			cur, curStart = 0, i
		}
		cur += float64(e) - p0
		if e > 0 && cur > gain {
			gain, first, last = cur, curStart, i
		}
	}
	// A span begins where the running sum was reset, which may be a frame
	// without evidence; its first aligned frame is the real start.
	for first >= 0 && first < last && ev[first] == 0 {
		first++
	}
	return first, last, gain
}

// trimLoneEnds drops from either end of the span [first, last] of ev
// evidence that lies beyond more than edgeGapSeconds without any and does
// not add minEdgeGain over p per frame on its own – the rule extendEdges
// carries an edge by. bestSpan alone has no such limit: where p is low (a
// weak run, music far under a voice) a few chance single hits seconds
// past the music's end pay for the gap before them (a narrated song's
// stretch ran 4.4 s into the voice alone on three single hits 3.4 s after
// its last hit in the music), and guided
// edges, which only widen, cannot take such an end back. A piece where
// music detection hears music (heard, frames of ev) is kept: a song's
// first seconds far under a voice can be that sparse (TestTrimLoneEnds).
func trimLoneEnds(ev []float32, first, last int, p float64, heard func(a, b int) bool) (int, int) {
	gap := int(math.Round(edgeGapSeconds / FrameSeconds))
	// piece is the net evidence of ev[a..b] over p.
	piece := func(a, b int) float64 {
		g := 0.0
		for i := a; i <= b; i++ {
			g += float64(ev[i]) - p
		}
		return g
	}
	for first < last {
		// The piece that begins at first ends before the first gap longer
		// than gap inside the span.
		end, run := first, 0
		for i := first + 1; i <= last && run <= gap; i++ {
			if ev[i] > 0 {
				end, run = i, 0
			} else {
				run++
			}
		}
		if end >= last || run <= gap || piece(first, end) >= minEdgeGain || heard(first, end) {
			break
		}
		first = end + 1
		for first < last && ev[first] == 0 {
			first++
		}
	}
	for last > first {
		start, run := last, 0
		for i := last - 1; i >= first && run <= gap; i-- {
			if ev[i] > 0 {
				start, run = i, 0
			} else {
				run++
			}
		}
		if start <= first || run <= gap || piece(start, last) >= minEdgeGain || heard(start, last) {
			break
		}
		last = start - 1
		for last > first && ev[last] == 0 {
			last--
		}
	}
	return first, last
}

// extendGapSeconds is the longest stretch without evidence an extension
// crosses: music under speech keeps an aligned frame every second or so,
// and a silent gap between songs must not be bridged.
const extendGapSeconds = 1.5

// extendSpan moves first back and last on to the farthest evidence frame
// that keeps Σ(ev − p) over the added frames at its best (positive) value.
func extendSpan(ev []float32, first, last int, p float64) (int, int) {
	gap := int(math.Round(extendGapSeconds / FrameSeconds))
	cur, best, to := 0.0, 0.0, first
	for i := first - 1; i >= 0 && i >= to-gap; i-- {
		cur += float64(ev[i]) - p
		if ev[i] > 0 && cur > best {
			best, to = cur, i
		}
	}
	first = to
	cur, best, to = 0, 0, last
	for i := last + 1; i < len(ev) && i <= to+gap; i++ {
		cur += float64(ev[i]) - p
		if ev[i] > 0 && cur > best {
			best, to = cur, i
		}
	}
	return first, to
}

func sum(ev []float32) float64 {
	var n float64
	for _, e := range ev {
		n += float64(e)
	}
	return n
}

// evidence scores the query frames in [from, to] by the hashes whose key
// occurs in the index within two frames of global frame off+frame: 0, 1
// hash (singleWeight) or more (1).
func (ix *Index) evidence(query []Hash, from, to uint32, off int64) []float32 {
	const tol = 2
	n := make([]uint8, to-from+1)
	lo := sort.Search(len(query), func(i int) bool { return query[i].Time >= from })
	for _, h := range query[lo:] {
		if h.Time > to {
			break
		}
		if n[h.Time-from] >= 2 {
			continue
		}
		g := off + int64(h.Time)
		ps := ix.postings(h.Key)
		i := sort.Search(len(ps), func(i int) bool { return int64(ps[i]) >= g-tol })
		if i < len(ps) && int64(ps[i]) <= g+tol {
			n[h.Time-from]++
		}
	}
	ev := make([]float32, len(n))
	for i, c := range n {
		switch c {
		case 1:
			ev[i] = singleWeight
		case 2:
			ev[i] = 1
		}
	}
	return ev
}

// windowSums returns, for each i, the sum of ev[i:i+span].
func windowSums(ev []float32, span int) []float64 {
	out := make([]float64, len(ev))
	var n float64
	for i := len(ev) - 1; i >= 0; i-- {
		n += float64(ev[i])
		if i+span < len(ev) {
			n -= float64(ev[i+span])
		}
		out[i] = n
	}
	return out
}

// mergeGapSeconds: two runs of one track at one alignment this close are
// one play-through that the coarse pass lost for a few windows (a quiet
// passage under noise).
const mergeGapSeconds = 1.0

func (ix *Index) finish(runs, weak []*run, query []Hash, o TimelineOptions) []Stretch {
	out := ix.resolve(runs, query)
	if len(weak) > 0 {
		// Weak stretches fill only what the strong ones leave, and a
		// remnant shorter than minPiece is dropped (no slivers).
		strong := toRanges(out)
		for _, s := range ix.resolve(weak, query) {
			out = append(out, remnants(s, strong)...)
		}
		sortStretches(out)
	}
	out = ix.settleEdges(out, query, o.Music, o.Silences)
	for i := range out {
		out[i].TrackOffsetMs = ms(out[i].offset) + out[i].StartMs
	}
	out = slices.DeleteFunc(out, func(s Stretch) bool { return float64(s.EndMs-s.StartMs) < o.MinSeconds*1000 })
	out = dropSlivers(out)
	if len(o.Music) > 0 {
		// Music no stretch explains, less the silences: music detection
		// bridges a short silence inside a range (a song's own second of
		// digital silence before a cut), which is no music of its own.
		cut := append(toRanges(out), o.Silences...)
		slices.SortFunc(cut, func(a, b audio.Range) int { return cmp.Compare(a.StartMs, b.StartMs) })
		for _, m := range o.Music {
			for _, gap := range m.Subtract(cut) {
				// A short unexplained piece is a gap inside a song (a
				// passage the matches thinned out in) or a neighbour's
				// edge, not music of its own.
				if float64(gap.EndMs-gap.StartMs) >= max(o.MinSeconds, minPiece)*1000 {
					out = append(out, Stretch{StartMs: gap.StartMs, EndMs: gap.EndMs})
				}
			}
		}
		slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	}
	return out
}

// remnants are the parts of s that cut (sorted) leaves, those shorter than
// minPiece dropped.
func remnants(s Stretch, cut []audio.Range) []Stretch {
	var out []Stretch
	for _, piece := range (audio.Range{StartMs: s.StartMs, EndMs: s.EndMs}).Subtract(cut) {
		if float64(piece.EndMs-piece.StartMs) >= minPiece*1000 {
			p := s
			p.StartMs, p.EndMs = piece.StartMs, piece.EndMs
			out = append(out, p)
		}
	}
	return out
}

// sortStretches orders stretches by start, stably.
func sortStretches(st []Stretch) {
	slices.SortStableFunc(st, func(a, b Stretch) int { return cmp.Compare(a.StartMs, b.StartMs) })
}

// minPiece (seconds) is the shortest part of a stretch kept where another
// one took the rest of its time.
const minPiece = 3.0

// dropSlivers removes stretches shorter than minPiece that touch (within
// mergeGapSeconds) another stretch: the tail of a neighbouring song seen
// a little past a cut, or an echo left between two parts of one song.
func dropSlivers(in []Stretch) []Stretch {
	near := func(i int) bool {
		for j, y := range in {
			x := in[i]
			if j != i && float64(x.StartMs-y.EndMs) <= mergeGapSeconds*1000 && float64(y.StartMs-x.EndMs) <= mergeGapSeconds*1000 &&
				y.EndMs-y.StartMs > x.EndMs-x.StartMs {
				return true
			}
		}
		return false
	}
	var drop []bool
	for i, x := range in {
		drop = append(drop, float64(x.EndMs-x.StartMs) < minPiece*1000 && near(i))
	}
	out := in[:0:0]
	for i, x := range in {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return out
}

// resolve turns refined runs into stretches: runs of one play-through
// merged, echoes dropped, overlaps divided.
func (ix *Index) resolve(runs []*run, query []Hash) []Stretch {
	slices.SortFunc(runs, func(a, b *run) int { return cmpFloat(a.first, b.first) })
	var out []Stretch
	for _, r := range runs {
		s := Stretch{StartMs: ms(r.first), EndMs: ms(r.last), TrackID: r.track, Score: r.score,
			align: r.align, offset: r.offset}
		for i := len(out) - 1; i >= 0; i-- {
			p := &out[i]
			if p.TrackID == s.TrackID && math.Abs(p.offset-s.offset) <= offsetSlack &&
				float64(s.StartMs-p.EndMs) <= mergeGapSeconds*1000 {
				p.EndMs = max(p.EndMs, s.EndMs)
				p.Score = max(p.Score, s.Score)
				s.EndMs = s.StartMs
				break
			}
		}
		if s.EndMs > s.StartMs {
			out = append(out, s)
		}
	}
	out = ix.dropEchoes(out, query)
	return ix.resolveOverlaps(out, query)
}

// echoShare: a stretch is an echo of an overlapping, longer one when the
// longer one's alignment has at least this share of its evidence over its
// whole extent. Music repeats itself – a phrase or an ostinato recurs a few
// seconds later in the same track, a theme or an orchestral sample recurs in
// another – so a play-through also lines up, for a while, at the offsets of
// its repeats. The longer play explains that time as well, and is kept.
const echoShare = 0.5

// dropEchoes removes stretches that an overlapping longer one explains.
func (ix *Index) dropEchoes(in []Stretch, query []Hash) []Stretch {
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	length := func(s Stretch) int64 { return s.EndMs - s.StartMs }
	slices.SortFunc(order, func(a, b int) int { return int(length(in[a]) - length(in[b])) })
	drop := make([]bool, len(in))
	for _, i := range order {
		x := in[i]
		from, to := msFrame(x.StartMs), msFrame(x.EndMs)
		own := sum(ix.evidence(query, from, to, x.align))
		for j, y := range in {
			if j == i || drop[j] || length(y) <= length(x) || y.EndMs <= x.StartMs || y.StartMs >= x.EndMs {
				continue
			}
			if sum(ix.evidence(query, from, to, y.align)) >= echoShare*own {
				drop[i] = true
				break
			}
		}
	}
	out := in[:0]
	for i, s := range in {
		if !drop[i] {
			out = append(out, s)
		}
	}
	return out
}

// resolveOverlaps decides contested time. A stretch inside another that is
// not an echo of it (dropEchoes ran first) is an insert, and the outer one
// is split around it; two stretches that overlap at their ends – a cut seen
// from both sides, a crossfade, the same material on both sides of a cut –
// are divided at the frame that best separates their evidence: the most of
// the earlier alignment's before it and of the later one's after it.
func (ix *Index) resolveOverlaps(in []Stretch, query []Hash) []Stretch {
	slices.SortFunc(in, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	var out []Stretch
	for _, s := range in {
		for len(out) > 0 {
			p := &out[len(out)-1]
			if s.StartMs >= p.EndMs {
				break
			}
			if s.EndMs <= p.EndMs { // s inside p
				tail := *p
				tail.StartMs = s.EndMs
				p.EndMs = s.StartMs
				out = append(out, s)
				s = tail
				break
			}
			from, to := msFrame(s.StartMs), msFrame(p.EndMs)
			hp := ix.evidence(query, from, to, p.align)
			hs := ix.evidence(query, from, to, s.align)
			cut := frameMs(from + uint32(changePoint(hp, hs)))
			s.StartMs, p.EndMs = cut, cut
			if p.EndMs <= p.StartMs {
				out = out[:len(out)-1]
				continue // s may now overlap the stretch before p
			}
			break
		}
		if s.EndMs > s.StartMs {
			out = append(out, s)
		}
	}
	return slices.DeleteFunc(out, func(s Stretch) bool { return s.EndMs <= s.StartMs })
}

// changePoint returns k maximising the evidence of a before k plus that of
// b from k on; of equally good k (a stretch where neither has any) the
// middle one.
func changePoint(a, b []float32) int {
	score := sum(b)
	best, lo, hi := score, 0, 0
	for k := 1; k <= len(a); k++ {
		score += float64(a[k-1]) - float64(b[k-1])
		switch {
		case score > best+1e-9:
			best, lo, hi = score, k, k
		case math.Abs(score-best) <= 1e-9 && hi == k-1:
			hi = k
		}
	}
	return (lo + hi) / 2
}

func msFrame(v int64) uint32 { return uint32(max(0, math.Round(float64(v)/1000/FrameSeconds))) }

func frameMs(f uint32) int64 { return ms(float64(f) * FrameSeconds) }

func toRanges(s []Stretch) []audio.Range {
	out := make([]audio.Range, len(s))
	for i, x := range s {
		out[i] = audio.Range{StartMs: x.StartMs, EndMs: x.EndMs}
	}
	return out
}

func ms(s float64) int64 { return int64(math.Round(s * 1000)) }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A range's best track below the ratio bar (clip thresholds) is still
// taken when the range's two halves, matched apart, each name it first at
// the same alignment and it clears halvesMinRatio over the whole range:
// chance alignments do not repeat in two separate stretches of the music,
// a song heard throughout does. Measured on orchestral game music nobody
// tuned on (Warzone 2100) 14 dB under a voice: a song heard in the whole
// 30 s scored 39 at ratio 1.77 with both halves agreeing (found), while
// the ranges where the best track was chance (ratio 1.19–1.53) had halves
// naming other tracks or alignments; small catalogs with the background
// music (BenchmarkSmallCatalog) named no more unknown music than before.
// halvesMinScore is the least score of a half's best.
const (
	halvesMinRatio = 1.3
	halvesMinScore = 4
)

// confirmedByHalves is the best track of the range q (frames long, its
// hashes' times from 0) when the ratio bar refused it and its halves
// confirm it (see halvesMinRatio).
func (ix *Index) confirmedByHalves(q []Hash, frames uint32, mo MatchOptions) (Candidate, bool) {
	// The whole range at the relaxed bar: Match looks at every runner-up
	// that could hold its best under it (MinScore/MinRatio), so the ratio
	// it reports is exact for this decision.
	loose := mo.withDefaults()
	loose.MinRatio = halvesMinRatio
	cands := ix.matchAll(q, loose)
	if len(cands) == 0 {
		return Candidate{}, false
	}
	c := cands[0]
	half := frames / 2
	var halves [2][]Hash
	for _, h := range q {
		if h.Time < half {
			halves[0] = append(halves[0], h)
		} else {
			halves[1] = append(halves[1], Hash{Key: h.Key, Time: h.Time - half})
		}
	}
	// Each half's best, whatever its runner-up (MinRatio 1).
	loose.MinScore, loose.MinRatio = halvesMinScore, 1
	for i, part := range halves {
		hc := ix.matchAll(part, loose)
		if len(hc) == 0 || hc[0].TrackID != c.TrackID ||
			math.Abs(hc[0].TrackOffset-float64(uint32(i)*half)*FrameSeconds-c.TrackOffset) > offsetSlack {
			return Candidate{}, false
		}
	}
	return c, true
}
