package fingerprint

import (
	"math"
	"slices"
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
//     and the weak level, see edgeRate), up to the neighbouring stretch,
//     across gaps of up to edgeGapSeconds without any, but only on evidence
//     worth more than one chance hit (minEdgeGain);
//   - each edge is then moved out by part of the spacing of aligned frames
//     next to it (sparsePad): most of a second under a voice, under a
//     tenth in the clear.
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
// start) at their own alignments; see above.
func (ix *Index) settleEdges(in []Stretch, query []Hash) []Stretch {
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
		if a.TrackID != "" && a.TrackID == b.TrackID && math.Abs(a.offset-b.offset) <= offsetSlack &&
			(gap <= mergeGapSeconds || gap <= bridgeSeconds && ix.holds(query, msFrame(a.EndMs), msFrame(b.StartMs), a.align)) {
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
		lo := uint32(max(0, float64(s.StartMs)/1000-edgeReach) / FrameSeconds)
		hi := min(end, uint32((float64(s.EndMs)/1000+edgeReach)/FrameSeconds))
		if i > 0 {
			lo = max(lo, msFrame(out[i-1].EndMs))
		}
		if i+1 < len(out) {
			hi = min(hi, msFrame(out[i+1].StartMs))
		}
		first, last := msFrame(s.StartMs), msFrame(s.EndMs)
		if hi <= lo || first < lo || last > hi || last <= first {
			continue
		}
		last = min(last, hi)
		ev := ix.netEvidence(query, lo, hi, s.align)
		// Chance is measured on each side apart: how many hashes align by
		// chance depends on what else sounds there (a voice, another song).
		pl := edgeRate(ix.chance(query, lo, first, s.align)) * FrameSeconds
		pr := edgeRate(ix.chance(query, last, hi, s.align)) * FrameSeconds
		f, l := extendEdges(ev, int(first-lo), int(last-lo), pl, pr)
		if f < int(first-lo) {
			s.StartMs = frameMs(lo + uint32(f))
		}
		if l > int(last-lo) {
			s.EndMs = frameMs(lo+uint32(l)) + ms(endPad)
		}
		s.StartMs = max(frameMs(lo), s.StartMs-sparsePad(ev, f, 1))
		s.EndMs = min(frameMs(hi), s.EndMs+sparsePad(ev, l, -1))
	}
	return out
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
// by frame.
func (ix *Index) netEvidence(query []Hash, from, to uint32, align int64) []float32 {
	ev := ix.evidence(query, from, to, align)
	for _, sh := range nearShifts {
		for i, e := range ix.evidence(query, from, to, align+int64(math.Round(sh/FrameSeconds))) {
			ev[i] -= e / float32(len(nearShifts))
		}
	}
	return ev
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

// edgeRate is the evidence a second an edge is carried at, given the
// chance rate c: the point where evidence is as likely from music at the
// weak level w (the least a run is kept at, see refine) as from chance,
// (w − c) / ln(w / c) for Poisson-like counts.
func edgeRate(c float64) float64 {
	c = max(c, 0.02)
	w := max(coreOverChance*c, minCore)
	return (w - c) / math.Log(w/c)
}

// extendEdges moves first back and last on over ev while Σ(ev − p) over
// the added frames grows, across at most edgeGapSeconds without evidence.
// Evidence beyond a gap longer than extendGapSeconds must add minEdgeGain
// on its own (as must the first), so a lone chance hit never moves an edge.
func extendEdges(ev []float32, first, last int, pl, pr float64) (int, int) {
	return extendEdge(ev, first, -1, pl), extendEdge(ev, last, 1, pr)
}

// extendEdge carries edge in direction dir (−1, +1); see extendEdges.
func extendEdge(ev []float32, edge, dir int, p float64) int {
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
