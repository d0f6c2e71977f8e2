package search

import "sync"

// The semantic side's hot path (issue 15, speed). Per request it costs a
// scan of the request's dimensions over the tracks' int8 columns and the
// zero-shot facet match of every track; both are arranged so that every
// track's figure is the same float32 operations, in the same order, as
// the plain computation (TestSemanticPathsAgree): only how many times
// memory is read and how often the facet match is computed differ.

// semNear is how close a request is to the catalog's facet values: each
// interned genre, subgenre and mood, each tempo band and each vocals
// value (cosines, negative ones as 0).
type semNear struct {
	code []float32
	band [4]float32
	voc  [len(vocalsOrder) + 1]float32
}

// near computes a request vector's semNear (once per embedded request:
// it is cached with the query).
func (si *semIndex) near(vec []float32) semNear {
	nr := semNear{code: make([]float32, len(si.facetVec))}
	for c, v := range si.facetVec {
		nr.code[c] = max(0, dot(vec, v))
	}
	for b, v := range si.bandVec {
		nr.band[b] = max(0, dot(vec, v))
	}
	for k, v := range si.vocVec {
		nr.voc[k] = max(0, dot(vec, v))
	}
	return nr
}

// facetCombo is what the facet match reads of a track: its interned
// genre, subgenre, mood and secondary mood, tempo band and vocals.
type facetCombo struct {
	genre, subgenre, mood, mood2 int32
	band, vocals                 uint8
}

// facet is the zero-shot facet match of a track with the facets fc,
// weighted as its share of the semantic score: how close the request is
// to the track's genre or subgenre, its moods, its tempo band and its
// vocals.
func (nr *semNear) facet(fc *facetCombo) float32 {
	const wf = 1 - wTrackVec
	f := wFacetGenre*max(nr.code[fc.genre], nr.code[fc.subgenre]) +
		wFacetMood*max(nr.code[fc.mood], wMood2*nr.code[fc.mood2]) +
		wFacetTempo*nr.band[fc.band] + wFacetVocals*nr.voc[fc.vocals]
	return wf * f
}

// comboOf is track i's facetCombo.
func (si *semIndex) comboOf(ix *Index, i int) facetCombo {
	h := &ix.hot[i]
	return facetCombo{h.genre, h.subgenre, h.mood, h.mood2, si.band[i], si.vocals[i]}
}

// facetOf is the facet match of track i.
func (si *semIndex) facetOf(ix *Index, nr *semNear, i int) float32 {
	fc := si.comboOf(ix, i)
	return nr.facet(&fc)
}

// semCombos numbers the distinct facetCombos of a catalog (a few
// thousand at most: the taxonomy is small), so that a full scan computes
// the facet match once per combination, not once per track.
type semCombos struct {
	of   []uint16     // by track: the index in list
	list []facetCombo // nil: too many to number (each track computes its own)
}

// maxCombos is how many combinations semCombos numbers (uint16 indexes).
const maxCombos = 1 << 16

// combos numbers the tracks' facet combinations, keyed by their fields
// packed in 64 bits (codes under 1<<13, which a taxonomy of a few hundred
// values never reaches; past that, no table). About 2 ms of CPU at 100k
// tracks, on a cold start.
func (si *semIndex) combos(ix *Index) {
	const codeBits = 13
	if len(si.facetVec) > 1<<codeBits {
		return
	}
	of := make([]uint16, si.n)
	seen := make(map[uint64]uint16, 1024)
	var list []facetCombo
	for i := range of {
		h := &ix.hot[i]
		key := uint64(h.genre) | uint64(h.subgenre)<<codeBits | uint64(h.mood)<<(2*codeBits) |
			uint64(h.mood2)<<(3*codeBits) | uint64(si.band[i])<<(4*codeBits) | uint64(si.vocals[i])<<(4*codeBits+8)
		k, ok := seen[key]
		if !ok {
			if len(list) == maxCombos {
				return
			}
			k = uint16(len(list))
			seen[key] = k
			list = append(list, si.comboOf(ix, i))
		}
		of[i] = k
	}
	si.combo = semCombos{of: of, list: list}
}

