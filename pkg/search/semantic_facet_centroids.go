package search

// mixFacetCentroids gives the zero-shot facet match the same reading of
// genres and subgenres the track vectors have (facetVectors): each one's
// vector from its name plus wFacetCentroid × the unit centroid of the
// vectors of the tracks that have it. A catalog's own taxonomy ("Marching
// Band", "Horror Score") is then matched by what its tracks say as well
// as by what its name says, and a name the embedder cannot read by its
// tracks alone. Moods keep their names (a mood spans genres).
// Computed from the stored track vectors, so a snapshot loaded with its
// vectors gets it too: one pass over the columns (dimension-major, as
// stored).
func mixFacetCentroids(si *semIndex, ix *Index) {
	n, dim := si.n, si.dim
	if n == 0 || len(ix.hot) != n {
		return
	}
	sums := make([][]float32, len(si.facetVec)) // by facet code
	for i := range n {
		h := &ix.hot[i]
		for _, c := range [...]int32{h.genre, h.subgenre} {
			if c != 0 && sums[c] == nil {
				sums[c] = make([]float32, dim)
			}
		}
	}
	for d := range dim {
		col := si.cols[d*n : d*n+n]
		for i, x := range col {
			if x == 0 {
				continue
			}
			h := &ix.hot[i]
			if s := sums[h.genre]; s != nil {
				s[d] += float32(x)
			}
			if h.subgenre != h.genre {
				if s := sums[h.subgenre]; s != nil {
					s[d] += float32(x)
				}
			}
		}
	}
	for c, s := range sums {
		if s == nil {
			continue
		}
		v := make([]float32, dim)
		copy(v, si.facetVec[c])
		for d, x := range unitOf(s) {
			v[d] += wFacetCentroid * x
		}
		si.facetVec[c] = unitOf(v)
	}
}
