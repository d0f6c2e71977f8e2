package search

import "strings"

// closest returns the candidate nearest to s by edit distance when it is
// near enough to be a typo of it: one edit up to six letters, two beyond.
// Two edits on a five-letter word left only three letters standing, so
// ordinary words turned into unrelated vocabulary ("genre" → "tense");
// one edit still catches the usual slips (a dropped, doubled or swapped
// letter). Ties go to the earlier candidate. Comparison ignores case; the
// candidate is returned as spelled.
func closest(s string, candidates []string) (string, bool) {
	s = strings.ToLower(s)
	n := len([]rune(s))
	if n < 3 {
		return "", false
	}
	limit := 1
	if n > 6 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == s {
			return c, true
		}
		if d := editDistance(s, lc, bestD); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// editDistance is the Damerau–Levenshtein (optimal string alignment)
// distance of a and b, or any value ≥ bound once it is certain to reach
// bound, which keeps a scan over a vocabulary cheap.
func editDistance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= bound || -d >= bound {
		return bound
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= bound {
			return bound
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
