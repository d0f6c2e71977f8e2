package search

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/search/semantic"
)

// TextEmbedder turns text into a vector whose cosine with another text's
// says how alike they mean (the semantic side of by-text). The offline
// default is semantic.Default (a situation lexicon spread over WordNet,
// embedded in the function); a hosted model (e.g. Amazon Bedrock) can be
// an adapter. Vectors of different IDs are never compared: track vectors
// stored with a snapshot under another ID are recomputed.
type TextEmbedder interface {
	// ID names the model and its version.
	ID() string
	// Dim is the length of every vector Embed returns.
	Dim() int
	// Embed returns the unit vector of text, or nil when nothing of the
	// text means anything to the model.
	Embed(ctx context.Context, text string) ([]float32, error)
}

// facetEmbedder is what an embedder may add: the vector of a catalog
// facet value from its name and a short description of it (zero-shot
// facet understanding). Without it a value is embedded as its name.
type facetEmbedder interface {
	EmbedFacet(ctx context.Context, value string) ([]float32, error)
}

// wordKnower is what an embedder may add: whether it knows a word. A
// known word is no typo (it is not spell-corrected into some catalog
// word).
type wordKnower interface {
	Known(word string) bool
}

// queryEmbedder is what an embedder may add: a request read in context
// (a homonym of a music word in its everyday sense out of musical
// context, a feeling before a topic's associations, idioms before their
// words). Without it a request is embedded as any text.
type queryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

var _ interface {
	TextEmbedder
	facetEmbedder
	wordKnower
	queryEmbedder
} = (*semantic.Embedder)(nil)

// DefaultEmbedder is the offline embedder the search function embeds.
func DefaultEmbedder() TextEmbedder {
	e, err := semantic.Default()
	if err != nil { // the embedded lexicon is checked by its tests
		panic(fmt.Sprintf("search: embedded lexicon: %v", err))
	}
	return e
}

// WithEmbedder sets the text embedder (DefaultEmbedder when not set).
func WithEmbedder(e TextEmbedder) Option { return func(s *Service) { s.emb = e } }

// Weights of a track's own text in its vector (each field's vector is a
// unit vector): the classification says most, the tags and description
// next, the title least (titles are poetry, not description).
const (
	wVecGenre       = 1.0
	wVecSubgenre    = 1.2
	wVecMood        = 1.0
	wVecMood2       = 0.6
	wVecTags        = 0.8
	wVecDescription = 0.7
	wVecTitle       = 0.2
	wVecVocals      = 0.5
	wVecTempo       = 0.4
	wVecStems       = 0.3
)

// vecScale is the int8 quantization of a unit vector's components.
const vecScale = 127

// semIndex holds the semantic side of an Index: the tracks' vectors
// (int8, dimension-major, so a query touches only its non-zero
// dimensions), the vectors of the catalog's facet values, and the
// per-track tempo band and vocals the zero-shot facet match reads.
type semIndex struct {
	emb  TextEmbedder
	dim  int
	n    int
	cols []int8 // cols[d*n+i]: component d of track i, × vecScale

	facetVec [][]float32 // by interned facet code (0 = none)
	bandVec  [4][]float32
	vocVec   [len(vocalsOrder) + 1][]float32
	band     []uint8 // 0 none, 1 slow, 2 medium, 3 fast
	vocals   []uint8 // 1 + the index in vocalsOrder, 0 none or unknown
	voice    []bool  // the embedder's voice dimensions (voiceMask)
	// group and cosW are the dimensions' concept groups and the weights of
	// the cosine's part on them (dimGroups; nil: none, every part 1).
	group []int8
	cosW  []float32
	// The tracks' facet combinations (semCombos): what the facet match
	// is computed once per request for.
	combo semCombos

	mu     sync.RWMutex
	cache  map[string]*semQuery
	cached int
	// facetBytes is what the cached queries' facet tables hold
	// (maxFacetTableBytes).
	facetBytes int
}

