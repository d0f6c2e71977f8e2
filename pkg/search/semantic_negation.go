package search

import (
	"context"
	"strings"
)

// wNegated is how much a track's closeness in meaning to what the
// request excludes ("nothing scary", "without drums") takes off its
// semantic score. The text engine leaves out the tracks whose text names
// the excluded word; a catalog that says "dread in every corner" never
// names it, so meaning has to push those tracks down too. Fitted
// (semantic_groups.go; hand-set 1.0 before).
const wNegated = 1.25

// negate lowers sem by wNegated × every track's semantic score for the
// request's excluded words.
func (ix *Index) negate(ctx context.Context, exclude []group, sem []float32) error {
	var ws []string
	for _, g := range exclude {
		ws = append(ws, strings.Fields(g[0].phrase)...)
	}
	nq, err := ix.sem.query(ctx, ws)
	if err != nil || nq == nil || len(nq.dims) == 0 {
		return err
	}
	buf := ix.scratch(len(sem))
	defer ix.release(buf)
	neg := *buf
	ix.sem.scores(ix, nq, neg)
	for i, v := range neg {
		sem[i] -= wNegated * v
	}
	return nil
}
