package search

// maxSemCandidates bounds the tracks a request takes on meaning alone
// (those no word of it matched): the ones closest in meaning, about this
// many. A track further down the meaning order than that, and matching no
// word, does not reach a page; scoring every track above
// semMinCandidate cost a 10k-track request about twice its CPU.
const maxSemCandidates = 256

// The threshold maxSemCandidates sets is found on a histogram of the
// semantic scores over [semMinCandidate, semMaxScore) in semBins bins
// (higher scores count in the last bin): two passes over the tracks, no
// sort. A semantic score is at most wTrackVec + (1-wTrackVec) × the facet
// weights' sum (1.37 today); semMaxScore only sets the bins' width.
const (
	semBins     = 512
	semMaxScore = 1.5
)

// semSample is about how many tracks the histogram reads (every k-th):
// the threshold is an estimate, and reading every track cost as much as
// the selection it bounds.
const semSample = 2048

// addSemCandidates appends to matched the tracks no word matched
// (scores 0) whose semantic score is at least semMinCandidate and among
// the about maxSemCandidates highest such, and returns matched. The
// histogram counts a sample of the unmatched tracks (bin 0: below
// semMinCandidate); the threshold is where about maxSemCandidates of
// them are estimated above it.
func addSemCandidates(sem, scores []float32, matched []int32) []int32 {
	const scale = semBins / (semMaxScore - semMinCandidate)
	var hist [semBins + 1]int32
	step := max(1, len(sem)/semSample)
	for i := 0; i < len(sem); i += step {
		if scores[i] == 0 {
			hist[min(semBins, max(0, int((sem[i]-semMinCandidate)*scale)+1))] += int32(step)
		}
	}
	floor := float32(semMinCandidate)
	c := int32(0)
	for b := semBins; b >= 1; b-- {
		if c += hist[b]; c >= maxSemCandidates {
			floor = semMinCandidate + float32(b-1)/scale
			break
		}
	}
	for i, v := range sem {
		if v >= floor && scores[i] == 0 {
			matched = append(matched, int32(i))
		}
	}
	return matched
}
