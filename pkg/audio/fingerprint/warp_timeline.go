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
	gaps := ix.unexplained(in, suspects, query, o)
	for i := 0; i < len(gaps); {
		// The gaps with nothing named between them share their room.
		room, j := ix.room(gaps[i], in, query), i+1
		for j < len(gaps) && gaps[j].EndMs <= room.EndMs {
			j++
		}
		found = append(found, ix.warpGap(room, gaps[i:j], query, o, suspects)...)
		i = j
	}
	if len(found) == 0 && len(suspects) == 0 {
		return in
	}
	slices.SortFunc(found, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	found = keepWeak(found, suspects, o)
	out := slices.Clone(found)
	for _, sp := range suspects {
		if sp.c.TrackID == "" && sp.beatenIn(found) {
			// A chance identity match inside a warped play (contestable
			// or weak): the warped match explains its time better.
			continue
		}
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
	return dropSlivers(ix.joinWarped(out, query))
}

// suspect is an identity stretch that its track explains better warped:
// the warp found (warpedIdentity) on the window of the query from frame at;
// or, with c's TrackID "", a contestable or weak one (see contestable,
// weakStretch).
type suspect struct {
	s   Stretch
	c   WarpedCandidate
	at  uint32
	win uint32
	// weak: contested only for being weak (weakStretch), not contestable.
	weak bool
}

// beatenBy reports whether the warped stretch f, overlapping the
// contested suspect, explains its time better: it scores more, and for a
// weak suspect warpOverIdentity × more (MatchWarped's rule for a weak
// identity match).
func (sp suspect) beatenBy(f Stretch) bool {
	if sp.weak {
		return float64(f.Score) >= warpOverIdentity*float64(sp.s.Score)
	}
	return f.Score > sp.s.Score
}

// beatenIn reports whether a warped stretch of found overlapping the
// suspect beats it (beatenBy).
func (sp suspect) beatenIn(found []Stretch) bool {
	return slices.ContainsFunc(found, func(f Stretch) bool {
		return f.StartMs < sp.s.EndMs && sp.s.StartMs < f.EndMs && sp.beatenBy(f)
	})
}

// recheck asks of every identity stretch whether its track explains it
// better at a speed or pitch change (warpedIdentity, on at most two
// windows' worth from its middle). Such a stretch leaves in – as
// unexplained music when the options name the music – and is returned
// as a suspect; so is a contestable one (see contestable) or a weak one
// (weakStretch), with no warp.
func (ix *Index) recheck(in []Stretch, query []Hash, o TimelineOptions) ([]Stretch, []suspect) {
	var out []Stretch
	var sus []suspect
	var buf []Hash
	for i, s := range in {
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
		switch {
		case ok:
			sus = append(sus, suspect{s: s, c: c, at: a, win: b - a})
		case contestable(in, i, query, o):
			sus = append(sus, suspect{s: s})
		case weakStretch(s, o):
			sus = append(sus, suspect{s: s, weak: true})
		default:
			out = append(out, s)
			continue
		}
		if len(o.Music) > 0 {
			out = append(out, Stretch{StartMs: s.StartMs, EndMs: s.EndMs})
		}
	}
	return out, sus
}

// contestSeconds: an identity stretch shorter than this (two windows)
// next to music nothing explains may be a chance match inside a song
// played warped – a few seconds of another track that happen to line up
// with the warped song unwarped (measured: traveling_minstrels 2.5–5.4 s
// inside knolls at a playback rate of −5 % or a semitone down, in a
// 3-track index), which then hides the warped song from the warp search:
// the music left around it is too short for a window.
func contestSeconds(o TimelineOptions) float64 { return 2 * o.Window }

// contestable reports whether in[i], an identity stretch, is short
// (contestSeconds) and touches (within mergeGapSeconds) music no stretch
// names: an unnamed stretch when the options name the music, else a gap
// of at least mergeGapSeconds. The warp search then looks at its time with
// the unexplained music's, and a warped stretch over it that scores more
// replaces it (warpStretches); else it keeps its naming.
func contestable(in []Stretch, i int, query []Hash, o TimelineOptions) bool {
	s := in[i]
	if float64(s.EndMs-s.StartMs) >= contestSeconds(o)*1000 {
		return false
	}
	gap := int64(mergeGapSeconds * 1000)
	end := frameMs(query[len(query)-1].Time + 1)
	for _, j := range []int{i - 1, i + 1} {
		var lo, hi int64 // the time beside s up to the neighbour
		switch {
		case j < 0:
			lo, hi = 0, s.StartMs
		case j >= len(in):
			lo, hi = s.EndMs, end
		case j < i:
			lo, hi = in[j].EndMs, s.StartMs
		default:
			lo, hi = s.EndMs, in[j].StartMs
		}
		if len(o.Music) > 0 {
			if j >= 0 && j < len(in) && in[j].TrackID == "" && hi-lo <= gap {
				return true
			}
			continue
		}
		if hi-lo >= gap {
			return true
		}
	}
	return false
}

// weakStretch reports whether s, an identity stretch, is weak the way
// MatchWarped's weakIdentity is: short (contestSeconds) and its best window
// scoring under weakIdentityScores × the windows' least score. A 10-s clip
// of elf-land 5 % fast was named as revelation over 2.9–9.8 s on one
// window of 44 (tuning half; real plays as indexed score 141–330), which
// touched no unexplained music, so it was not contestable and hid the
// warped song from the warp search. The warp search looks at a weak
// stretch's time as at a contestable one's, but replaces it only when a
// warped play over it scores warpOverIdentity × more (beatenBy); else the
// stretch keeps its naming and its time (keepWeak).
func weakStretch(s Stretch, o TimelineOptions) bool {
	return float64(s.EndMs-s.StartMs) < contestSeconds(o)*1000 &&
		s.Score < weakIdentityScores*o.Match.withDefaults().MinScore
}

// keepWeak returns found (warped stretches, by start) without the time of
// the weak suspects that no warped stretch over them beats: a weak
// identity match gives way only to a clearly better warped one.
func keepWeak(found []Stretch, suspects []suspect, o TimelineOptions) []Stretch {
	var kept []audio.Range
	for _, sp := range suspects {
		if sp.weak && !sp.beatenIn(found) {
			kept = append(kept, audio.Range{StartMs: sp.s.StartMs, EndMs: sp.s.EndMs})
		}
	}
	if len(kept) == 0 {
		return found
	}
	var out []Stretch
	for _, f := range found {
		for _, r := range (audio.Range{StartMs: f.StartMs, EndMs: f.EndMs}).Subtract(kept) {
			if float64(r.EndMs-r.StartMs) >= o.MinSeconds*1000 {
				x := f
				x.TrackOffsetMs += int64(math.Round(float64(r.StartMs-f.StartMs) * f.Warp().Speed))
				x.StartMs, x.EndMs = r.StartMs, r.EndMs
				out = append(out, x)
			}
		}
	}
	return out
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

// room is the time around gap up to the named stretches of in (not
// suspects: recheck took them out) on either side, or the query's ends. A
// named stretch that overlaps the gap (a suspect's span can reach a few
// frames into its neighbour's) bounds the room at the gap's edge on its
// side: were it passed over, the warp search would find that stretch's own
// play again and report it twice (TestRoomStopsAtAnOverlappingStretch).
func (ix *Index) room(gap audio.Range, in []Stretch, query []Hash) audio.Range {
	r := audio.Range{EndMs: frameMs(query[len(query)-1].Time + 1)}
	for _, s := range in {
		if s.TrackID == "" {
			continue
		}
		switch {
		case s.EndMs <= gap.StartMs:
			r.StartMs = max(r.StartMs, s.EndMs)
		case s.StartMs >= gap.EndMs:
			r.EndMs = min(r.EndMs, s.StartMs)
		case s.StartMs+s.EndMs < gap.StartMs+gap.EndMs: // overlapping, mostly before
			r.StartMs = max(r.StartMs, gap.StartMs)
		default: // overlapping, mostly after
			r.EndMs = min(r.EndMs, gap.EndMs)
		}
	}
	return r
}

// warpGap searches unexplained ranges (gaps) inside room: first at the
// warps the suspects inside it were found at, then each gap window by
// window. A play found is bounded within room (the time up to the named
// stretches around the gaps): like the identity timeline's, a warped
// song's edges are where its evidence ends, not where music detection's
// ranges do.
func (ix *Index) warpGap(room audio.Range, gaps []audio.Range, query []Hash, o TimelineOptions, suspects []suspect) []Stretch {
	from, to := msFrame(room.StartMs), msFrame(room.EndMs)
	gap := room
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
		if sp.c.TrackID != "" && sp.at >= from && sp.at < to {
			place(sp.c, sp.at-from, sp.win)
		}
	}
	var buf []Hash
	search := func(w, n uint32) {
		mid := frameMs(from + w + n/2)
		if slices.ContainsFunc(out, func(s Stretch) bool { return s.StartMs <= mid && mid < s.EndMs }) {
			return
		}
		buf = hashesIn(buf[:0], part, w, w+n)
		if c, ok := ix.searchWarp(buf); ok {
			place(c, w, n)
		}
	}
	for _, g := range gaps {
		g0, g1 := msFrame(g.StartMs)-from, msFrame(g.EndMs)-from
		found := len(out)
		for w := g0; w == g0 || w+win/2 <= g1; w += win {
			search(w, win)
		}
		// A gap shorter than two windows where they found nothing is
		// searched once more as one window of all of it: a 10-s gap
		// holds more evidence than its 6 s and 4 s apart (in
		// BenchmarkSpeedPitch's timeline column a 10-s clip's warped song
		// was missed on 6 s alone). Only then: a window that straddles
		// two warped songs measures one's speed across the other (one
		// such ran 12 s into the next song in BenchmarkWarpedTimeline).
		if len(out) == found && g1-g0 > win && g1-g0 < 2*win {
			search(g0, g1-g0)
		}
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
	// The window's speed, off by half a percent, drifts by a few frames
	// over half a minute, and a long play can then thin out at its
	// alignment below what refine keeps (a song 5 % slower found at 0.955
	// left nothing over 36 s): the speed is measured again over the
	// windows either side of the one found, at the found alignment.
	if ti := slices.IndexFunc(ix.tracks, func(t Track) bool { return t.ID == c.TrackID }); ti >= 0 {
		at := float64(w) * wp.Speed
		a, b := uint32(max(0, at-float64(win)*wp.Speed)), uint32(at+2*float64(win)*wp.Speed)
		wq := wp.Apply(nil, part)
		lo := sort.Search(len(wq), func(i int) bool { return wq[i].Time >= a })
		hi := sort.Search(len(wq), func(i int) bool { return wq[i].Time > b })
		align := int64(ix.tracks[ti].Start) + int64(math.Round(c.TrackOffset/FrameSeconds-at))
		if e := ix.driftAt(wq[lo:hi], align, uint32(at+float64(win)*wp.Speed/2)); math.Abs(e) >= driftStep/2 {
			better := Warp{Speed: wp.Speed * (1 + e), Semitones: wp.Semitones}
			if alt := ix.trackTimeline(part, c.TrackID, better, o); covered(alt) > covered(out) {
				out, wp = alt, better
			}
		}
	}
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
// stretches of track id, in warped time. Its windows are matched with the
// warp's slack (Apply), its runs bounded on part warped without it: the
// slack emits two or three keys a hash, which lifts the chance evidence a
// run's body is weighed against about three times and the true evidence
// only by half (a quiet 10-s clip a semitone up, the warp search's
// winner by 3.4: 77 true against 28 chance frames with it, 48 against 9
// without), so a real warped play failed coreOverChance. When that finds
// nothing of the track, the windows are matched without the slack too:
// it lifts other tracks' chance scores more than the warped song's, and a
// quiet song two semitones up then won its 6-s windows by only 1.5–1.9
// (under the windows' MinRatio), without it by 1.5–2.2. The slack stays
// first because the warp's shift is known only to a few hundredths of a
// semitone, which moves a high peak by a bin.
func (ix *Index) trackTimeline(part []Hash, id string, wp Warp, o TimelineOptions) []Stretch {
	narrow := wp.apply(nil, part, 0, 0)
	out := ix.ofTrack(ix.timeline(wp.Apply(nil, part), narrow, o), id, wp)
	if len(out) == 0 {
		out = ix.ofTrack(ix.timeline(narrow, narrow, o), id, wp)
	}
	return out
}

// ofTrack returns the stretches of st naming track id, with warp wp.
func (ix *Index) ofTrack(st []Stretch, id string, wp Warp) []Stretch {
	var out []Stretch
	for _, s := range st {
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

// joinSlack (seconds of track time) is how far the later of two warped
// stretches of one track may start from where the earlier one's play
// would have reached and still be the same play: their speeds are each
// measured to about half a percent, which over a gap of several seconds
// moves the prediction by a few tenths.
const joinSlack = 0.5

// joinWarped joins neighbouring warped stretches of one track at one pitch
// whose alignments agree (joinSlack), with nothing named between them, as
// the identity timeline's settleEdges bridges pieces of one play: when the
// gap is under mergeGapSeconds or still holds evidence at the earlier
// one's warp and alignment (holds). The warp search meets a warped song in
// pieces where music detection breaks its range (a quiet bar) or an
// identity sliver took part of it.
func (ix *Index) joinWarped(in []Stretch, query []Hash) []Stretch {
	var out []Stretch
	for _, s := range in {
		if s.TrackID == "" {
			out = append(out, s)
			continue
		}
		k := len(out) - 1
		for k >= 0 && out[k].TrackID == "" {
			k--
		}
		if k < 0 || !ix.samePlay(out[k], s, query) {
			out = append(out, s)
			continue
		}
		p := &out[k]
		p.EndMs = max(p.EndMs, s.EndMs)
		p.Score = max(p.Score, s.Score)
		out = slices.DeleteFunc(out, func(x Stretch) bool { return x.TrackID == "" && x.StartMs >= p.StartMs && x.EndMs <= p.EndMs })
	}
	return out
}

// samePlay reports whether b (starting after a) continues a's warped play.
func (ix *Index) samePlay(a, b Stretch, query []Hash) bool {
	wa, wb := a.Warp(), b.Warp()
	if a.TrackID != b.TrackID || wa.IsIdentity() && wb.IsIdentity() || math.Abs(wa.Semitones-wb.Semitones) > 2*warpReportSemitones {
		return false
	}
	gap := b.StartMs - a.EndMs
	if gap > int64(bridgeSeconds*1000) {
		return false
	}
	// The track time a's play reaches at b's start.
	reach := float64(a.TrackOffsetMs)/1000 + float64(b.StartMs-a.StartMs)/1000*wa.Speed
	if math.Abs(reach-float64(b.TrackOffsetMs)/1000) > joinSlack {
		return false
	}
	if float64(gap) <= mergeGapSeconds*1000 {
		return true
	}
	i := slices.IndexFunc(ix.tracks, func(t Track) bool { return t.ID == a.TrackID })
	if i < 0 {
		return false
	}
	// The gap's hashes at a's warp, their times from its start.
	f0, f1 := msFrame(a.EndMs), msFrame(b.StartMs)
	wq := wa.Apply(nil, hashesIn(nil, query, f0, f1))
	at := float64(a.TrackOffsetMs)/1000 + float64(a.EndMs-a.StartMs)/1000*wa.Speed
	align := int64(ix.tracks[i].Start) + int64(math.Round(at/FrameSeconds))
	return ix.holds(wq, 0, uint32(math.Round(float64(f1-f0)*wa.Speed)), align)
}
