package fingerprint

import (
	"math"
	"slices"
	"sort"

	"musiccatalog/pkg/audio"
)

// Edges at one alignment (issue 16: music under speech). Once the
// stretches are resolved, each track stretch is bound to one alignment and
// its neighbours are known, so its edges can be looked at again with far
// fewer chances of a false match than the search had: only the hashes at
// that one alignment count, and only in the time up to the neighbouring
// stretches. Under narration a song keeps an aligned frame every second or
// so – too few for the body's level refine bounds a run at – and its parts
// come back as pieces with gaps where the voice covered it. Here
//
//   - two stretches of one track at one alignment with nothing between them
//     are one play-through when the gap still holds evidence at that
//     alignment well above chance (bridge): a song does not stop and resume
//     at exactly the offset it would have reached, a mute inside it aside,
//     and a muted gap holds only chance evidence;
//   - each edge is carried outwards while the evidence at the alignment
//     stays above a low level (the likelihood-ratio point between chance
//     and the weak level, see edgeRate), up to the neighbouring stretch
//     (edgeReach at a time, see extendWithin),
//     across gaps of up to edgeGapSeconds without any, but only on evidence
//     worth more than one chance hit (minEdgeGain);
//   - past that, an edge jumps a gap of up to jumpSeconds to a cluster of
//     evidence at the alignment that chance – or music resembling the
//     track – does not explain (jump): the song back after a quiet passage
//     (at a far stricter level where little else sounds next to the edge);
//   - each edge is then moved out by part of the spacing of aligned frames
//     next to it (sparsePad): most of a second under a voice, under a
//     tenth in the clear;
//   - and out to the edge of the music range it lies in (snapToMusic):
//     where something else sounds next to it up to snapSeconds, or up to
//     farSnapSeconds where the time between holds the track; elsewhere up
//     to snapSeconds, to a range edge inside the recording (see
//     maxSnapShare).
const (
	// bridgeSeconds is the longest gap bridged between two stretches of
	// one play-through.
	bridgeSeconds = 15.0
	// bridgeOverChance: the gap's evidence must beat chance by this much,
	// and reach bridgeRate a second.
	bridgeOverChance = 3.0
	bridgeRate       = 0.2
	// edgeReach is how far (seconds) an edge is carried at most.
	edgeReach = 15.0
	// edgeGapSeconds is the longest stretch without evidence an edge is
	// carried across. 4 s found a few more edges 14 dB under a voice, but
	// carried a song across 3.5 s of babble into the end of an outside
	// song that resembles it (pkg/recognition's pipeline test).
	edgeGapSeconds = 2.5
	// minEdgeGain is the least net evidence an extension must add (a
	// frame with two aligned hashes counts 1).
	minEdgeGain = 1.0
)