// productTables recycles scores' tables of products.
var productTables = sync.Pool{New: func() any { return new([maxQueryDims][256]float32) }}

// colWeights are the weights of the request's dimensions in a track's
// cosine (each by its concept group's weight) and the offsets of their
// columns.
func (si *semIndex) colWeights(q *semQuery) (w [maxQueryDims]float32, off [maxQueryDims]int) {
	for k, d := range q.dims {
		w[k] = q.wts[k] * si.cosWeight(d) * wTrackVec / vecScale
		off[k] = int(d) * si.n
	}
	return w, off
}

// cosWeight is the weight of dimension d's concept group in the cosine.
func (si *semIndex) cosWeight(d int32) float32 {
	if si.cosW == nil {
		return 1
	}
	return si.cosW[d]
}

// facetTable computes the facet match of every numbered combination
// into buf (as long as the index; nil: a new slice), when that is less
// work than computing it for each of the tracks to score; nil otherwise.
// A cached query keeps its table (semQuery.facets).
func (si *semIndex) facetTable(q *semQuery, tracks int, buf []float32) []float32 {
	cs := si.combo.list
	if cs == nil || len(cs) >= tracks {
		return nil
	}
	if q.facets != nil {
		return q.facets
	}
	if buf == nil {
		buf = make([]float32, len(cs))
	}
	fs := buf[:len(cs)]
	for c := range cs {
		fs[c] = q.near.facet(&cs[c])
	}
	return fs
}

// scores writes every track's semantic score for q into out: the cosine
// of the request with the track's vector (the request's dimensions
// against the track's int8 components, summed in the order of q.dims),
// plus the facet match. Several dimensions are summed per pass over out
// (eight, then four, then one at a time), which leaves each sum what one
// pass per dimension makes of it, and the last pass adds the facet match
// (no pass of its own). Each dimension's products are read from a table
// of its 256 possible ones (the same float32 products, without a
// conversion and a multiplication per track).
func (si *semIndex) scores(ix *Index, q *semQuery, out []float32) {
	n := si.n
	out = out[:n]
	w, off := si.colWeights(q)
	k := len(q.dims)
	tabs := productTables.Get().(*[maxQueryDims][256]float32)
	defer productTables.Put(tabs)
	for j := range k {
		for x := range 256 {
			tabs[j][x] = w[j] * float32(int8(x))
		}
	}
	bp := ix.scratch(n)
	defer ix.release(bp)
	buf := *bp
	var of []uint16
	fs := si.facetTable(q, n, buf)
	if fs != nil {
		of = si.combo.of[:n]
	} else { // the facet match track by track, after the cosines
		buf = buf[:n]
		for i := range buf {
			buf[i] = si.facetOf(ix, &q.near, i)
		}
	}
	col := func(j int) []int8 { return si.cols[off[j] : off[j]+n] }
	clear(out)
	j := 0
	for ; j+8 <= k; j += 8 {
		add8(out, [8][]int8{col(j), col(j + 1), col(j + 2), col(j + 3), col(j + 4), col(j + 5), col(j + 6), col(j + 7)},
			(*[8][256]float32)(tabs[j:j+8]), facetsIf(j+8 == k, fs), of)
	}
	if j+4 <= k {
		add4(out, [4][]int8{col(j), col(j + 1), col(j + 2), col(j + 3)}, (*[4][256]float32)(tabs[j:j+4]), facetsIf(j+4 == k, fs), of)
		j += 4
	}
	if j+2 <= k {
		add2(out, [2][]int8{col(j), col(j + 1)}, (*[2][256]float32)(tabs[j:j+2]), facetsIf(j+2 == k, fs), of)
		j += 2
	}
	if j < k {
		add1(out, col(j), &tabs[j], fs, of)
	}
	switch {
	case fs == nil:
		for i := range out {
			out[i] += buf[i]
		}
	case k == 0:
		for i := range out {
			out[i] += fs[of[i]]
		}
	}
}

