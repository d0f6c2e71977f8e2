package fingerprint

import (
	"math"
	"slices"
	"sort"

	"musiccatalog/pkg/audio"
)

// Warp returns the speed and pitch change the stretch's track plays at.
func (s Stretch) Warp() Warp {
	if s.Speed == 0 {
		return Warp{Speed: 1, Semitones: s.Semitones}
	}
	return Warp{Speed: s.Speed, Semitones: s.Semitones}
}

// warpStretches runs the speed and pitch search over what the identity
// pass left unexplained: the unexplained music stretches when the options
// name the music, otherwise every gap between stretches at least a window
// long. Each gap is searched window by window (windows side by side, not
// overlapping, to bound the cost); a window the search explains gives a
// track and warp, and the identity timeline over the whole gap's hashes
// warped by it bounds the track's stretch, whose times are then mapped
// back to the query's.
//
// An identity stretch the same track explains better warped (see recheck)
// is searched too, as unexplained time, the warp found on it tried first;
// what of it no warped stretch then covers keeps its identity naming.
func (ix *Index) warpStretches(in []Stretch, query []Hash, o TimelineOptions) []Stretch {
	if o.NoWarp || len(query) == 0 {
		return in
	}
	in, suspects := ix.recheck(in, query, o)
	var found []Stretch
	for _, gap := range ix.unexplained(in, suspects, query, o) {
		found = append(found, ix.warpGap(gap, query, o, suspects)...)
	}
	if len(found) == 0 && len(suspects) == 0 {
		return in
	}
	slices.SortFunc(found, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	out := slices.Clone(found)
	for _, sp := range suspects {
		for _, r := range (audio.Range{StartMs: sp.s.StartMs, EndMs: sp.s.EndMs}).Subtract(toRanges(found)) {
			if float64(r.EndMs-r.StartMs) >= o.MinSeconds*1000 {
				x := sp.s
				x.TrackOffsetMs += r.StartMs - sp.s.StartMs
				x.StartMs, x.EndMs = r.StartMs, r.EndMs
				out = append(out, x)
			}
		}
	}
	slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	explained := toRanges(out)
	for _, s := range in {
		if s.TrackID != "" {
			out = append(out, s)
			continue
		}
		for _, r := range (audio.Range{StartMs: s.StartMs, EndMs: s.EndMs}).Subtract(explained) {
			if float64(r.EndMs-r.StartMs) >= o.MinSeconds*1000 {
				out = append(out, Stretch{StartMs: r.StartMs, EndMs: r.EndMs})
			}
		}
	}
	slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	return out
}

// suspect is an identity stretch that its track explains better warped:
// the warp found (warpedIdentity) on the window of the query from frame at.
type suspect struct {
	s   Stretch
	c   WarpedCandidate
	at  uint32
	win uint32
}

// recheck asks of every identity stretch whether its track explains it
// better at a speed or pitch change (warpedIdentity, on at most two
// windows' worth from its middle). Such a stretch leaves in – as
// unexplained music when the options name the music – and is returned
// as a suspect.
func (ix *Index) recheck(in []Stretch, query []Hash, o TimelineOptions) ([]Stretch, []suspect) {
	var out []Stretch
	var sus []suspect
	var buf []Hash
	for _, s := range in {
		if s.TrackID == "" || !s.Warp().IsIdentity() {
			out = append(out, s)
			continue
		}
		a, b := msFrame(s.StartMs), msFrame(s.EndMs)
		if span := uint32(2 * o.Window / FrameSeconds); b-a > span {
			a += (b - a - span) / 2
			b = a + span
		}
		buf = hashesIn(buf[:0], query, a, b)
		c, ok := ix.warpedIdentity(buf, s.TrackID, ix.trackScore(buf, s.TrackID))
		if !ok {
			out = append(out, s)
			continue
		}
		sus = append(sus, suspect{s: s, c: c, at: a, win: b - a})
		if len(o.Music) > 0 {
			out = append(out, Stretch{StartMs: s.StartMs, EndMs: s.EndMs})
		}
	}
	return out, sus
}

// hashesIn appends to dst the hashes of query in frames [a, b), their times
// from a.
func hashesIn(dst, query []Hash, a, b uint32) []Hash {
	lo := sort.Search(len(query), func(i int) bool { return query[i].Time >= a })
	hi := sort.Search(len(query), func(i int) bool { return query[i].Time >= b })
	for _, h := range query[lo:hi] {
		dst = append(dst, Hash{Key: h.Key, Time: h.Time - a})
	}
	return dst
}

// unexplained lists the query time the warp search looks at: the music
// no stretch names (Music set), or the gaps between named stretches at
// least a window long; either way the time of every suspect, joined with
// what it touches.
func (ix *Index) unexplained(in []Stretch, suspects []suspect, query []Hash, o TimelineOptions) []audio.Range {
	var out []audio.Range
	if len(o.Music) > 0 {
		for _, s := range in {
			if s.TrackID != "" {
				continue
			}
			if n := len(out); n > 0 && s.StartMs <= out[n-1].EndMs {
				out[n-1].EndMs = max(out[n-1].EndMs, s.EndMs)
			} else {
				out = append(out, audio.Range{StartMs: s.StartMs, EndMs: s.EndMs})
			}
		}
		return out
	}
	var named []Stretch
	for _, s := range in {
		if s.TrackID != "" {
			named = append(named, s)
		}
	}
	all := audio.Range{EndMs: frameMs(query[len(query)-1].Time + 1)}
	for _, r := range all.Subtract(toRanges(named)) {
		if float64(r.EndMs-r.StartMs) >= o.Window*1000 || slices.ContainsFunc(suspects, func(sp suspect) bool {
			return sp.s.StartMs < r.EndMs && r.StartMs < sp.s.EndMs
		}) {
			out = append(out, r)
		}
	}
	return out
}

// warpGap searches one unexplained range: first at the warps the suspects
// inside it were found at, then window by window.
func (ix *Index) warpGap(gap audio.Range, query []Hash, o TimelineOptions, suspects []suspect) []Stretch {
	from, to := msFrame(gap.StartMs), msFrame(gap.EndMs)
	part := hashesIn(nil, query, from, to+1)
	win := uint32(o.Window / FrameSeconds)
	var out []Stretch
	sub := o
	sub.Music, sub.NoWarp = nil, true
	// place bounds the play that the window of win frames at frame w of
	// the gap was found in as c.
	place := func(c WarpedCandidate, w, win uint32) {
		for _, s := range ix.warpedTimeline(part, c, w, win, sub) {
			// Warped time is the track's: query time = from + warped / speed.
			sp := s.Warp().Speed
			start := frameMs(from) + int64(math.Round(float64(s.StartMs)/sp))
			s.StartMs = max(gap.StartMs, start)
			s.EndMs = min(gap.EndMs, frameMs(from)+int64(math.Round(float64(s.EndMs)/sp)))
			s.TrackOffsetMs += int64(math.Round(float64(s.StartMs-start) * sp))
			// A later window may find the same play again: keep only what
			// the stretches found before do not cover.
			slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
			for _, r := range (audio.Range{StartMs: s.StartMs, EndMs: s.EndMs}).Subtract(toRanges(out)) {
				if float64(r.EndMs-r.StartMs) >= o.MinSeconds*1000 {
					x := s
					x.TrackOffsetMs += int64(math.Round(float64(r.StartMs-s.StartMs) * sp))
					x.StartMs, x.EndMs = r.StartMs, r.EndMs
					out = append(out, x)
				}
			}
		}
	}
	for _, sp := range suspects {
		if sp.at >= from && sp.at < to {
			place(sp.c, sp.at-from, sp.win)
		}
	}
	var buf []Hash
	for w := uint32(0); w == 0 || w+win/2 <= to-from; w += win {
		mid := frameMs(from + w + win/2)
		if slices.ContainsFunc(out, func(s Stretch) bool { return s.StartMs <= mid && mid < s.EndMs }) {
			continue
		}
		buf = hashesIn(buf[:0], part, w, w+win)
		c, ok := ix.searchWarp(buf)
		if !ok {
			continue
		}
		place(c, w, win)
	}
	slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	return out
}

// warpedTimeline bounds the play that the window at frame w of part (a
// gap's hashes from its start) was found in as c: the identity timeline
// over part warped by c's warp, the stretches of c's track. A 6-s window
// pins the speed to about half a percent, which over a minute drifts by
// more than the timeline's tolerance; so the speed is measured again over
// the stretch found (driftAt) and the timeline redone at the better speed.
func (ix *Index) warpedTimeline(part []Hash, c WarpedCandidate, w, win uint32, o TimelineOptions) []Stretch {
	wp := c.Warp
	out := ix.trackTimeline(part, c.TrackID, wp, o)
	if len(out) > 0 {
		// The stretch holding the window's middle, or the longest.
		mid := frameMs(uint32(math.Round(float64(w+win/2) * wp.Speed)))
		k := 0
		for i, s := range out {
			if s.StartMs <= mid && mid < s.EndMs || s.EndMs-s.StartMs > out[k].EndMs-out[k].StartMs {
				k = i
			}
		}
		s := out[k]
		a, b := msFrame(s.StartMs), msFrame(s.EndMs)
		wq := wp.Apply(nil, part)
		lo := sort.Search(len(wq), func(i int) bool { return wq[i].Time >= a })
		hi := sort.Search(len(wq), func(i int) bool { return wq[i].Time > b })
		// The better speed is kept only if it explains more of the music:
		// a time shift inside the stretch (a pitch shifter's latency, an
		// edit) can read as a drift.
		if e := ix.driftAt(wq[lo:hi], s.align, (a+b)/2); math.Abs(e) >= driftStep/2 {
			better := Warp{Speed: wp.Speed * (1 + e), Semitones: wp.Semitones}
			if alt := ix.trackTimeline(part, c.TrackID, better, o); covered(alt) > covered(out) {
				out = alt
			}
		}
	}
	for i := range out {
		r := out[i].Warp().rounded()
		out[i].Speed, out[i].Semitones = r.Speed, r.Semitones
	}
	return out
}

// trackTimeline is the identity timeline of part warped by wp, the
// stretches of track id, in warped time.
func (ix *Index) trackTimeline(part []Hash, id string, wp Warp, o TimelineOptions) []Stretch {
	var out []Stretch
	for _, s := range ix.Timeline(wp.Apply(nil, part), o) {
		if s.TrackID == id {
			s.Speed, s.Semitones = wp.Speed, wp.Semitones
			out = append(out, s)
		}
	}
	return out
}

// covered is the query time the stretches (warped time) span, in
// recording milliseconds.
func covered(st []Stretch) int64 {
	var n int64
	for _, s := range st {
		n += s.EndMs - s.StartMs
	}
	return n
}