// settleEdges bridges and extends the track stretches of in (sorted by
// start) at their own alignments, never across a silence; see above.
func (ix *Index) settleEdges(in []Stretch, query []Hash, music, silences []audio.Range) []Stretch {
	if len(query) == 0 {
		return in
	}
	end := query[len(query)-1].Time
	out := slices.Clone(in)
	slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	// Bridges.
	for i := 0; i+1 < len(out); {
		a, b := &out[i], out[i+1]
		gap := float64(b.StartMs-a.EndMs) / 1000
		// Pieces this close are one play-through as in resolve: a weak
		// stretch's remnant next to the strong one it continues.
		// So are pieces a quiet passage apart whose edge facing it is
		// under a voice, as a jump would have reached the next (see jump).
		if a.TrackID != "" && a.TrackID == b.TrackID && math.Abs(a.offset-b.offset) <= offsetSlack &&
			(gap <= mergeGapSeconds || gap <= bridgeSeconds && ix.holds(query, msFrame(a.EndMs), msFrame(b.StartMs), a.align) ||
				gap <= jumpSeconds && ix.coveredEnd(query, *a)) {
			a.EndMs = max(a.EndMs, b.EndMs)
			a.Score = max(a.Score, b.Score)
			out = slices.Delete(out, i+1, i+2)
			continue
		}
		i++
	}
	// Edges.
	for i := range out {
		s := &out[i]
		if s.TrackID == "" {
			continue
		}
		bl, bh := uint32(0), end // the neighbouring stretches
		if i > 0 {
			bl = msFrame(out[i-1].EndMs)
		}
		if i+1 < len(out) {
			bh = min(bh, msFrame(out[i+1].StartMs))
		}
		first, last := msFrame(s.StartMs), msFrame(s.EndMs)
		// A silence is where the video cut from the song: an edge is not
		// carried across it. A jump (a cluster at the alignment within
		// jumpSeconds) carried a song cut under 0-dB noise across the 3 s of
		// near-silence after it and 3.5–12 s into the unknown song that
		// followed (BenchmarkWesnothVideos). Pieces of one play on either
		// side of a rest are still bridged above.
		for _, q := range silences {
			if q.EndMs <= s.StartMs {
				bl = max(bl, min(msFrame(q.EndMs), first))
			}
			if q.StartMs >= s.EndMs {
				bh = min(bh, max(msFrame(q.StartMs)+1, last))
			} else if q.StartMs < s.EndMs && q.EndMs > s.EndMs {
				bh = min(bh, last) // the end lies in a silence
			}
			if q.StartMs < s.StartMs && q.EndMs > s.StartMs {
				bl = max(bl, first) // the start lies in a silence
			}
		}
		lo, hi, ev, f, l, ok := ix.extendWithin(query, s, first, last, bl, bh)
		if !ok {
			continue
		}
		s.StartMs = max(frameMs(lo), s.StartMs-sparsePad(ev, f, 1))
		s.EndMs = min(frameMs(hi), s.EndMs+sparsePad(ev, l, -1))
		if len(music) > 0 {
			from, to := frameMs(lo), frameMs(hi)
			clearStart := explained(query, ev, lo, f, 1) >= maxSnapShare
			clearEnd := explained(query, ev, lo, l, -1) >= maxSnapShare
			if clearStart && !rangeStartsInside(music, s.StartMs) || clearStart && nearNeighbour(out, i, -1) {
				from = s.StartMs
			}
			if clearEnd && !rangeEndsInside(music, s.EndMs, frameMs(end)) || clearEnd && nearNeighbour(out, i, 1) {
				to = s.EndMs
			}
			snapToMusic(s, music, from, to, func(a, b int64, dir int) bool {
				// Only an edge under a voice snaps far (see farSnapSeconds).
				if dir > 0 && clearEnd || dir < 0 && clearStart {
					return false
				}
				return ix.holdsTrack(query, a, b, s.align, dir)
			})
		}
	}
	return out
}