// maxCachedQueries bounds the query-embedding cache (a vector of ~100
// floats, its sparse form and its closeness to each facet value: a few MB).
const maxCachedQueries = 4096

// maxFacetTableBytes bounds the facet tables kept with the cached queries
// (semQuery.facets: 4 bytes a facet combination, 8 KB a query at 10k
// tracks); past it a request computes its table as it scans.
const maxFacetTableBytes = 16 << 20

// tempoBands are the tempo filter's descriptors, in band order.
var tempoBands = [4]string{"", catalog.TempoSlow, catalog.TempoMedium, catalog.TempoFast}

func bandOf(bpm float64) uint8 {
	switch catalog.TempoDescriptor(bpm) {
	case catalog.TempoSlow:
		return 1
	case catalog.TempoMedium:
		return 2
	case catalog.TempoFast:
		return 3
	}
	return 0
}

// embedFacet is the vector of a facet value (nil when unknown).
func embedFacet(ctx context.Context, e TextEmbedder, value string) []float32 {
	var v []float32
	if fe, ok := e.(facetEmbedder); ok {
		v, _ = fe.EmbedFacet(ctx, value)
	} else {
		v, _ = e.Embed(ctx, value)
	}
	if len(v) != e.Dim() {
		return nil
	}
	return v
}

// vocalsText is how a vocals value reads as a facet.
var vocalsText = map[string]string{catalog.VocalsInstrumental: "instrumental", catalog.VocalsFemale: "female",
	catalog.VocalsMale: "male", catalog.VocalsMixed: "mixed"}

// vocalsOrder numbers the vocals values a track's vocals index refers to.
var vocalsOrder = [...]string{catalog.VocalsInstrumental, catalog.VocalsFemale, catalog.VocalsMale, catalog.VocalsMixed}

func vocalsIndex(v string) uint8 {
	switch v {
	case vocalsOrder[0]:
		return 1
	case vocalsOrder[1]:
		return 2
	case vocalsOrder[2]:
		return 3
	case vocalsOrder[3]:
		return 4
	}
	return 0
}

