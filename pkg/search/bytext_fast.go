package search

import (
	"slices"

	"musiccatalog/pkg/catalog"
)

// The per-request buffers and per-track tables of by-text's hot path
// (issue 15, speed): what lets a request at 10k tracks allocate next to
// nothing and read compact, catalog-ordered memory.

// candidates returns a candidate list's buffer with room for every track
// (give it back with releaseCandidates).
func (ix *Index) candidates() *[]int32 {
	if b, ok := ix.cands.Get().(*[]int32); ok && cap(*b) >= len(ix.tracks) {
		return b
	}
	b := make([]int32, 0, len(ix.tracks))
	return &b
}

func (ix *Index) releaseCandidates(b *[]int32) { ix.cands.Put(b) }

// nonZero lists the positions of cnt's non-zero entries, in order, in
// buf's array (as long as cnt at least). It does not branch on the
// counts: a quarter of the catalog matching in no order would mispredict
// a branch for every other track.
func nonZero(cnt []uint8, buf []int32) []int32 {
	buf = buf[:len(cnt)]
	m := 0
	for d, c := range cnt {
		buf[m] = int32(d)
		m += int((uint(c) + 255) >> 8) // 1 when c > 0
	}
	return buf[:m]
}

// textAttrs are a track's values by-text's attribute preferences read
// (its facets' tempo, length and vocals), packed: 24 bytes a track
// instead of the facets' 250, with the vocals as an index.
type textAttrs struct {
	tempo, length float64
	vocals        uint8 // vocalsIndex
	names         nameKeys
}

// sung is hasVocals of the track's vocals.
func (a *textAttrs) sung() bool { return sungIndex[a.vocals] }

// sungIndex is hasVocals by vocalsIndex.
var sungIndex = func() (t [len(vocalsOrder) + 1]bool) {
	for k, v := range vocalsOrder {
		t[k+1] = hasVocals(v)
	}
	return t
}()

// mixedIndex is the vocalsIndex of mixed vocals.
var mixedIndex = vocalsIndex(catalog.VocalsMixed)

// byCode lists the interned facet values by code.
func byCode(names map[int32]string) []string {
	out := make([]string, len(names)+1)
	for c, v := range names {
		out[c] = v
	}
	return out
}

// facetMatcher is Filters.match for the tracks of an index, with the
// classification filters (genres, subgenres, moods, vocals) turned into
// tables by interned code once per request: a page of candidates then
// costs a few table reads each instead of string comparisons.
type facetMatcher struct {
	ix                    *Index
	genre, subgenre, mood []bool // by code; nil when not filtered on
	vocals                []bool // by vocalsIndex; nil when not filtered on
	rest                  Filters
	restEmpty             bool
}

// matcher compiles f for ix.
func (ix *Index) matcher(f *Filters) *facetMatcher {
	m := &facetMatcher{ix: ix, rest: *f}
	byName := func(list []string) []bool {
		if len(list) == 0 {
			return nil
		}
		t := make([]bool, len(ix.codeNames))
		for c, v := range ix.codeNames {
			t[c] = v != "" && slices.Contains(list, v)
		}
		return t
	}
	m.genre, m.subgenre, m.mood = byName(f.Genres), byName(f.Subgenres), byName(f.Moods)
	m.rest.Genres, m.rest.Subgenres, m.rest.Moods = nil, nil, nil
	if len(f.Vocals) > 0 && !slices.ContainsFunc(f.Vocals, func(v string) bool { return vocalsIndex(v) == 0 }) {
		m.vocals = make([]bool, len(vocalsOrder)+1)
		for k, v := range vocalsOrder {
			m.vocals[k+1] = slices.Contains(f.Vocals, v)
		}
		m.rest.Vocals = nil
	}
	m.restEmpty = m.rest.empty()
	return m
}

// match is Filters.match of track i.
func (m *facetMatcher) match(i int) bool {
	h := &m.ix.hot[i]
	switch {
	case m.genre != nil && !m.genre[h.genre],
		m.subgenre != nil && !m.subgenre[h.subgenre],
		m.mood != nil && !m.mood[h.mood] && !m.mood[h.mood2],
		m.vocals != nil && !m.vocals[m.ix.attrs[i].vocals]:
		return false
	}
	return m.restEmpty || m.rest.match(&m.ix.facets[i])
}
