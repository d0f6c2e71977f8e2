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
	// warpStep is the grid step in semitones (of pitch ratio) of the
	// refinement's first stage.
	warpStep = 0.16
	// warpTolBins widens a warped frequency's interval on each side.
	warpTolBins = 0.6
	// warpFineTolBins is the slack of the refinement's second stage.
	warpFineTolBins = 0.15
	// warpMinScore and warpMinRatio accept a warped match: more than the
	// identity search asks, because the best of many cells is taken.
	warpMinScore = 24
	warpMinRatio = 2.2
)

// The coarse pass finds the track and the cell cheaply: its cells are
// twice warpStep apart, the warped intervals widened by a quarter step of
// ratio besides warpTolBins (a cell and its neighbours overlap), and it
// warps only a sample of the query – hashes whose anchor lies below
// warpCoarseMaxBin, without Spread's copies, about a tenth of them. Low
// anchors move least under a change of pitch, so a cell's uncertainty
// costs them few extra keys, and one hash per peak pair is enough to tell
// which track and cell stand out. The cell is then refined with the whole
// query against that track alone (Index.match within it), and the result
// checked against every track at the cell found. Measured against 100
// hours (thread CPU, 10-s query): 5 % faster 4.0 s → 0.19 s, 2 semitones
// down 31 s → 0.34 s; on BenchmarkSpeedPitch's clips recall went up (184
// of 192 warped clips found against 178) with no false positive. A larger
// sample (anchors below 256 bins) or the whole step of slack found no
// more and cost 1.5–2×.
const (
	warpCoarseStep   = 2 * warpStep
	warpCoarseMaxBin = 192
	// warpCoarseMinScore is the least coarse score worth refining (the
	// sample holds about a tenth of the query's hashes).
	warpCoarseMinScore = 10
	// warpCoarseMinRatio is the least ratio over the other tracks' best
	// coarse scores worth refining: the sample's scores are small numbers,
	// so it is lenient, and warpMinRatio is asked at the cell found.
	warpCoarseMinRatio = 1.5
)

// warpCells returns the grid of step semitones: playback rates (tempo and
// pitch together) and pitch shifts at kept tempo, identity excluded,
// outwards from no change.
func warpCells(step float64) []Warp {
	var out []Warp
	for s := step; s <= warpSemitoneRange+step/2; s += step {
		for _, sign := range []float64{1, -1} {
			out = append(out, Warp{Speed: 1, Semitones: sign * s})
			if r := math.Exp2(sign * s / 12); math.Abs(r-1) <= warpRateRange+step/24 {
				out = append(out, Warp{Speed: r, Semitones: sign * s})
			}
		}
	}
	return out
}

var coarseCells = warpCells(warpCoarseStep)