// extendWithin carries the edges of s (first and last frame) over the
// evidence at its alignment within edgeReach, and no further than the
// neighbouring stretches' frames bl and bh (see extendEdges). An edge that
// comes within jumpSeconds of the reach's end – not a neighbour's – is
// carried on from where it got: a song under a voice can go on sparsely
// for longer than edgeReach past the part the windows found (a stretch
// found 23–34 s into a video whose song played from 5 s under the voice
// stopped at 8.8 s, the reach's end, with aligned frames a second apart
// on the way). It returns the frames examined last, lo–hi, their net
// evidence and the edges within them, and false when s does not fit
// within them.
func (ix *Index) extendWithin(query []Hash, s *Stretch, first, last, bl, bh uint32) (lo, hi uint32, ev []float32, f, l int, ok bool) {
	margin := int(math.Round(jumpSeconds / FrameSeconds))
	for pass := 0; pass < maxReachPasses; pass++ {
		nlo := max(bl, uint32(max(0, float64(first)*FrameSeconds-edgeReach)/FrameSeconds))
		nhi := min(bh, uint32((float64(last)*FrameSeconds+edgeReach)/FrameSeconds))
		if nhi <= nlo || first < nlo || last > nhi || last <= first {
			return lo, hi, ev, f, l, pass > 0 // the last pass's
		}
		lo, hi = nlo, nhi
		var near []float32
		ev, near = ix.netEvidence(query, lo, hi, s.align)
		// Chance is measured on each side apart: how many hashes align by
		// chance depends on what else sounds there (a voice, another song).
		cl, cr := ix.chance(query, lo, first, s.align), ix.chance(query, last, hi, s.align)
		// An edge something else sounds at (see maxSnapShare) jumps at
		// jumpAlpha, any other at clearJumpAlpha (see jumpLevel).
		jl := jumpLevel(explained(query, ev, lo, int(first-lo), 1))
		jr := jumpLevel(explained(query, ev, lo, int(last-lo), -1))
		f, l = extendEdges(ev, near, int(first-lo), int(last-lo), cl, cr, jl, jr)
		again := f < int(first-lo) && lo > bl && f < margin ||
			l > int(last-lo) && hi < bh && int(hi-lo)-l < margin
		if f < int(first-lo) {
			s.StartMs = frameMs(lo + uint32(f))
			first = lo + uint32(f)
		}
		if l > int(last-lo) {
			s.EndMs = frameMs(lo+uint32(l)) + ms(endPad)
			last = lo + uint32(l)
		}
		if !again {
			break
		}
	}
	return lo, hi, ev, f, l, true
}

// maxReachPasses bounds the passes of extendWithin (each reaches
// edgeReach further at most). Every pass may jump again (see jump), and
// a song coming back after quiet passages again and again needs it (see
// clearJumpAlpha); each jump is taken only where chance gives its cluster
// with probability under jumpAlpha over all the windows it searches, so
// over all passes chance moves an edge with probability under
// maxReachPasses·jumpAlpha (under 1 %; 1e-5 in the clear) – and a pass
// follows only an edge that got within jumpSeconds of the reach's end.
const maxReachPasses = 8

// Under a voice the first or last seconds of a song can keep no aligned
// frame at all, while music detection, which needs only held partials,
// still hears it: an edge moves out to the edge of the music range
// (Timeline's Music) it lies in, up to snapSeconds, when the track
// explains under maxSnapShare of the query's hashed frames next to it
// (see explained) – when something else sounds there. Where the track
// explains most of them its edge is placed to a fraction of a second,
// better than music detection's blocks of about a second, which also
// smear into noise before a song. Measured on the narration benchmark's
// tuning half: edges under a voice 6–54 % (most under 35 %), songs'
// starts after pink noise (the narrated intros) 43–64 %; music detection
// ran 2–2.5 s past the music into the voice alone once in 24 videos at
// −8 dB, which snapSeconds lets through.
//
// That share is no sure sign of the clear, though: under a voice 8 dB
// over the music a song's edges measured up to 0.6, and such an edge kept
// from the range's edge stopped 1–1.8 s early where music detection,
// which places a range's edge between music and no music to the frame
// (musicdetect, refine.go), ended the range within 0.1 s of the cut
// (narration round 9). So an edge in the clear snaps too – up to
// snapSeconds, never far – to a range edge inside the recording, and
// keeps its place only against a range that starts at the recording's
// start or runs to its last hashed frame (refinement leaves those at
// block resolution, and a recording that opens on noise before the song
// can be called music from 0 s), or where another track's stretch lies
// within farSnapSeconds on that side: between two songs in the clear the
// fingerprint meets its neighbour better than a range edge, and a snap
// past the next song's found start took its own edge away.
const (
	snapSeconds  = 2.5
	maxSnapShare = 1.0 / 3
)

// rangeStartsInside reports whether the music range edge lies in starts
// after the recording's start (see maxSnapShare).
func rangeStartsInside(music []audio.Range, edge int64) bool {
	for _, m := range music {
		if m.StartMs < edge && edge < m.EndMs {
			return m.StartMs > 0
		}
	}
	return false
}