// quantize writes the unit vector of acc as track i's column entries.
func quantize(acc []float32, cols []int8, i, n int) {
	var s float64
	for _, x := range acc {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := vecScale / float32(math.Sqrt(s))
	for d, x := range acc {
		cols[d*n+i] = int8(min(vecScale, max(-vecScale, x*inv+0.5*sign(x))))
	}
}

func sign(x float32) float32 {
	if x < 0 {
		return -1
	}
	return 1
}

// newSemIndex builds the semantic side of ix on the tracks' vectors (cols
// nil: compute them).
func newSemIndex(ctx context.Context, ix *Index, e TextEmbedder, cols []int8, codes map[int32]string) (*semIndex, error) {
	n := len(ix.tracks)
	if cols == nil {
		var err error
		if cols, err = trackVectors(ctx, e, ix.tracks); err != nil {
			return nil, err
		}
	}
	si := &semIndex{emb: e, dim: e.Dim(), n: n, cols: cols, cache: map[string]*semQuery{},
		band: make([]uint8, n), vocals: make([]uint8, n), voice: voiceMask(e)}
	si.group, si.cosW = dimGroups(e)
	si.facetVec = make([][]float32, len(codes)+1)
	for c, v := range codes {
		si.facetVec[c] = embedFacet(ctx, e, v)
	}
	for b := 1; b < len(tempoBands); b++ {
		si.bandVec[b] = embedFacet(ctx, e, tempoBands[b])
	}
	for k, v := range vocalsOrder {
		si.vocVec[k+1] = embedFacet(ctx, e, vocalsText[v])
	}
	for i := range ix.tracks {
		f := &ix.facets[i]
		if f.tempo > 0 {
			si.band[i] = bandOf(f.tempo)
		}
		si.vocals[i] = vocalsIndex(f.vocals)
	}
	si.combos(ix)
	return si, nil
}

// semQuery is an embedded request: its vector and the non-zero
// dimensions of its content (the sparse form the scan reads; the voice
// is left to the vocals facet).
type semQuery struct {
	vec  []float32
	dims []int32
	wts  []float32
	near semNear // how close vec is to the facet values (semIndex.near)
	// music is the request's squared weight on style and instrument
	// concepts (semIndex.musicShare).
	music float32
	// facets is the facet match by numbered combination (facetTable),
	// when kept with the cached query; nil: computed per request.
	facets []float32
}

// maxQueryDims bounds the dimensions a query scans; sparseMin drops the
// faint ones.
const (
	maxQueryDims = 24
	sparseMin    = 0.04
)

// query embeds a request's words (cached by the normalized text).
func (si *semIndex) query(ctx context.Context, words []string) (*semQuery, error) {
	key := strings.Join(words, " ")
	if key == "" {
		return nil, nil
	}
	si.mu.RLock()
	q, ok := si.cache[key]
	si.mu.RUnlock()
	if ok {
		return q, nil
	}
	var v []float32
	var err error
	if qe, ok := si.emb.(queryEmbedder); ok {
		v, err = qe.EmbedQuery(ctx, key)
	} else {
		v, err = si.emb.Embed(ctx, key)
	}
	if err != nil {
		return nil, err
	}
	if len(v) == si.dim {
		q = &semQuery{vec: v}
		type dw struct {
			d int32
			w float32
		}
		var all []dw
		for d, x := range contentOf(v, si.voice) { // the voice is the vocals facet's
			if x >= sparseMin {
				all = append(all, dw{int32(d), x})
			}
		}
		sortDesc(all, func(a dw) float32 { return a.w })
		for _, x := range all[:min(len(all), maxQueryDims)] {
			q.dims = append(q.dims, x.d)
			q.wts = append(q.wts, x.w)
		}
		q.near = si.near(v)
		q.music = si.musicShare(q)
		// The table is kept only within maxFacetTableBytes (checked again
		// below, under the write lock): no table is computed to be dropped.
		si.mu.RLock()
		room := si.facetBytes+4*len(si.combo.list) <= maxFacetTableBytes
		si.mu.RUnlock()
		if room {
			q.facets = si.facetTable(q, si.n, nil)
		}
	}
	si.mu.Lock()
	if had, ok := si.cache[key]; ok { // embedded meanwhile by another request
		si.mu.Unlock()
		return had, nil
	}
	if len(si.cache) >= maxCachedQueries {
		for k, old := range si.cache {
			delete(si.cache, k) // map order: an arbitrary victim
			if old != nil {
				si.facetBytes -= 4 * len(old.facets)
			}
			break
		}
	}
	if q != nil {
		if si.facetBytes+4*len(q.facets) > maxFacetTableBytes {
			q.facets = nil
		}
		si.facetBytes += 4 * len(q.facets)
	}
	si.cache[key] = q
	si.mu.Unlock()
	return q, nil
}

func sortDesc[T any](xs []T, key func(T) float32) {
	for i := 1; i < len(xs); i++ { // insertion sort: ~100 items, once per new request
		for j := i; j > 0 && key(xs[j]) > key(xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// Weights of the zero-shot facet match: how close the request is to the
// track's genre or subgenre, its moods, its tempo band and its vocals.
// All but the genre's were fitted (semantic_groups.go; hand-set 0.35,
// 0.15, 2.0 and 0.8 before): the secondary mood counts as much as the
// main one when the request is closer to it (the fit may not raise it
// above).
const (
	wFacetGenre  = 0.35
	wFacetMood   = 0.77
	wFacetTempo  = 0.135
	wFacetVocals = 2.2
	// wMood2 weighs the secondary mood against the main one.
	wMood2 = 1.0
	// wTrackVec is the share of the track-vector cosine in the semantic
	// score; the rest is the facet match.
	wTrackVec = 0.8
)

func dot(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
