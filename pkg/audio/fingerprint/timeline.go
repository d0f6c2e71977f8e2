package fingerprint

import (
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

	weight int
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
	// an empty TrackID.
	Music []audio.Range
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
	weight      int // summed window scores: how much evidence the run has
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
// independently, windows that agree are chained, and each stretch is
// bounded by the first and last hash that aligned, which places boundaries
// to a fraction of a second.
func (ix *Index) Timeline(query []Hash, opts TimelineOptions) []Stretch {
	o := opts.withDefaults()
	var runs, done []*run
	buf := make([]Hash, 0, 1024)
	end := uint32(0)
	for _, h := range query {
		end = max(end, h.Time)
	}
	win := uint32(o.Window / FrameSeconds)
	step := max(1, uint32(o.Hop/FrameSeconds))
	for wi, w := 0, uint32(0); w == 0 || w+win/2 <= end; wi, w = wi+1, w+step {
		lo := sort.Search(len(query), func(i int) bool { return query[i].Time >= w })
		hi := sort.Search(len(query), func(i int) bool { return query[i].Time >= w+win })
		buf = buf[:0]
		for _, h := range query[lo:hi] {
			buf = append(buf, Hash{Key: h.Key, Time: h.Time - w})
		}
		ws := float64(w) * FrameSeconds
		cands := ix.Match(buf, o.Match)
		if len(cands) > 0 {
			c := cands[0]
			off := c.TrackOffset - ws
			var r *run
			for _, x := range runs {
				if x.track == c.TrackID && math.Abs(x.offset-off) <= offsetSlack {
					r = x
				}
			}
			if r == nil {
				r = &run{track: c.TrackID, offset: off, first: ws + c.QueryStart}
				runs = append(runs, r)
			}
			r.first = min(r.first, ws+c.QueryStart)
			r.last = max(r.last, ws+c.QueryEnd)
			r.lastWindow = wi
			r.score = max(r.score, c.Score)
			r.weight += c.Score
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
	done = append(done, runs...)
	ids := make(map[string]Track, len(ix.tracks))
	for _, t := range ix.tracks {
		ids[t.ID] = t
	}
	kept := done[:0]
	for _, r := range done {
		if ix.refine(r, ids[r.track], query, o) {
			kept = append(kept, r)
		}
	}
	return finish(kept, o)
}

// Boundary refinement. A query hash aligns with a track by chance now and
// then (common keys have long posting lists), so a stretch is bounded
// where the density of aligned anchor frames – counted over denseSeconds –
// falls to a threshold between the chance density (measured at an offset
// shifted by bgShift, where the music does not line up) and the density in
// the body of the stretch.
const (
	denseSeconds = 1.0
	bgShift      = 8.3 // seconds; an odd value so repeats in the music rarely line up
	// edgeLevel places the threshold between chance and body density.
	edgeLevel = 0.5
	// endPad accounts for the music after the last aligned anchor: a
	// pair's anchor precedes its target.
	endPad = 0.25
)

// refine recomputes a run's first and last from the hashes aligned with
// its track and offset, looking a window beyond what the windows saw. It
// reports false when nothing stands out from chance.
func (ix *Index) refine(r *run, t Track, query []Hash, o TimelineOptions) bool {
	from := uint32(max(0, (r.first-o.Window)/FrameSeconds))
	to := uint32((r.last + o.Window) / FrameSeconds)
	if to <= from {
		return false
	}
	off := int64(t.Start) + int64(math.Round(r.offset/FrameSeconds))
	hit := ix.alignedFrames(query, from, to, off)
	bg := ix.alignedFrames(query, from, to, off+int64(math.Round(bgShift/FrameSeconds)))
	span := int(math.Round(denseSeconds / FrameSeconds))
	dens, bgd := windowCounts(hit, span), windowCounts(bg, span)
	var bgMean float64
	for _, v := range bgd {
		bgMean += float64(v)
	}
	bgMean /= float64(len(bgd))
	// Body density: the median over what the windows matched.
	a, b := int(r.first/FrameSeconds)-int(from), int(r.last/FrameSeconds)-int(from)
	a, b = max(0, min(a, len(dens)-1)), max(0, min(b, len(dens)))
	if b <= a {
		return false
	}
	body := slices.Clone(dens[a:b])
	slices.Sort(body)
	core := float64(body[len(body)/2])
	th := max(bgMean+edgeLevel*(core-bgMean), 2)
	if core <= th {
		return false
	}
	first, last := -1, -1
	for i, v := range dens {
		if float64(v) >= th {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	// dens[i] counts frames [i, i+span): the first dense window starts at
	// its first aligned frame, the last one ends at its last.
	for first < len(hit) && !hit[first] {
		first++
	}
	last = min(last+span-1, len(hit)-1)
	for last > first && !hit[last] {
		last--
	}
	r.first = float64(int(from)+first) * FrameSeconds
	r.last = float64(int(from)+last)*FrameSeconds + endPad
	return true
}

// alignedFrames marks the query frames in [from, to] with a hash whose key
// occurs in the index within two frames of global frame off+frame.
func (ix *Index) alignedFrames(query []Hash, from, to uint32, off int64) []bool {
	const tol = 2
	hit := make([]bool, to-from+1)
	lo := sort.Search(len(query), func(i int) bool { return query[i].Time >= from })
	for _, h := range query[lo:] {
		if h.Time > to {
			break
		}
		if hit[h.Time-from] {
			continue
		}
		g := off + int64(h.Time)
		ps := ix.postings(h.Key)
		i := sort.Search(len(ps), func(i int) bool { return int64(ps[i]) >= g-tol })
		if i < len(ps) && int64(ps[i]) <= g+tol {
			hit[h.Time-from] = true
		}
	}
	return hit
}

// windowCounts returns, for each i, how many of hit[i:i+span] are set.
func windowCounts(hit []bool, span int) []int {
	out := make([]int, len(hit))
	n := 0
	for i := len(hit) - 1; i >= 0; i-- {
		if hit[i] {
			n++
		}
		if i+span < len(hit) && hit[i+span] {
			n--
		}
		out[i] = n
	}
	return out
}

func finish(runs []*run, o TimelineOptions) []Stretch {
	slices.SortFunc(runs, func(a, b *run) int { return cmpFloat(a.first, b.first) })
	var out []Stretch
	for _, r := range runs {
		s := Stretch{StartMs: ms(r.first), EndMs: ms(r.last), TrackID: r.track, Score: r.score, weight: r.weight}
		s.TrackOffsetMs = ms(r.offset + r.first)
		out = append(out, s)
	}
	out = resolveOverlaps(out)
	out = slices.DeleteFunc(out, func(s Stretch) bool { return float64(s.EndMs-s.StartMs) < o.MinSeconds*1000 })
	if len(o.Music) > 0 {
		covered := slices.Clone(out)
		for _, m := range o.Music {
			for _, gap := range m.Subtract(toRanges(covered)) {
				if float64(gap.EndMs-gap.StartMs) >= o.MinSeconds*1000 {
					out = append(out, Stretch{StartMs: gap.StartMs, EndMs: gap.EndMs})
				}
			}
		}
		slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	}
	return out
}

// resolveOverlaps gives contested time to the stronger stretch when one
// contains most of the other, and otherwise splits the overlap in the
// middle (a crossfade or a cut seen from both sides).
func resolveOverlaps(in []Stretch) []Stretch {
	slices.SortFunc(in, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	var out []Stretch
	for _, s := range in {
		for len(out) > 0 {
			p := &out[len(out)-1]
			if s.StartMs >= p.EndMs {
				break
			}
			if s.EndMs <= p.EndMs { // s inside p
				// A short run inside a long one of the same evidence is
				// mostly the track repeating itself; the longer play wins.
				if s.weight <= p.weight {
					s.EndMs = s.StartMs // drop s
				} else { // split p around s
					tail := *p
					tail.TrackOffsetMs += s.EndMs - p.StartMs
					tail.StartMs = s.EndMs
					p.EndMs = s.StartMs
					out = append(out, s)
					s = tail
				}
				break
			}
			mid := (s.StartMs + p.EndMs) / 2
			s.TrackOffsetMs += mid - s.StartMs
			s.StartMs = mid
			p.EndMs = mid
			break
		}
		if s.EndMs > s.StartMs {
			out = append(out, s)
		}
	}
	return slices.DeleteFunc(out, func(s Stretch) bool { return s.EndMs <= s.StartMs })
}

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
