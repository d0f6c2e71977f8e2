package fingerprint

import (
	"math"
	"slices"
	"strings"
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
	// warpMinScore and warpMinRatio accept a warped match at its cell. The
	// score is more than the identity search asks, because the best of
	// many cells is taken; the ratio is the identity search's since the
	// winner must also beat every other contender over all cells
	// (warpMinCellsRatio) and line up in time (warpTempoContrast). It was
	// 2.2 before those tests: on the tuning half pitch-shifted clips won
	// their cell by 1.98–2.18 (another track holding the same chords two
	// semitones away), out-of-index clips' winners by at most 1.79.
	warpMinScore = 24
	warpMinRatio = DefaultMinRatio
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
	// so it is lenient, and the refined contenders are asked
	// warpMinCellsRatio. A leader below it has the leading tracks scored
	// again with the whole query (rescore, warpContenders lookups within
	// their tracks) and must reach it there; music no track explains
	// (coarse ratios under 1.35 on the tuning half) pays those lookups but
	// no refinement.
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

// MatchWarped is Match, and when Match finds nothing or only a weak
// match (weakIdentity), the search over speed and pitch: the best warped
// match whose score reaches warpMinScore
// and beats every other track at its cell by warpMinRatio and the other
// contenders over all cells by warpMinCellsRatio. Identity matches come
// back with Warp Identity, unless their track explains the query clearly
// better warped (warpedIdentity), or a weak one loses to a warped match
// that scores warpOverIdentity × more. It is safe for concurrent use.
func (ix *Index) MatchWarped(query []Hash, opts MatchOptions) []WarpedCandidate {
	return reported(ix, opts, func(o MatchOptions) []WarpedCandidate { return ix.matchWarped(query, o) })
}

// matchWarped is MatchWarped with background tracks' candidates kept.
func (ix *Index) matchWarped(query []Hash, opts MatchOptions) []WarpedCandidate {
	cs := ix.matchAll(query, opts)
	if len(cs) > 0 {
		if c, ok := ix.warpedIdentity(query, cs[0].TrackID, cs[0].Score); ok {
			return []WarpedCandidate{c}
		}
	}
	if len(cs) == 0 || weakIdentity(cs[0], query, opts) {
		if c, ok := ix.searchWarp(query); ok && (len(cs) == 0 ||
			float64(c.Score) >= warpOverIdentity*float64(cs[0].Score)) {
			return []WarpedCandidate{c}
		}
	}
	out := make([]WarpedCandidate, len(cs))
	for i, c := range cs {
		out[i] = WarpedCandidate{Candidate: c, Warp: Identity}
	}
	return out
}

// An identity match is weak, and the warp search runs beside it, when it
// scores under weakIdentityScores × the least score reported or aligns
// hashes over less than weakIdentitySpan of the query. A warped clip of a
// song may align a few hashes of another song over a second or two (a
// held chord, a drum fill) by chance: 30 hashes over 1.6 s of a 10-s
// clip played 8 % slow, where the clips played as indexed score 141–330
// over 8.9–9.6 s (tuning half). A match that is not weak is answered at
// once, so the ordinary query pays nothing for the warp search.
const (
	weakIdentityScores = 3
	weakIdentitySpan   = 0.5
)

func weakIdentity(c Candidate, query []Hash, opts MatchOptions) bool {
	if len(query) == 0 {
		return false
	}
	span := float64(query[len(query)-1].Time-query[0].Time) * FrameSeconds
	return c.Score < weakIdentityScores*opts.withDefaults().MinScore ||
		c.QueryEnd-c.QueryStart < weakIdentitySpan*span
}

// searchWarp scans the coarse grid with a sample of the query (see
// coarseSample) for each track's best cell, refines the leading tracks'
// cells with the whole query matched against each track alone, and checks
// the refined winner against every track at its cell.
//
// A coarse leader under warpCoarseMinRatio over the next track has the
// leading tracks rescored with the whole query first (rescore). The
// winner must beat the other contenders' refined scores by
// warpMinCellsRatio, a ratio over every cell (or by warpLowCellsRatio when
// that ratio times its tempo contrast reaches warpCellsTimesContrast), as
// well as every other track at its own cell by warpMinRatio. The ratio
// over the cells was once taken
// on the coarse sample, whose scores are a tenth of the query's and so
// noisy that a sparse song's pitch-shifted clip (suspense, ±1–2 semitones:
// coarse ratios 1.37–1.79) was refused although it won at its cell by
// 2.5–2.8; the refined contenders measure the same thing with the whole
// query, and the refinement's tight second stage (warpFineTolBins) keeps
// more of a real match than of a chance one.
func (ix *Index) searchWarp(query []Hash) (WarpedCandidate, bool) {
	contenders := ix.coarseScan(query, Track{Frames: ix.end}, coarseCells, true)
	if len(contenders) == 0 || contenders[0].Score < warpCoarseMinScore {
		return WarpedCandidate{}, false
	}
	if len(contenders) > 1 && float64(contenders[0].Score) < warpCoarseMinRatio*float64(contenders[1].Score) {
		contenders = ix.rescore(query, contenders[:min(len(contenders), warpContenders)])
		if len(contenders) == 0 || len(contenders) > 1 && float64(contenders[0].Score) < warpCoarseMinRatio*float64(contenders[1].Score) {
			return WarpedCandidate{}, false
		}
	}
	lead := contenders[0].Score
	// The tracks refined: the leader and those within warpCoarseTrust of
	// it, at most warpContenders.
	n := 1
	for n < min(len(contenders), warpContenders) && float64(contenders[n].Score)*warpCoarseTrust >= float64(lead) {
		n++
	}
	var buf []Hash
	var best WarpedCandidate
	bestTight, otherTight, bestCoarse := 0, 0.0, 0
	for _, k := range contenders[:n] {
		c, tight, ok := ix.refineWarp(query, k, &buf)
		if !ok {
			continue
		}
		if tight > bestTight {
			otherTight = max(otherTight, float64(bestTight))
			best, bestTight, bestCoarse = c, tight, k.Score
		} else {
			otherTight = max(otherTight, float64(tight))
		}
	}
	if bestTight == 0 {
		return WarpedCandidate{}, false
	}
	// A track left unrefined is taken to refine as the winner did, in
	// proportion to its coarse score.
	if n < len(contenders) {
		otherTight = max(otherTight, float64(contenders[n].Score*bestTight)/float64(bestCoarse))
	}
	cellsRatio := float64(bestTight) / max(otherTight, 1)
	if cellsRatio < warpLowCellsRatio {
		return WarpedCandidate{}, false
	}
	at := ix.trackScore(best.Warp.Apply(buf[:0], query), best.TrackID)
	contrast := math.Inf(1)
	for _, f := range []float64{1 - warpTempoStep, 1 + warpTempoStep} {
		w := Warp{Speed: best.Warp.Speed * f, Semitones: best.Warp.Semitones}
		contrast = min(contrast, float64(at)/max(1, float64(ix.trackScore(w.Apply(buf[:0], query), best.TrackID))))
	}
	if contrast < warpTempoContrast || cellsRatio < warpMinCellsRatio && cellsRatio*contrast < warpCellsTimesContrast {
		return WarpedCandidate{}, false
	}
	best, ok := ix.settle(query, best, buf)
	if !ok {
		return WarpedCandidate{}, false
	}
	best.Ratio = min(best.Ratio, cellsRatio)
	return best, true
}

// rescore scores the leading tracks of the coarse scan again with the
// whole query at their coarse cell, each within its own track, best
// first. The sample's scores are small numbers: a song two semitones up
// scored 38–50 on it against other tracks' 27–36 (coarse ratios
// 1.15–1.37, tuning half), and the whole query 156–200 against 49–80.
func (ix *Index) rescore(query []Hash, lead []WarpedCandidate) []WarpedCandidate {
	var out []WarpedCandidate
	var buf []Hash
	for _, k := range lead {
		buf = k.Warp.apply(buf[:0], query, warpTolBins, warpCoarseStep/4)
		if c := ix.trackBest(buf, k.TrackID, relaxed(warpCoarseMinScore)); c.Score > 0 {
			out = append(out, WarpedCandidate{Candidate: c, Warp: k.Warp})
		}
	}
	sortWarped(out)
	return out
}

// settle checks a refined warped candidate against every track at its
// cell – the track must still win there, with warpMinScore and
// warpMinRatio – and measures its speed from the drift of the aligned
// hashes. Its times come back in query time, its warp rounded.
func (ix *Index) settle(query []Hash, best WarpedCandidate, buf []Hash) (WarpedCandidate, bool) {
	buf = best.Warp.Apply(buf[:0], query)
	cs := ix.matchAll(buf, relaxed(warpMinScore/2))
	if len(cs) == 0 || cs[0].TrackID != best.TrackID {
		return WarpedCandidate{}, false
	}
	best.Candidate = cs[0]
	if best.Score < warpMinScore || best.Ratio < warpMinRatio {
		return WarpedCandidate{}, false
	}
	best.Warp.Speed *= 1 + ix.drift(buf, best.Candidate)
	best.QueryStart /= best.Warp.Speed
	best.QueryEnd /= best.Warp.Speed
	best.Warp = best.Warp.rounded()
	return best, true
}

// A real match lines up in time: at a tempo warpTempoStep off its score
// drops (tuning half of BenchmarkSpeedPitch: the warped matches scored at
// least 1.13 times their track's best at ±6 % tempo, most 1.3–2), while a
// held chord that another song holds too, transposed, aligns its hashes
// at any tempo (the_deep_path against suspense two semitones down: 178
// at its tempo, 180 and 188 at ±6 %) – the one out-of-index clip the
// refined contenders let through, on the held-out half; the test was
// added after that run. searchWarp asks it of its winner; warpedIdentity
// does not: its track is the identity
// match's, and the short stretches it checks move too little at 6 %.
const (
	warpTempoStep     = 0.06
	warpTempoContrast = 1.08
)

// A winner that lines up in time clearly needs less of a lead over the
// other contenders: below warpMinCellsRatio (down to warpLowCellsRatio)
// it is taken when its ratio over them times its tempo contrast reaches
// warpCellsTimesContrast. On the tuning half a chance contender with
// sustained chords (nunc_dimittis) refined to 0.6 of a real pitch-shifted
// match (ratios 1.73–1.74 at contrasts 1.50–1.72, products 2.6–3.0),
// while out-of-index clips' winners reached ratios of 1.59 and products
// of 1.67 at most (a tempo-free held chord scores about 1 on contrast).
const (
	warpLowCellsRatio      = 1.5
	warpCellsTimesContrast = 2.2
)

// warpedIdentity reports whether query, which the identity search
// explains as track id with score idScore, is better explained as id at a
// speed or pitch change: a song that repeats its material in another key
// (a modulation) matches a pitch-shifted play of its first statement at
// the repeat, unshifted – the right track, the wrong place, no shift –
// and a warped clip of any song may align a few hashes with itself
// unwarped. The coarse grid is scanned within the track alone; a cell that
// beats no change there is refined and settled (see settle), and the warp
// is taken when its score beats the identity match's by warpOverIdentity.
func (ix *Index) warpedIdentity(query []Hash, id string, idScore int) (WarpedCandidate, bool) {
	within, ok := ix.trackWithin(id)
	if !ok {
		return WarpedCandidate{}, false
	}
	cells := ix.coarseScan(query, within, modulationCells, false)
	if len(cells) == 0 || cells[0].TrackID != id || cells[0].Warp == Identity {
		return WarpedCandidate{}, false
	}
	var buf []Hash
	c, _, ok := ix.refineWarp(query, cells[0], &buf)
	if !ok {
		return WarpedCandidate{}, false
	}
	c, ok = ix.settle(query, c, buf)
	if !ok || float64(c.Score) < warpOverIdentity*float64(idScore) {
		return WarpedCandidate{}, false
	}
	return c, true
}

// trackWithin is the span of global frames Index.match looks at for track
// id alone: the track and half the gaps around it.
func (ix *Index) trackWithin(id string) (Track, bool) {
	i := slices.IndexFunc(ix.tracks, func(t Track) bool { return t.ID == id })
	if i < 0 {
		return Track{}, false
	}
	t := ix.tracks[i]
	return Track{ID: t.ID, Start: t.Start - min(t.Start, trackGap/2), Frames: t.Frames + trackGap}, true
}

// trackScore is track id's best identity score for query (0 when it has
// none worth a window), looking at that track alone.
func (ix *Index) trackScore(query []Hash, id string) int {
	return ix.trackBest(query, id, relaxed(5)).Score
}

// trackBest is query's best candidate of track id, matched within that
// track only with options o (zero when the track has none).
func (ix *Index) trackBest(query []Hash, id string, o MatchOptions) Candidate {
	var best Candidate
	within, ok := ix.trackWithin(id)
	if !ok {
		return best
	}
	for _, c := range ix.match(query, o, within) {
		if c.TrackID == id && c.Score > best.Score {
			best = c
		}
	}
	return best
}

// modulationCells are the cells warpedIdentity scans: pitch shifts by
// whole semitones, the intervals a song modulates by. A shift in between,
// or a change of tempo, leaves no repeat that lines up unwarped; these
// four cost a sixth of the whole coarse grid.
var modulationCells = []Warp{{Speed: 1, Semitones: 1}, {Speed: 1, Semitones: -1}, {Speed: 1, Semitones: 2}, {Speed: 1, Semitones: -2}}

// warpOverIdentity is how much more a warped match must score than the
// identity match of the same track for the warp to be taken.
const warpOverIdentity = 1.5

// Contenders of the warp search. warpContenders tracks (the best coarse
// scores) are refined; warpMinCellsRatio is the least ratio of the
// winner's tight score over any other contender's. Chosen on the tuning
// half of BenchmarkSpeedPitch's clips: real warped matches beat the other
// contenders by at least 1.97 (a sparse song, suspense), out-of-index
// clips' best beat their next by at most 1.59; with fewer contenders the
// next is missed more often (3: up to 2.13, a chance winner's real rival
// was fourth on the coarse grid).
const (
	warpContenders    = 5
	warpMinCellsRatio = 1.8
	// warpCoarseTrust: a track whose coarse score is below the leader's
	// over this is not refined (the coarse ratio of real matches, when it
	// is that high, stayed above 1.8 refined, and no out-of-index clip's
	// came near: 1.34 at most), which keeps a plain winner's search as
	// cheap as one refinement.
	warpCoarseTrust = 2.5
)

// coarseScan returns each track's best cell of cells and identity,
// Candidate holding its score there (on the sample), best first, matching
// the postings within (a track, or the whole index). With early, the scan
// stops two steps past a plain winner (see clearWin).
func (ix *Index) coarseScan(query []Hash, within Track, cells []Warp, early bool) []WarpedCandidate {
	byTrack := map[string]WarpedCandidate{}
	var best WarpedCandidate
	consider := func(w Warp, cs []Candidate) {
		for _, c := range cs {
			if c.Score > byTrack[c.TrackID].Score {
				byTrack[c.TrackID] = WarpedCandidate{Candidate: c, Warp: w}
			}
			if c.Score > best.Score {
				best = WarpedCandidate{Candidate: c, Warp: w}
			}
		}
	}
	sample := coarseSample(query)
	consider(Identity, ix.match(sample, relaxed(warpCoarseMinScore), within))
	var buf []Hash
	limit := math.Inf(1)
	for _, w := range cells {
		if math.Abs(w.Semitones) > limit+1e-9 {
			break
		}
		buf = w.apply(buf[:0], sample, warpTolBins, warpCoarseStep/4)
		consider(w, ix.match(buf, relaxed(warpCoarseMinScore), within))
		// The cells go outwards from no change. Once one wins plainly,
		// the change is near: the cells up to two steps further (both
		// families) settle which it is, and the rest need not be looked at.
		if early && math.IsInf(limit, 1) && clearWin(best, byTrack, 3*warpCoarseMinScore) {
			limit = math.Abs(w.Semitones) + 2*warpCoarseStep
		}
	}
	out := make([]WarpedCandidate, 0, len(byTrack))
	for _, c := range byTrack {
		out = append(out, c)
	}
	sortWarped(out)
	return out
}

// refineWarp refines a track's coarse cell k with the whole query matched
// against that track only: first the coarse cell's step on the finer grid
// (warpTolBins of slack), then the shift on a finer grid scored with less
// slack (the cells' slack makes their scores flat over ±0.1 semitone). It
// returns the candidate of the first stage at the second stage's shift and
// the second stage's score, the tight score.
func (ix *Index) refineWarp(query []Hash, k WarpedCandidate, buf *[]Hash) (WarpedCandidate, int, bool) {
	within, ok := ix.trackWithin(k.TrackID)
	if !ok {
		return WarpedCandidate{}, 0, false
	}
	center, best, found := k.Warp, WarpedCandidate{}, false
	family := func(semitones float64) Warp {
		if center.Speed == 1 {
			return Warp{Speed: 1, Semitones: semitones}
		}
		return Warp{Speed: math.Exp2(semitones / 12), Semitones: semitones}
	}
	for _, ds := range []float64{0, -warpStep, warpStep} {
		w := family(center.Semitones + ds)
		*buf = w.apply((*buf)[:0], query, warpTolBins, 0)
		for _, c := range ix.match(*buf, relaxed(warpMinScore/2), within) {
			if c.TrackID == k.TrackID && (!found || c.Score > best.Score) {
				best, found = WarpedCandidate{Candidate: c, Warp: w}, true
			}
		}
	}
	if !found {
		return WarpedCandidate{}, 0, false
	}
	center, top := best.Warp, 0
	for _, ds := range []float64{0, -0.04, 0.04, -0.08, 0.08, -0.12, 0.12} {
		w := Warp{Speed: center.Speed, Semitones: center.Semitones + ds}
		*buf = w.apply((*buf)[:0], query, warpFineTolBins, 0)
		for _, c := range ix.match(*buf, relaxed(5), within) {
			if c.TrackID == k.TrackID && c.Score > top {
				top, best.Warp.Semitones = c.Score, w.Semitones
			}
		}
	}
	return best, top, true
}

// ratioOver is best's score over any other track's best.
func ratioOver(best WarpedCandidate, byTrack map[string]WarpedCandidate) float64 {
	other := 0
	for id, c := range byTrack {
		if id != best.TrackID {
			other = max(other, c.Score)
		}
	}
	return float64(best.Score) / float64(max(other, 1))
}

// clearWin reports whether best wins so plainly that the rest of the
// coarse grid need not be looked at: a score of at least least and three
// times any other track's.
func clearWin(best WarpedCandidate, byTrack map[string]WarpedCandidate, least int) bool {
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

// sortWarped orders warped candidates best first, ties by track id (a
// deterministic order for equal scores).
func sortWarped(cs []WarpedCandidate) {
	slices.SortFunc(cs, func(a, b WarpedCandidate) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		return strings.Compare(a.TrackID, b.TrackID)
	})
}