// coarseSample is the part of query the coarse pass warps.
func coarseSample(query []Hash) []Hash {
	var out []Hash
	for _, h := range query {
		h.Key &= keyMask
		if 2*(h.Key>>13) >= warpCoarseMaxBin {
			continue
		}
		// Spread emits a pair's copies right after it: same anchor frame
		// and frequencies, a frame of time difference apart.
		if n := len(out); n > 0 && out[n-1].Time == h.Time && out[n-1].Key>>6 == h.Key>>6 &&
			(out[n-1].Key&63 == h.Key&63+1 || out[n-1].Key&63+1 == h.Key&63) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// Apply appends to dst the hashes of query (QueryOptions hashes of audio
// played at w) as they would be at the track's speed and pitch.
func (w Warp) Apply(dst, query []Hash) []Hash {
	return w.apply(dst, query, warpTolBins, 0)
}

// apply is Apply with tol bins of slack on either side of a warped
// frequency, for every pitch ratio within a factor 2^(±rel/12) of w's.
func (w Warp) apply(dst, query []Hash, tol, rel float64) []Hash {
	inv := math.Exp2(-w.Semitones / 12) // track frequency over query frequency
	lo, hi := math.Exp2(-rel/12), math.Exp2(rel/12)
	for _, h := range query {
		h.Key &= keyMask
		q := float64(h.Key >> 13)
		d := float64(h.Key >> 6 & 127)
		dt := float64(h.Key & 63)
		// The anchor's bin is 2q or 2q+1 (relative to minBin); the
		// frequency difference 2d−128 or one more.
		fLo := (2*q+minBin)*inv*lo - minBin - tol
		fHi := (2*q+minBin+1)*inv*hi - minBin + tol
		x, y := (2*d-128)*inv, (2*d-127)*inv
		dLo, dHi := min(x*lo, x*hi, y*lo, y*hi)-tol, max(x*lo, x*hi, y*lo, y*hi)+tol
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

// relaxed are the options of the search's matches: runners-up are seen.
func relaxed(minScore int) MatchOptions {
	return MatchOptions{MaxCandidates: 5, MinScore: minScore, MinRatio: 0.5}
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

// searchWarp finds the track and cell on the coarse grid with a sample of
// the query (see coarseSample), then refines the cell with the whole query
// matched against that track only, and checks the result against every
// track at the cell found.
func (ix *Index) searchWarp(query []Hash) (WarpedCandidate, bool) {
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
	sample := coarseSample(query)
	consider(Identity, ix.Match(sample, relaxed(warpCoarseMinScore)))
	var buf []Hash
	limit := math.Inf(1)
	for _, w := range coarseCells {
		if math.Abs(w.Semitones) > limit+1e-9 {
			break
		}
		buf = w.apply(buf[:0], sample, warpTolBins, warpCoarseStep/4)
		consider(w, ix.Match(buf, relaxed(warpCoarseMinScore)))
		// The cells go outwards from no change. Once one wins plainly,
		// the change is near: the cells up to two steps further (both
		// families) settle which it is, and the rest need not be looked at.
		if math.IsInf(limit, 1) && clearWin(best, bestByTrack, 3*warpCoarseMinScore) {
			limit = math.Abs(w.Semitones) + 2*warpCoarseStep
		}
	}
	coarseBest, coarseRatio := best.Score, ratioOver(best, bestByTrack)
	if coarseBest < warpCoarseMinScore || coarseRatio < warpCoarseMinRatio {
		return WarpedCandidate{}, false
	}
	i := slices.IndexFunc(ix.tracks, func(t Track) bool { return t.ID == best.TrackID })
	track := ix.tracks[i]
	within := Track{Start: track.Start - min(track.Start, trackGap/2), Frames: track.Frames + trackGap}
	// First stage: the coarse cell's step on the finer grid, the whole
	// query against the track found.
	center, found := best.Warp, false
	family := func(semitones float64) Warp {
		if center.Speed == 1 {
			return Warp{Speed: 1, Semitones: semitones}
		}
		return Warp{Speed: math.Exp2(semitones / 12), Semitones: semitones}
	}
	for _, ds := range []float64{0, -warpStep, warpStep} {
		w := family(center.Semitones + ds)
		buf = w.apply(buf[:0], query, warpTolBins, 0)
		for _, c := range ix.match(buf, relaxed(warpMinScore/2), within) {
			if c.TrackID == best.TrackID && (!found || c.Score > best.Score) {
				best, found = WarpedCandidate{Candidate: c, Warp: w}, true
			}
		}
	}
	if !found {
		return WarpedCandidate{}, false
	}
	// Second stage: the shift on a finer grid, scored with less slack (the
	// cells' slack makes their scores flat over ±0.1 semitone), then the
	// speed from the drift of the aligned hashes.
	center, top := best.Warp, 0
	for _, ds := range []float64{0, -0.04, 0.04, -0.08, 0.08, -0.12, 0.12} {
		w := Warp{Speed: center.Speed, Semitones: center.Semitones + ds}
		buf = w.apply(buf[:0], query, warpFineTolBins, 0)
		for _, c := range ix.match(buf, relaxed(5), within) {
			if c.TrackID == best.TrackID && c.Score > top {
				top, best.Warp.Semitones = c.Score, w.Semitones
			}
		}
	}
	// The cell found against every track: the track must still win there.
	buf = best.Warp.Apply(buf[:0], query)
	cs := ix.Match(buf, relaxed(warpMinScore/2))
	if len(cs) == 0 || cs[0].TrackID != best.TrackID {
		return WarpedCandidate{}, false
	}
	best.Candidate = cs[0]
	best.Warp.Speed *= 1 + ix.drift(buf, best.Candidate)
	// The best of many cells must beat every other track's best cell too
	// (on the coarse sample), not only its rivals at the cell found.
	best.Ratio = min(best.Ratio, coarseRatio)
	if best.Score < warpMinScore || best.Ratio < warpMinRatio {
		return WarpedCandidate{}, false
	}
	best.QueryStart /= best.Warp.Speed
	best.QueryEnd /= best.Warp.Speed
	best.Warp = best.Warp.rounded()
	return best, true
}

// ratioOver is best's score over any other track's best.
func ratioOver(best WarpedCandidate, byTrack map[string]int) float64 {
	other := 0
	for id, sc := range byTrack {
		if id != best.TrackID {
			other = max(other, sc)
		}
	}
	return float64(best.Score) / float64(max(other, 1))
}

// clearWin reports whether best wins so plainly that the rest of the
// coarse grid need not be looked at: a score of at least least and three
// times any other track's.
func clearWin(best WarpedCandidate, byTrack map[string]int, least int) bool {
	return best.Score >= least && ratioOver(best, byTrack) >= 3
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
