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
	// Each genre and subgenre a dense slot; per track its two slots
	// (-1 none, the subgenre's -1 when it is the genre's code).
	slot := make([]int32, len(si.facetVec))
	for c := range slot {
		slot[c] = -1
	}
	var codes []int32 // by slot
	ofCode := func(c int32) int32 {
		if c == 0 {
			return -1
		}
		if slot[c] < 0 {
			slot[c] = int32(len(codes))
			codes = append(codes, c)
		}
		return slot[c]
	}
	gs, ss := make([]int32, n), make([]int32, n)
	for i := range n {
		h := &ix.hot[i]
		gs[i], ss[i] = ofCode(h.genre), -1
		if h.subgenre != h.genre {
			ss[i] = ofCode(h.subgenre)
		}
	}
	sums := make([]int32, len(codes)*dim) // slot-major; ≤ 127 × n fits
	for d := range dim {
		col := si.cols[d*n : d*n+n]
		for i, x := range col {
			if x == 0 {
				continue
			}
			if g := gs[i]; g >= 0 {
				sums[int(g)*dim+d] += int32(x)
			}
			if s := ss[i]; s >= 0 {
				sums[int(s)*dim+d] += int32(x)
			}
		}
	}
	for k, c := range codes {
		sum := make([]float32, dim)
		for d, x := range sums[k*dim : (k+1)*dim] {
			sum[d] = float32(x)
		}
		v := make([]float32, dim)
		copy(v, si.facetVec[c])
		for d, x := range unitOf(sum) {
			v[d] += wFacetCentroid * x
		}
		si.facetVec[c] = unitOf(v)
	}
}
