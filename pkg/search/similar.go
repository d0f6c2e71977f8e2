package search

import (
	"math"

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

	// The tracks' AudioEmbeddings, packed the same way (unit rows).
	embDim int
	emb    []float32
	hasEmb []bool
}

// embeddingShare is the audio embedding's share of by-id's cosine when
// the seed and a track both have one: (1-m)·cos(features) +
// m·cos(embedding). Issue 15 item 6 measured m = 0.5 best with the
// metadata term on the demo and held-out catalogs (README "Search").
const embeddingShare = 0.5

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
	for _, t := range tracks { // likewise for the embeddings
		if len(t.AudioEmbedding) > 0 {
			s.embDim = len(t.AudioEmbedding)
			break
		}
	}
	if s.embDim > 0 {
		s.emb, s.hasEmb = make([]float32, len(tracks)*s.embDim), make([]bool, len(tracks))
		for i, t := range tracks {
			if len(t.AudioEmbedding) == s.embDim && s.has[i] {
				row := s.emb[i*s.embDim : (i+1)*s.embDim]
				copy(row, t.AudioEmbedding)
				toUnit(row) // again: the snapshot keeps 8 bits a value
				s.hasEmb[i] = true
			}
		}
	}
	return s
}

// toUnit scales v to unit length in place (zeros stay zeros).
func toUnit(v []float32) {
	if n := similarity.Dot(v, v); n > 0 {
		inv := float32(1 / math.Sqrt(float64(n)))
		for i := range v {
			v[i] *= inv
		}
	}
}

// mixEmbeddings turns the feature cosines of by-id's seed si (out, NaN
// for tracks without analysis) into (1-m)·cos(features) +
// m·cos(embedding), m = embeddingShare, for the tracks that have an
// embedding when the seed has one; the others keep their feature cosine.
func (s *simIndex) mixEmbeddings(si int, out []float32) {
	if s.embDim == 0 || !s.hasEmb[si] {
		return
	}
	d := s.embDim
	q := s.emb[si*d : (si+1)*d]
	emb, has := s.emb[:len(s.hasEmb)*d], s.hasEmb[:len(out)]
	for i, ok := range has {
		if ok {
			out[i] = (1-embeddingShare)*out[i] + embeddingShare*similarity.Dot(q, emb[i*d:(i+1)*d:(i+1)*d])
		}
	}
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