// rangeEndsInside reports whether the music range edge lies in ends
// before lastMs, the query's last hashed frame (see maxSnapShare).
func rangeEndsInside(music []audio.Range, edge, lastMs int64) bool {
	for _, m := range music {
		if m.StartMs < edge && edge < m.EndMs {
			return m.EndMs < lastMs
		}
	}
	return false
}

// nearNeighbour reports whether a track's stretch next to out[i] on side
// dir (−1 before, +1 after) lies within farSnapSeconds of it.
func nearNeighbour(out []Stretch, i, dir int) bool {
	j := i + dir
	if j < 0 || j >= len(out) || out[j].TrackID == "" {
		return false
	}
	gap := out[j].StartMs - out[i].EndMs
	if dir < 0 {
		gap = out[i].StartMs - out[j].EndMs
	}
	return gap < ms(farSnapSeconds)
}

// explained is the share of the query's hashed frames over
// padWindowSeconds from frame edge of ev (dir pointing into the stretch,
// frame 0 of ev at query frame lo) that hold evidence.
func explained(query []Hash, ev []float32, lo uint32, edge, dir int) float64 {
	w := int(math.Round(padWindowSeconds / FrameSeconds))
	a, b := edge, edge+dir*(w-1)
	a, b = max(0, min(a, b)), min(len(ev)-1, max(a, b))
	i := sort.Search(len(query), func(i int) bool { return query[i].Time >= lo+uint32(a) })
	hashed, held := 0, 0
	for prev := int64(-1); i < len(query) && query[i].Time <= lo+uint32(b); i++ {
		if t := int64(query[i].Time); t != prev {
			prev = t
			hashed++
			if ev[t-int64(lo)] > 0 {
				held++
			}
		}
	}
	return float64(held) / float64(max(hashed, 1))
}

// coveredEnd reports whether the track explains under maxSnapShare of the
// query's hashed frames before s's end (see explained).
func (ix *Index) coveredEnd(query []Hash, s Stretch) bool {
	from, to := msFrame(s.StartMs), msFrame(s.EndMs)
	if to <= from {
		return false
	}
	ev, _ := ix.netEvidence(query, from, to, s.align)
	return explained(query, ev, from, int(to-from), -1) < maxSnapShare
}

// Past snapSeconds, up to farSnapSeconds, an edge under a voice moves
// out to the music range's edge only where the time between holds the
// track: at least minFarFrames aligned frames, and as much evidence at the
// stretch's alignment as chance gives with probability under
// farSnapAlpha – the single hashes the chance model of jump expects over
// that time at the chance rate there (see chance), at minChance or at the
// near alignments' rate (see nearShifts), whichever is higher. The song
// going on under the voice, not music that resembles it, nor other music
// or a voice music detection took for the track's (a catalog song ending
// at 30 s, other music on under the narration to 38 s, one music range
// 20–38 s: two chance hits in the 8 s, when chance expects two, must not
// move the end to 38 s; a first version compared the evidence with the
// near alignments' mean alone, which a single chance hit beats about half
// the time, and passed at such rates about 45 % of the time). The
// tolerance frames next to the edge are left out: an aligned frame there
// can be the stretch's own last. On the narration benchmark's tuning
// half (seeds 4–9, 24 videos a level) these edges sat 2.5–9 s inside a
// music range that began or ended within 0.12 s of the cut, with 2–8
// aligned frames in between, mostly single hashes: too few for a jump
// (1e-3) to take. Edges in the clear (a third or more of the hashed
// frames explained) never snap.
const (
	farSnapSeconds = jumpSeconds
	minFarFrames   = 2
	farSnapAlpha   = 0.05
	// farSnapTol is the frames next to the edge left out: Match's default
	// tolerance (see MatchOptions.Tolerance).
	farSnapTol = 2
)

