package search

import (
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/search/similarity"
)

// simIndex packs the tracks' standardized feature vectors row by row in
// one slice: the by-id scan over 100k tracks then reads memory in order
// instead of chasing a pointer per track.
type simIndex struct {
	dim  int
	w    []float32 // descriptor weights, applied to rows and queries
	vecs []float32 // len(tracks)*dim; rows of unanalyzed tracks are zero
	has  []bool
}

func newSimIndex(tracks []*catalog.Track) simIndex {
	dim := 0
	for _, t := range tracks { // the catalog's dimension is that of most tracks
		if len(t.Features) > 0 {
			dim = len(t.Features)
			break
		}
	}
	s := simIndex{dim: dim, w: similarity.Weights(dim), vecs: make([]float32, len(tracks)*dim), has: make([]bool, len(tracks))}
	for i, t := range tracks {
		if dim > 0 && len(t.Features) == dim {
			copy(s.vecs[i*dim:], similarity.Weigh(t.Features, s.w))
			s.has[i] = true
		}
	}
	return s
}

// row is track i's vector, nil when it has none.
func (s *simIndex) row(i int) []float32 {
	if !s.has[i] {
		return nil
	}
	return s.vecs[i*s.dim : (i+1)*s.dim]
}

// cosines writes the cosine of q to every analyzed track into out (NaN
// for tracks without analysis). The rows are unit length, so the cosine
// is the dot product. raw says q is a vector of the snapshot's space not
// yet weighted (a query's analysis); rows taken from the index itself
// already are.
func (s *simIndex) cosines(q []float32, raw bool, out []float32) {
	if raw {
		q = similarity.Weigh(q, s.w)
	}
	q = q[:s.dim]
	for i, ok := range s.has {
		if !ok {
			out[i] = nan
			continue
		}
		out[i] = similarity.Dot(q, s.vecs[i*s.dim:(i+1)*s.dim:(i+1)*s.dim])
	}
}
