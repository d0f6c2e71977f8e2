package search

import "slices"

// maxSemCandidates bounds the tracks a request takes on meaning alone
// (those no word of it matched): the ones closest in meaning, about this
// many. A track further down the meaning order than that, and matching no
// word, does not reach a page; scoring every track above
// semMinCandidate cost a 10k-track request about twice its CPU.
const maxSemCandidates = 256

// The threshold maxSemCandidates sets is found on a histogram of the
// semantic scores over [semMinCandidate, semMaxScore) in semBins bins
// (higher scores count in the last bin): a sample of the tracks, then the
// pass that lists the candidates (withSemCandidates), no sort. A semantic
// score is at most wTrackVec × the largest concept group weight +
// (1-wTrackVec) × the facet weights' sum (about 1.57 today; scores that
// high are rare); semMaxScore only sets the bins' width.
const (
	semBins     = 512
	semMaxScore = 1.5
)

// semSample is about how many tracks the histogram reads (every k-th):
// the threshold is an estimate, and reading every track cost as much as
// the selection it bounds.
const semSample = 2048

// withSemCandidates is tm.list and the candidates taken on meaning, in
// one pass over the tracks: the tracks a word matched, and those no word
// matched (text score 0) whose semantic score is at least semMinCandidate
// and among the about maxSemCandidates highest such (semFloor), in
// catalog order, in buf's array (room for every track). Each track's
// position is written after the list and kept (the list grows by one)
// when it is a candidate: no branch on whether it is, which a quarter of
// the tracks matching in no order would mispredict for one in three. (The
// two passes this replaces listed a matched track again if its text score
// were 0; BM25 gives every match a positive score.)
func (tm *textMatch) withSemCandidates(acc, sem []float32, buf []int32) []int32 {
	n := len(sem)
	cnt, acc := (*tm.cnt)[:n], acc[:n]
	floor := semFloor(sem, acc, cnt[:n], &tm.coord)
	buf = slices.Grow(buf[:0], n)[:n]
	m := 0
	for i, c := range cnt {
		a := acc[i] * tm.coord[c] // 0 when no word matched (0 × 0)
		acc[i] = a
		cnt[i] = 0 // leave the pooled counters zero
		buf[m] = int32(i)
		m += int(anyGroup(c) | above(sem[i], floor)&unmatched(a)) // m ≤ i+1: the next write fits
	}
	tm.listed = true
	return buf[:m]
}

// semFloor is the semantic score above which about maxSemCandidates
// unmatched tracks are, estimated on a histogram of a sample of them
// (bin 0: below semMinCandidate). A track's text score is text[i] times
// coord[cnt[i]] (its coordination factor, not yet applied).
func semFloor(sem, text []float32, cnt []uint8, coord *[256]float32) float32 {
	const scale = semBins / (semMaxScore - semMinCandidate)
	var hist [semBins + 1]int32
	step := max(1, len(sem)/semSample)
	text = text[:len(sem)]
	for i := 0; i < len(sem); i += step {
		t := text[i] * coord[cnt[i]]
		// Branch-free: whether a sampled track matched a word is a coin
		// toss to the branch predictor.
		hist[clampBin(int((sem[i]-semMinCandidate)*scale)+1)] += int32(step) * unmatched(t)
	}
	floor := float32(semMinCandidate)
	c := int32(0)
	for b := semBins; b >= 1; b-- {
		if c += hist[b]; c >= maxSemCandidates {
			floor = semMinCandidate + float32(b-1)/scale
			break
		}
	}
	return floor
}

// clampBin is min(semBins, max(0, b)) without a branch (scores below
// semMinCandidate, in no order, would mispredict one).
func clampBin(b int) int {
	b &^= b >> 63 // 0 when negative
	d := b - semBins
	return semBins + d&(d>>63) // b when below semBins
}

// unmatched is 1 when a track's text score is 0 (no word matched it), else 0.
func unmatched(s float32) int32 {
	if s == 0 {
		return 1
	}
	return 0
}

// anyGroup is 1 when a track matched a word (c groups, c > 0), else 0.
func anyGroup(c uint8) int32 {
	if c != 0 {
		return 1
	}
	return 0
}

// above is 1 when v ≥ floor, else 0.
func above(v, floor float32) int32 {
	if v >= floor {
		return 1
	}
	return 0
}