// snapToMusic moves s's edges out to the edges of the music ranges they
// lie in, when those are within [lo, hi] (ms) and within snapSeconds, or
// within farSnapSeconds where held(from, to, dir) (ms; dir +1: the edge
// at from, −1: at to) says the time between holds the track.
func snapToMusic(s *Stretch, music []audio.Range, lo, hi int64, held func(from, to int64, dir int) bool) {
	reach := func(from, to int64, dir int) bool {
		d := float64(to-from) / 1000
		return d <= snapSeconds || d <= farSnapSeconds && held(from, to, dir)
	}
	for _, m := range music {
		if m.StartMs < s.StartMs && s.StartMs < m.EndMs && m.StartMs >= lo && reach(m.StartMs, s.StartMs, -1) {
			s.StartMs = m.StartMs
		}
		if m.StartMs < s.EndMs && s.EndMs < m.EndMs && m.EndMs <= hi && reach(s.EndMs, m.EndMs, 1) {
			s.EndMs = m.EndMs
		}
	}
}

// holdsTrack reports whether query time [from, to] (ms) holds the track
// at align, the stretch's edge at from (dir +1) or at to (dir −1) (see
// farSnapSeconds).
func (ix *Index) holdsTrack(query []Hash, from, to int64, align int64, dir int) bool {
	a, b := msFrame(from), msFrame(to)
	if dir > 0 {
		a += farSnapTol
	} else {
		b -= min(b, farSnapTol)
	}
	if b <= a {
		return false
	}
	raw := ix.evidence(query, a, b, align)
	_, near := ix.netEvidence(query, a, b, align)
	n := 0
	for _, e := range raw {
		if e > 0 {
			n++
		}
	}
	secs := float64(b-a+1) * FrameSeconds
	rate := max(ix.chance(query, a, b, align), minChance, sum(near)/secs)
	lambda := rate * secs / singleWeight // expected chance singles
	return n >= minFarFrames && poissonTail(lambda, int(sum(raw)/singleWeight+1e-6)) <= farSnapAlpha
}

// sparsePad is how far (ms) the music most likely goes on past an edge
// at frame edge of ev, dir pointing into the stretch: the last aligned
// frame precedes the music's end (the first follows its start) by up to
// the spacing of aligned frames, which under a voice is a second or so and
// in the clear a frame or two. padShare of the mean spacing over
// padWindowSeconds inside the edge, at most maxPadSeconds.
func sparsePad(ev []float32, edge, dir int) int64 {
	w := int(math.Round(padWindowSeconds / FrameSeconds))
	n := 0
	for i := edge; i >= 0 && i < len(ev) && dir*(i-edge) < w; i += dir {
		if ev[i] > 0 {
			n++
		}
	}
	return ms(min(maxPadSeconds, padShare*padWindowSeconds/float64(max(n, 1))))
}

// Measured on the narration benchmark's tuning half (−8 dB bounds 79 →
// 92 %; shares 0.5 and 1 gave 88 %), the timelines unchanged.
const (
	padWindowSeconds = 3.0
	padShare         = 0.75
	maxPadSeconds    = 1.0
)

// holds reports whether frames [from, to] hold evidence at align well
// above chance (bridgeOverChance, bridgeRate).
func (ix *Index) holds(query []Hash, from, to uint32, align int64) bool {
	if to <= from {
		return false
	}
	secs := float64(to-from+1) * FrameSeconds
	got := sum(ix.evidence(query, from, to, align)) / secs
	return got >= bridgeRate && got >= bridgeOverChance*ix.chance(query, from, to, align)
}

// nearShifts (seconds) are alignments close to a stretch's. Music that
// merely resembles the track – the same key and tempo, a shared sample –
// aligns with it about as well a beat or two off as at the alignment
// itself, while the track playing on aligns sharply (measured on the
// wesnoth timelines: past a cut into an outside song that resembles the
// last one, the stretch's alignment and ±0.5–1 s held 1–1.5 hits a
// second alike; in the song itself the alignment held 2.5 times as many).
var nearShifts = [...]float64{-1.1, -0.6, 0.6, 1.1}

