package search

import (
	"math/rand/v2"
	"testing"
)

// TestAddSemCandidates: the tracks taken on meaning alone are unmatched
// ones, the closest first (none left out scores above one taken), about
// maxSemCandidates of them on a large catalog, and all that qualify on a
// small one.
func TestAddSemCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{200, 10_000, 100_000} {
		sem, scores := make([]float32, n), make([]float32, n)
		var matched []int32
		for i := range sem {
			sem[i] = r.Float32() * 1.3
			if r.IntN(3) == 0 {
				scores[i] = 1
				matched = append(matched, int32(i))
			}
		}
		got := addSemCandidates(sem, scores, matched)
		added := got[len(matched):]
		taken := make([]bool, n)
		lowest := float32(2)
		for _, i := range added {
			if scores[i] != 0 || sem[i] < semMinCandidate {
				t.Fatalf("n=%d: track %d taken (text %v, semantic %.2f)", n, i, scores[i], sem[i])
			}
			taken[i] = true
			lowest = min(lowest, sem[i])
		}
		qualify := 0
		for i, v := range sem {
			if scores[i] == 0 && v >= semMinCandidate {
				qualify++
				if !taken[i] && v > lowest {
					t.Fatalf("n=%d: track %d (%.3f) left out above one taken (%.3f)", n, i, v, lowest)
				}
			}
		}
		switch {
		case qualify <= maxSemCandidates && len(added) != qualify:
			t.Errorf("n=%d: %d of %d qualifying tracks taken", n, len(added), qualify)
		case qualify > maxSemCandidates && (len(added) < maxSemCandidates/2 || len(added) > 4*maxSemCandidates):
			t.Errorf("n=%d: %d tracks taken, want about %d", n, len(added), maxSemCandidates)
		}
	}
}
