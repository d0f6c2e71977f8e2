package fingerprint

import (
	"math"
	"slices"
)

// Speed and pitch changes (issue 16 item 2). Short-form video plays songs
// faster or slower (tempo and pitch together, as a tape would) and shifts
// their pitch; a landmark key holds absolute frequencies and a time
// difference, so a 5 % change moves a peak at 2 kHz by 19 bins and no key
// survives. Rather than re-index with ratio-invariant keys (Panako's
// triplets, which cost index size and discrimination), a query that the
// identity search does not explain is warped: each hash is mapped back to
// the frequencies and times it would have at a candidate speed and pitch –
// anchor and frequency difference divided by the pitch ratio, time
// difference and anchor time multiplied by the speed – and looked up again.
// The candidates form two families, playback-rate changes (pitch ratio =
// speed) and pitch shifts at kept tempo; a time-stretch with kept pitch is
// mostly absorbed by the identity search (Spread and the offset
// tolerance). The best cell is then refined on a finer grid, which gives
// the reported speed and shift.

// Warp is a speed and pitch change of a query against the indexed music.
type Warp struct {
	// Speed is the query's tempo over the track's: 1.05 plays 5 % faster.
	Speed float64
	// Semitones is the query's pitch over the track's.
	Semitones float64
}

// Identity is no change.
var Identity = Warp{Speed: 1}

// IsIdentity reports whether w is no change within the search's precision.
func (w Warp) IsIdentity() bool {
	return math.Abs(w.Speed-1) < warpReportSpeed && math.Abs(w.Semitones) < warpReportSemitones
}

// Precision below which a speed or shift is reported as none.
const (
	warpReportSpeed     = 0.0075
	warpReportSemitones = 0.13
)

// WarpedCandidate is a Candidate with the warp it was found at; its
// TrackOffset is in track time, QueryStart and QueryEnd in query time.
type WarpedCandidate struct {
	Candidate
	Warp Warp
}

// Search grid. A hash is warped onto every key its anchor and frequency
// difference may fall into at the cell's ratio ± warpTolBins (the query
// peak's own rounding and the key's 2-bin quantum make the warped position
// uncertain by about a bin either way), so a cell covers its neighbours'
// ratios partly and the grid can be coarser than a peak's precision.
const (
	// warpRange bounds the search: ±9 % playback rate, ±2.4 semitones.
	warpRateRange     = 0.09
	warpSemitoneRange = 2.4
	// warpStep is the coarse grid step in semitones (of pitch ratio).
	warpStep = 0.16
	// warpTolBins widens a warped frequency's interval on each side.
	warpTolBins = 0.6
	// warpFineTolBins is the slack of the refinement.
	warpFineTolBins = 0.15
	// warpMinScore and warpMinRatio accept a warped match: more than the
	// identity search asks, because the best of many cells is taken.
	warpMinScore = 24
	warpMinRatio = 2.2
)

// warpCells returns the coarse grid: playback rates (tempo and pitch
// together) and pitch shifts at kept tempo, identity excluded.
func warpCells() []Warp {
	var out []Warp
	for s := warpStep; s <= warpSemitoneRange+1e-9; s += warpStep {
		for _, sign := range []float64{1, -1} {
			out = append(out, Warp{Speed: 1, Semitones: sign * s})
			if r := math.Exp2(sign * s / 12); math.Abs(r-1) <= warpRateRange+1e-9 {
				out = append(out, Warp{Speed: r, Semitones: sign * s})
			}
		}
	}
	return out
}

var coarseCells = warpCells()

// Apply appends to dst the hashes of query (QueryOptions hashes of audio
// played at w) as they would be at the track's speed and pitch.
func (w Warp) Apply(dst, query []Hash) []Hash {
	return w.apply(dst, query, warpTolBins)
}