// netEvidence is evidence at align less the mean at the nearShifts, frame
// by frame; near is that mean.
func (ix *Index) netEvidence(query []Hash, from, to uint32, align int64) (net, near []float32) {
	net = ix.evidence(query, from, to, align)
	near = make([]float32, len(net))
	for _, sh := range nearShifts {
		for i, e := range ix.evidence(query, from, to, align+int64(math.Round(sh/FrameSeconds))) {
			near[i] += e / float32(len(nearShifts))
		}
	}
	for i := range net {
		net[i] -= near[i]
	}
	return net, near
}

// edgeShifts are the chance alignments of the edges (seconds from the
// stretch's): more than bgShifts, since an edge region is short.
var edgeShifts = [...]float64{-13.7, -8.3, -5.3, 5.3, 8.3, 13.7, 21.1}

// chance is the evidence a second at alignments shifted by bgShifts from
// align over frames [from, to]: the median of the shifts.
func (ix *Index) chance(query []Hash, from, to uint32, align int64) float64 {
	var bgs []float64
	for _, sh := range edgeShifts {
		bgs = append(bgs, sum(ix.evidence(query, from, to, align+int64(math.Round(sh/FrameSeconds)))))
	}
	slices.Sort(bgs)
	return bgs[len(bgs)/2] / (float64(to-from+1) * FrameSeconds)
}

// minChance is the least chance rate (evidence a second) edges assume.
const minChance = 0.02

// edgeRate is the evidence a second an edge is carried at, given the
// chance rate c: the point where evidence is as likely from music at the
// weak level w (the least a run is kept at, see refine) as from chance,
// (w − c) / ln(w / c) for Poisson-like counts.
func edgeRate(c float64) float64 {
	c = max(c, minChance)
	w := max(coreOverChance*c, minCore)
	return (w - c) / math.Log(w/c)
}

// extendEdges moves first back and last on over ev while Σ(ev − p) over
// the added frames grows, p the edgeRate of the chance rates cl and cr
// (evidence a second on either side), across at most edgeGapSeconds
// without evidence. Evidence beyond a gap longer than extendGapSeconds
// must add minEdgeGain on its own (as must the first), so a lone chance hit
// never moves an edge. Past that, an edge jumps a longer gap (up to
// jumpSeconds) to a cluster chance does not explain (see jump) – a quiet
// passage of the song, or a stretch the voice covers whole – and is
// carried on from there, on the left at level jl and on the right at jr
// (see jump; 0: no jump).
func extendEdges(ev, near []float32, first, last int, cl, cr, jl, jr float64) (int, int) {
	return extendEdge(ev, near, first, -1, cl, jl), extendEdge(ev, near, last, 1, cr, jr)
}

// extendEdge carries edge in direction dir (−1, +1), jumping gaps at
// level alpha; see extendEdges.
func extendEdge(ev, near []float32, edge, dir int, c, alpha float64) int {
	p := edgeRate(c) * FrameSeconds
	to := carryEdge(ev, edge, dir, p)
	for alpha > 0 {
		j := jump(ev, near, to, dir, c, alpha)
		if j == to {
			return to
		}
		to = carryEdge(ev, j, dir, p)
	}
	return to
}

// carryEdge carries edge in direction dir at level p (per frame).
func carryEdge(ev []float32, edge, dir int, p float64) int {
	gap := int(math.Round(edgeGapSeconds / FrameSeconds))
	short := int(math.Round(extendGapSeconds / FrameSeconds))
	cur, best, base, to, seen := 0.0, 0.0, 0.0, edge, edge
	for i := edge + dir; i >= 0 && i < len(ev) && dir*(i-seen) <= gap; i += dir {
		if ev[i] > 0 && dir*(i-seen) > short {
			base = cur // the cluster after a long gap is judged alone
		}
		cur += float64(ev[i]) - p
		if ev[i] > 0 {
			seen = i
			if cur > best && cur-base >= minEdgeGain {
				best, to = cur, i
			}
		}
	}
	return to
}

