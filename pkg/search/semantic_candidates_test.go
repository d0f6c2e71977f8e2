package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// addSemCandidates appends to matched (tracks whose text score is 1,
// the others' 0) the candidates withSemCandidates takes on meaning, in
// catalog order.
func addSemCandidates(sem, scores []float32, matched []int32) []int32 {
	tm := textMatch{cnt: new([]uint8)}
	*tm.cnt = make([]uint8, len(sem))
	tm.coord[1] = 1
	acc := slices.Clone(scores)
	for _, i := range matched {
		(*tm.cnt)[i] = 1
	}
	var added []int32
	for _, i := range tm.withSemCandidates(acc, sem, nil) {
		if scores[i] == 0 {
			added = append(added, i)
		}
	}
	return append(matched, added...)
}

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

// addSemCandidatesReference is the selection as first written: the same
// histogram, with a branch per track, after the literal matches.
func addSemCandidatesReference(sem, scores []float32, matched []int32) []int32 {
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

// TestAddSemCandidatesAgree: the branch-free selection lists the same
// tracks as the reference, whatever share of the tracks matched a word
// (none, all, in runs).
func TestAddSemCandidatesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 7, 200, 4096, 10_000} {
		for _, share := range []int{0, 1, 3, 10, 11} { // tracks matched: none, 1/share, all (10), runs (11)
			for _, roomy := range []bool{true, false} {
				sem, scores := make([]float32, n), make([]float32, n)
				var matched []int32
				if roomy {
					matched = make([]int32, 0, n)
				}
				for i := range sem {
					sem[i] = r.Float32()*1.6 - 0.1
					hit := false
					switch share {
					case 0:
					case 10:
						hit = true
					case 11:
						hit = i/50%2 == 0
					default:
						hit = r.IntN(share) == 0
					}
					if hit {
						scores[i] = 1 + r.Float32()
						matched = append(matched, int32(i))
					}
				}
				want := addSemCandidatesReference(sem, scores, slices.Clone(matched))
				got := addSemCandidates(sem, scores, matched)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d share=%d roomy=%v: %d candidates, reference %d", n, share, roomy, len(got), len(want))
				}
			}
		}
	}
}

func TestClampBin(t *testing.T) {
	for b := -3 * semBins; b <= 3*semBins; b++ {
		if got, want := clampBin(b), min(semBins, max(0, b)); got != want {
			t.Fatalf("clampBin(%d) = %d, want %d", b, got, want)
		}
	}
}

// TestWithSemCandidatesAgree: by-text's one pass lists the same tracks
// (in catalog order) as the literal matches followed by the reference
// selection, leaves every text score what the two passes make of it,
// and the counters zero; a match given back unlisted (a request that
// failed on the way) leaves them zero too.
func TestWithSemCandidatesAgree(t *testing.T) {
	ix := demoIndex(t, 10_000)
	n := len(ix.tracks)
	checked := 0
	for _, text := range rankingQueries(200) {
		q := Understand(text, 0)
		if len(q.Groups) == 0 {
			continue
		}
		q = ix.correct(q)
		if len(q.Groups) > maxGroups {
			q.Groups = q.Groups[:maxGroups]
		}
		sq, err := ix.sem.query(t.Context(), q.Words)
		if err != nil {
			t.Fatal(err)
		}
		if sq == nil || len(sq.dims) == 0 {
			continue
		}
		sem := make([]float32, n)
		ix.sem.scores(ix, sq, sem)
		wantAcc := make([]float32, n)
		lit, _, err := ix.text.scores(t.Context(), q.Groups, wantAcc, make([]int32, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		want := addSemCandidatesReference(sem, wantAcc, slices.Clone(lit))
		slices.Sort(want)
		acc := make([]float32, n)
		tm, err := ix.text.match(t.Context(), q.Groups, acc)
		if err != nil {
			t.Fatal(err)
		}
		got := tm.withSemCandidates(acc, sem, make([]int32, 0, n))
		if !slices.Equal(got, want) {
			t.Fatalf("%q: %d candidates, two passes %d", text, len(got), len(want))
		}
		if !slices.EqualFunc(acc, wantAcc, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
			t.Fatalf("%q: text scores differ", text)
		}
		if slices.ContainsFunc(*tm.cnt, func(c uint8) bool { return c != 0 }) {
			t.Fatalf("%q: counters left non-zero", text)
		}
		ix.text.release(&tm)
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d requests checked", checked)
	}
	tm, err := ix.text.match(t.Context(), []group{concept("rock")}, make([]float32, n))
	if err != nil {
		t.Fatal(err)
	}
	cnt := tm.cnt
	ix.text.release(&tm) // unlisted
	if slices.ContainsFunc(*cnt, func(c uint8) bool { return c != 0 }) {
		t.Error("counters given back unlisted are not zero")
	}
}