// apply is Apply with tol bins of slack on either side of a warped
// frequency.
func (w Warp) apply(dst, query []Hash, tol float64) []Hash {
	inv := math.Exp2(-w.Semitones / 12) // track frequency over query frequency
	for _, h := range query {
		q := float64(h.Key >> 13)
		d := float64(h.Key >> 6 & 127)
		dt := float64(h.Key & 63)
		// The anchor's bin is 2q or 2q+1 (relative to minBin); the
		// frequency difference 2d−128 or one more.
		fLo := (2*q+minBin)*inv - minBin - tol
		fHi := (2*q+minBin+1)*inv - minBin + tol
		x, y := (2*d-128)*inv, (2*d-127)*inv
		dLo, dHi := min(x, y)-tol, max(x, y)+tol
		ndt := uint32(math.Round(dt * w.Speed))
		t := uint32(math.Round(float64(h.Time) * w.Speed))
		if ndt < 1 || ndt > maxTarget {
			continue
		}
		a0, a1 := int32(math.Ceil(max(0, fLo)))/fQ, int32(math.Floor(min(nBins-1, fHi)))/fQ
		d0 := (int32(math.Ceil(max(-127, dLo))) + 64*fQ) / fQ
		d1 := (int32(math.Floor(min(127, dHi))) + 64*fQ) / fQ
		for a := a0; a <= a1; a++ {
			for dq := d0; dq <= d1; dq++ {
				if dq == 64 { // |df| < fQ: never indexed
					continue
				}
				dst = append(dst, Hash{Key: uint32(a)<<13 | uint32(dq)<<6 | ndt, Time: t})
			}
		}
	}
	return dst
}

// warpSearch holds the scratch of one search.
type warpSearch struct {
	ix    *Index
	query []Hash
	buf   []Hash
}

// cell matches the query warped by w with relaxed options, so that
// runners-up are seen.
func (s *warpSearch) cell(w Warp) []Candidate {
	s.buf = w.Apply(s.buf[:0], s.query)
	return s.ix.Match(s.buf, MatchOptions{MaxCandidates: 5, MinScore: 5, MinRatio: 0.5})
}

// MatchWarped is Match, and when Match finds nothing, the search over
// speed and pitch: the best warped match whose score reaches warpMinScore
// and beats every other track's best over all cells by warpMinRatio.
// Identity matches come back with Warp Identity. It is safe for concurrent
// use.
func (ix *Index) MatchWarped(query []Hash, opts MatchOptions) []WarpedCandidate {
	if cs := ix.Match(query, opts); len(cs) > 0 {
		out := make([]WarpedCandidate, len(cs))
		for i, c := range cs {
			out[i] = WarpedCandidate{Candidate: c, Warp: Identity}
		}
		return out
	}
	c, ok := ix.searchWarp(query)
	if !ok {
		return nil
	}
	return []WarpedCandidate{c}
}

func (ix *Index) searchWarp(query []Hash) (WarpedCandidate, bool) {
	s := &warpSearch{ix: ix, query: query}
	bestByTrack := map[string]int{}
	var best WarpedCandidate
	consider := func(w Warp, cs []Candidate) {
		for _, c := range cs {
			bestByTrack[c.TrackID] = max(bestByTrack[c.TrackID], c.Score)
			if c.Score > best.Score {
				best = WarpedCandidate{Candidate: c, Warp: w}
			}
		}
	}
	consider(Identity, ix.Match(query, MatchOptions{MaxCandidates: 5, MinScore: 5, MinRatio: 0.5}))
	limit := math.Inf(1)
	for _, w := range coarseCells {
		if math.Abs(w.Semitones) > limit+1e-9 {
			break
		}
		consider(w, s.cell(w))
		// The cells go outwards from no change. Once one wins plainly,
		// the change is near: the cells up to two steps further (both
		// families) settle which it is, and the rest need not be looked at.
		if math.IsInf(limit, 1) && s.clear(best, bestByTrack) {
			limit = math.Abs(w.Semitones) + 2*warpStep
		}
	}
	if best.Score < warpMinScore/2 {
		return WarpedCandidate{}, false
	}
	// Refine around the best cell: the shift on a finer grid, scored with
	// less slack (the coarse cells' slack makes their scores flat over
	// ±0.1 semitone), then the speed from the drift of the aligned hashes.
	center, top := best.Warp, 0
	for _, ds := range []float64{0, -0.04, 0.04, -0.08, 0.08, -0.12, 0.12} {
		w := Warp{Speed: center.Speed, Semitones: center.Semitones + ds}
		s.buf = w.apply(s.buf[:0], query, warpFineTolBins)
		for _, c := range ix.Match(s.buf, MatchOptions{MaxCandidates: 5, MinScore: 5, MinRatio: 0.5}) {
			if c.TrackID == best.TrackID && c.Score > top {
				top, best.Warp.Semitones = c.Score, w.Semitones
			}
		}
	}
	s.buf = best.Warp.Apply(s.buf[:0], query)
	best.Warp.Speed *= 1 + ix.drift(s.buf, best.Candidate)
	other := 0
	for id, sc := range bestByTrack {
		if id != best.TrackID {
			other = max(other, sc)
		}
	}
	best.Ratio = float64(best.Score) / float64(max(other, 1))
	if best.Score < warpMinScore || best.Ratio < warpMinRatio {
		return WarpedCandidate{}, false
	}
	best.QueryStart /= best.Warp.Speed
	best.QueryEnd /= best.Warp.Speed
	best.Warp = best.Warp.rounded()
	return best, true
}