// Jumps. Under a voice a song's quiet passage (a break, a fade, a bar of
// one soft instrument) keeps no aligned frame for seconds, and the song
// comes back at the same alignment after it; so does a song whose first
// seconds the voice covers but for a loud chord. A cluster of net
// evidence within jumpSeconds of an edge, over jumpWindowSeconds, is taken
// when chance would give that much in any of the windows searched with
// probability under jumpAlpha: aligned frames, each a single hash, at the
// chance rate or at the near alignments' rate over the gap crossed,
// whichever is higher. Music that resembles the track (the next song
// sharing its key, tempo or a sample) lines up now and then at the
// alignment but as well a beat off (see nearShifts); the track coming back
// does so at the alignment alone.
//
// Where the track explains a third or more of the query's hashed frames
// next to the edge (see explained), the cluster must be far less likely
// by chance, clearJumpAlpha: in the clear a song's evidence seldom stops
// for seconds while it plays, and the next song, warped or not in the
// index, may line up with it now and then (a first version let such an
// edge jump at jumpAlpha into the pitch-shifted song next to it,
// BenchmarkWarpedTimeline). But that share is no sure sign of the clear:
// under a voice 8–14 dB over it a song's edges measured 0.1–0.6 (the
// narration benchmark's tuning half, 144 videos of 3 × 24 draws), and
// with no jump at all two narrated songs whose edges measured 0.34–0.36
// ended 9 and 14 s early, where a passage went under the voice whole:
// the song came back at its alignment 3–8 s on, a few aligned frames in
// 3 s, again and again to its end. At clearJumpAlpha both ends are
// found, and the catalog timelines and BenchmarkWarpedTimeline are
// unchanged.
const (
	jumpSeconds       = 10.0
	jumpWindowSeconds = 3.0
	jumpAlpha         = 1e-3
	clearJumpAlpha    = 1e-6
	// minGapSeconds bounds the time the near alignments' rate is taken
	// over from below.
	minGapSeconds = 1.0
)

// jump returns the farthest evidence frame of the nearest significant
// cluster (see above; chance below alpha) past edge in direction dir, or
// edge. near may be nil (no near alignments measured).
func jump(ev, near []float32, edge, dir int, c, alpha float64) int {
	reach := int(math.Round(jumpSeconds / FrameSeconds))
	w := int(math.Round(jumpWindowSeconds / FrameSeconds))
	tries := jumpSeconds / jumpWindowSeconds
	nearSum := 0.0 // near evidence over (edge, i)
	for i := edge + dir; i >= 0 && i < len(ev) && dir*(i-edge) <= reach; i += dir {
		if ev[i] > 0 {
			var got float64
			far := i
			for k := i; k >= 0 && k < len(ev) && dir*(k-i) < w; k += dir {
				got += float64(ev[k])
				if ev[k] > 0 {
					far = k
				}
			}
			gap := float64(dir*(i-edge)) * FrameSeconds
			rate := max(c, minChance, nearSum/max(gap, minGapSeconds))
			// Expected chance singles in a window.
			lambda := rate * jumpWindowSeconds / singleWeight
			if poissonTail(lambda, int(got/singleWeight+1e-6))*tries <= alpha {
				return far
			}
		}
		if near != nil {
			nearSum += float64(near[i])
		}
	}
	return edge
}

// jumpLevel is the level an edge jumps at (see jump), given the share of
// the query's hashed frames the track explains next to it (see
// explained).
func jumpLevel(share float64) float64 {
	if share < maxSnapShare {
		return jumpAlpha
	}
	return clearJumpAlpha
}

// poissonTail is P(X ≥ k) for X Poisson with mean lambda.
func poissonTail(lambda float64, k int) float64 {
	if k <= 0 {
		return 1
	}
	term, below := math.Exp(-lambda), 0.0
	for n := 0; n < k; n++ {
		below += term
		term *= lambda / float64(n+1)
	}
	return max(0, 1-below)
}