// facetsIf is fs when last, else nil: the facet match is the last term of
// a sum.
func facetsIf(last bool, fs []float32) []float32 {
	if last {
		return fs
	}
	return nil
}

// add8 adds to each out[i] the products of eight dimensions (columns c,
// product tables t, in order), then, unless fs is nil, the facet match
// fs[of[i]].
func add8(out []float32, c [8][]int8, t *[8][256]float32, fs []float32, of []uint16) {
	n := len(out)
	c0, c1, c2, c3, c4, c5, c6, c7 := c[0][:n], c[1][:n], c[2][:n], c[3][:n], c[4][:n], c[5][:n], c[6][:n], c[7][:n]
	_ = t[0] // t is not nil: checked once, not per track
	if fs == nil {
		for i := range out {
			s := out[i]
			s += t[0][uint8(c0[i])]
			s += t[1][uint8(c1[i])]
			s += t[2][uint8(c2[i])]
			s += t[3][uint8(c3[i])]
			s += t[4][uint8(c4[i])]
			s += t[5][uint8(c5[i])]
			s += t[6][uint8(c6[i])]
			s += t[7][uint8(c7[i])]
			out[i] = s
		}
		return
	}
	of = of[:n]
	for i := range out {
		s := out[i]
		s += t[0][uint8(c0[i])]
		s += t[1][uint8(c1[i])]
		s += t[2][uint8(c2[i])]
		s += t[3][uint8(c3[i])]
		s += t[4][uint8(c4[i])]
		s += t[5][uint8(c5[i])]
		s += t[6][uint8(c6[i])]
		s += t[7][uint8(c7[i])]
		s += fs[of[i]]
		out[i] = s
	}
}

// add4 is add8 for four dimensions.
func add4(out []float32, c [4][]int8, t *[4][256]float32, fs []float32, of []uint16) {
	n := len(out)
	c0, c1, c2, c3 := c[0][:n], c[1][:n], c[2][:n], c[3][:n]
	_ = t[0]
	if fs == nil {
		for i := range out {
			s := out[i]
			s += t[0][uint8(c0[i])]
			s += t[1][uint8(c1[i])]
			s += t[2][uint8(c2[i])]
			s += t[3][uint8(c3[i])]
			out[i] = s
		}
		return
	}
	of = of[:n]
	for i := range out {
		s := out[i]
		s += t[0][uint8(c0[i])]
		s += t[1][uint8(c1[i])]
		s += t[2][uint8(c2[i])]
		s += t[3][uint8(c3[i])]
		s += fs[of[i]]
		out[i] = s
	}
}

// add2 is add8 for two dimensions.
func add2(out []float32, c [2][]int8, t *[2][256]float32, fs []float32, of []uint16) {
	n := len(out)
	c0, c1 := c[0][:n], c[1][:n]
	_ = t[0]
	if fs == nil {
		for i := range out {
			s := out[i]
			s += t[0][uint8(c0[i])]
			s += t[1][uint8(c1[i])]
			out[i] = s
		}
		return
	}
	of = of[:n]
	for i := range out {
		s := out[i]
		s += t[0][uint8(c0[i])]
		s += t[1][uint8(c1[i])]
		s += fs[of[i]]
		out[i] = s
	}
}

// add1 is add8 for one dimension.
func add1(out []float32, c []int8, t *[256]float32, fs []float32, of []uint16) {
	c = c[:len(out)]
	_ = t[0]
	if fs == nil {
		for i := range out {
			out[i] += t[uint8(c[i])]
		}
		return
	}
	of = of[:len(out)]
	for i := range out {
		s := out[i]
		s += t[uint8(c[i])]
		s += fs[of[i]]
		out[i] = s
	}
}