// clear reports whether best wins so plainly that the rest of the coarse
// grid need not be looked at: three times the least score and three
// times any other track's.
func (s *warpSearch) clear(best WarpedCandidate, byTrack map[string]int) bool {
	if best.Score < 3*warpMinScore {
		return false
	}
	for id, sc := range byTrack {
		if id != best.TrackID && 3*sc > best.Score {
			return false
		}
	}
	return true
}

// rounded is w at the precision the search has: speed to 0.005 (none
// within warpReportSpeed of 1), semitones to 0.1.
func (w Warp) rounded() Warp {
	out := Warp{Speed: math.Round(w.Speed*200) / 200, Semitones: math.Round(w.Semitones*10) / 10}
	if math.Abs(w.Speed-1) < warpReportSpeed {
		out.Speed = 1
	}
	if math.Abs(w.Semitones) < warpReportSemitones {
		out.Semitones = 0
	}
	return out
}

// drift estimates the relative speed error e of a warped query matched as
// c: the track frame of a query hash at warped time t lies at
// align + t·(1+e). A 10-s query spans about 215 frames, so a speed off by
// 1 % moves its ends by only two frames, within Match's tolerance, and the
// scores of neighbouring cells barely differ; the aligned hashes' drift
// measures it directly. Each hash whose key occurs near its expected
// frame gives a residual; the line that most
// residuals agree with (±1 frame) is e.
func (ix *Index) drift(query []Hash, c Candidate) float64 {
	i := slices.IndexFunc(ix.tracks, func(t Track) bool { return t.ID == c.TrackID })
	if i < 0 {
		return 0
	}
	return ix.driftAt(query, int64(ix.tracks[i].Start)+int64(math.Round(c.TrackOffset/FrameSeconds)), 0)
}

// driftAt is drift for the alignment align (global frame at query frame
// 0), with the error line through query frame ref.
func (ix *Index) driftAt(query []Hash, align int64, ref uint32) float64 {
	type point struct{ t, r float64 }
	var pts []point
	for _, h := range query {
		g := align + int64(h.Time)
		dt := float64(h.Time) - float64(ref)
		reach := int64(driftRange*math.Abs(dt)) + 2
		ps := ix.postings(h.Key)
		j, _ := slices.BinarySearch(ps, uint32(max(0, g-reach)))
		for ; j < len(ps) && int64(ps[j]) <= g+reach; j++ {
			pts = append(pts, point{dt, float64(int64(ps[j]) - g)})
		}
	}
	// A line r = r0 + e·t: Match's offset is that of its densest window,
	// not of the query's start, so r0 is free too (within a few frames).
	const span = 16
	var hist [2*span + 1]int
	best, bestN := 0.0, 0
	for e := -driftRange; e <= driftRange+1e-9; e += driftStep {
		clear(hist[:])
		for _, p := range pts {
			if k := int(math.Round(p.r-e*p.t)) + span; k >= 0 && k < len(hist) {
				hist[k]++
			}
		}
		for k := 1; k+1 < len(hist); k++ {
			n := hist[k-1] + hist[k] + hist[k+1]
			if n > bestN || (n == bestN && math.Abs(e) < math.Abs(best)) {
				best, bestN = e, n
			}
		}
	}
	return best
}

// driftRange bounds the speed correction drift looks for (the refinement
// grid's half step is within it); driftStep is its resolution.
const (
	driftRange = 0.025
	driftStep  = 0.001
)
