package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/vellum/levenshtein"

	"musiccatalog/pkg/catalog"
)

// Text fields of the index and how much a match in each counts. The
// classification names say most about what a track is; tags and names
// next; the description and lyrics are long and loose.
const (
	fieldMeta   = "meta"   // genre, subgenre, mood, secondary mood
	fieldTags   = "tags"   // tags and stem names
	fieldNames  = "names"  // title, artist, album
	fieldDesc   = "desc"   // description
	fieldLyrics = "lyrics" // lyrics
)

var fieldBoost = map[string]float64{fieldMeta: 3, fieldTags: 1.6, fieldNames: 1.2, fieldDesc: 0.7, fieldLyrics: 0.3}

// textFields are the fields in the order their words enter the vocabulary.
var textFields = []string{fieldMeta, fieldTags, fieldNames, fieldDesc, fieldLyrics}

// textIndex is an in-memory bleve (scorch) index over the tracks'
// metadata, scored with BM25, plus the vocabulary of the words it holds
// (to tell a typo from a word that simply does not occur).
type textIndex struct {
	idx   bleve.Index
	n     int // documents
	vocab map[string]bool
	words []string // vocab as a list, for typo correction
	dir   string   // the files of a loaded index (loadTextIndex), removed on close

	// counterPool recycles the per-request match counters (zeroed).
	counterPool sync.Pool

	// The tracks' semantic vectors when the index was loaded with them
	// (semIndex.cols' layout), and the embedder they were computed by.
	semID   string
	semCols []int8

	mu     sync.RWMutex
	cache  map[string]groupHits // by groupKey
	cached int                  // hits held in cache
}

// newTextIndex builds the text index in memory.
func newTextIndex(tracks []*catalog.Track) (*textIndex, error) { return buildTextIndex("", tracks) }

// textMapping is the index mapping: the fields, their analyzer, BM25.
func textMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	doc := bleve.NewDocumentStaticMapping()
	for f := range fieldBoost {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store, fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = doc
	m.StoreDynamic, m.IndexDynamic, m.DocValuesDynamic = false, false, false
	return m
}

// buildTextIndex indexes the tracks, in memory when path is "", else in
// a scorch index persisted at path (BuildTextIndex).
func buildTextIndex(path string, tracks []*catalog.Track) (*textIndex, error) {
	idx, err := bleve.NewUsing(path, textMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("search: text index: %w", err)
	}
	ti := &textIndex{idx: idx, n: len(tracks), vocab: map[string]bool{}, cache: map[string]groupHits{}}
	// One batch makes one segment: an in-memory index is never merged, and
	// every extra segment would cost each term of each query a lookup.
	b := idx.NewBatch()
	for i, t := range tracks {
		d := textDoc(t)
		for _, f := range textFields { // in a fixed order: typo corrections take the first of equally near words
			for _, w := range words(d[f].(string)) {
				if !ti.vocab[w] {
					ti.vocab[w] = true
					ti.words = append(ti.words, w)
				}
			}
		}
		if err := b.Index(strconv.Itoa(i), d); err != nil {
			idx.Close()
			return nil, fmt.Errorf("search: index track %s: %w", t.ID, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, fmt.Errorf("search: text index batch: %w", err)
	}
	return ti, nil
}

func textDoc(t *catalog.Track) map[string]any {
	tags := strings.Join(t.Tags, " . ")
	for _, s := range t.Stems {
		tags += " . " + s.Name
	}
	names := t.DisplayName() + " . " + t.Artist.Name
	if t.Album != nil {
		names += " . " + t.Album.Name
	}
	return map[string]any{
		fieldMeta:   strings.Join([]string{t.Genre, t.Subgenre, t.Mood, t.SecondaryMood}, " . "),
		fieldTags:   tags,
		fieldNames:  names,
		fieldDesc:   t.Description,
		fieldLyrics: t.Lyrics,
	}
}

// words splits text into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// vectorsOf returns the loaded track vectors when emb computed them.
func (ti *textIndex) vectorsOf(emb TextEmbedder) []int8 {
	if ti.semID == "" || ti.semID != vectorsID(emb) || len(ti.semCols) != emb.Dim()*ti.n {
		return nil
	}
	return ti.semCols
}

func (ti *textIndex) close() error {
	err := ti.idx.Close()
	if ti.dir != "" {
		err = errors.Join(err, os.RemoveAll(ti.dir))
	}
	return err
}

// alt is one way a query word may appear in a track: the word itself, a
// synonym, a member of its cluster, with a weight below 1 for the looser
// ones.
type alt struct {
	phrase string
	weight float64
	fuzzy  bool // the word is unknown: match near spellings
	// corrected marks the head of a group the request did not spell so
	// (a typo fix or a fuzzy match); set on the group's first alt only.
	corrected bool
}

// group is one concept of the query (a word and its alternatives); a track
// scores for a group when any alternative matches.
type group []alt

// groupQuery is a disjunction over the fields of the word itself and, as
// one looser clause, of its alternatives (a track scores for a group when
// any of them matches). Alternatives only search the short descriptive
// fields: a synonym in a lyric says little. Keeping one clause per field
// and kind, rather than one per alternative, keeps a query to a few dozen
// term searchers: the difference between 5 ms and under 1 ms at 10k tracks.
func groupQuery(g group) query.Query {
	var qs []query.Query
	var loose []string
	looseWeight := 0.0
	for _, a := range g {
		if a.weight < 1 && !a.fuzzy {
			loose = append(loose, a.phrase)
			looseWeight = max(looseWeight, a.weight)
			continue
		}
		for f, boost := range fieldBoost {
			if a.fuzzy {
				if f != fieldMeta && f != fieldTags && f != fieldNames {
					continue
				}
				fq := bleve.NewFuzzyQuery(a.phrase)
				fq.SetField(f)
				fq.SetFuzziness(1 + min(1, len(a.phrase)/7))
				fq.SetBoost(boost * a.weight)
				qs = append(qs, fq)
				continue
			}
			mq := bleve.NewMatchQuery(a.phrase)
			mq.SetField(f)
			mq.SetOperator(query.MatchQueryOperatorAnd)
			mq.SetBoost(boost * a.weight)
			qs = append(qs, mq)
		}
	}
	if len(loose) > 0 {
		for _, f := range []string{fieldMeta, fieldTags} {
			mq := bleve.NewMatchQuery(strings.Join(loose, " "))
			mq.SetField(f)
			mq.SetBoost(fieldBoost[f] * looseWeight)
			qs = append(qs, mq)
		}
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// groupHits are the tracks one group matches, by position, with their
// BM25 score.
type groupHits struct {
	docs   []int32
	scores []float32
	best   float32 // the highest of scores (0 when none)
}

// maxCachedHits bounds the group cache (8 bytes a hit: 32 MB).
const maxCachedHits = 4 << 20

// group returns the matches of one concept, from the cache when the same
// concept (word and alternatives) was asked before on this snapshot.
// Queries are made of a small, repeating vocabulary, so almost every
// request finds its words cached and bleve runs only for new ones; the
// BM25 figures are the same either way, since they depend on the snapshot
// alone.
func (ti *textIndex) group(ctx context.Context, g group) (groupHits, error) {
	var kb [256]byte
	kbs := groupKey(kb[:0], g)
	ti.mu.RLock()
	h, ok := ti.cache[string(kbs)] // no copy of the key to look it up
	ti.mu.RUnlock()
	if ok {
		return h, nil
	}
	key := string(kbs)
	req := bleve.NewSearchRequestOptions(groupQuery(g), ti.n, 0, false)
	res, err := ti.idx.SearchInContext(ctx, req)
	if errors.Is(err, levenshtein.ErrTooManyStates) {
		// A near-spelling search the engine refuses to build matches
		// nothing; the request's other words still count. (correct keeps
		// words this long from being fuzzed; this is the backstop.)
		res, err = &bleve.SearchResult{}, nil
	}
	if err != nil {
		return groupHits{}, err
	}
	h = groupHits{docs: make([]int32, 0, len(res.Hits)), scores: make([]float32, 0, len(res.Hits))}
	for _, m := range res.Hits {
		if i, err := strconv.Atoi(m.ID); err == nil {
			h.docs = append(h.docs, int32(i))
			h.scores = append(h.scores, float32(m.Score))
		}
	}
	if len(h.scores) > 0 {
		h.best = slices.Max(h.scores)
	}
	ti.mu.Lock()
	for k, old := range ti.cache {
		if ti.cached+len(h.docs) <= maxCachedHits {
			break
		}
		delete(ti.cache, k) // map order: an arbitrary victim, good enough for a cache of words
		ti.cached -= len(old.docs)
	}
	if _, dup := ti.cache[key]; !dup {
		ti.cache[key] = h
		ti.cached += len(h.docs)
	}
	ti.mu.Unlock()
	return h, nil
}

// groupKey appends the cache key of g to b.
func groupKey(b []byte, g group) []byte {
	for _, a := range g {
		b = append(b, a.phrase...)
		b = append(b, 0)
		b = strconv.AppendFloat(b, a.weight, 'g', -1, 64)
		b = append(b, 0)
		b = strconv.AppendBool(b, a.fuzzy)
		b = append(b, 1)
	}
	return b
}

// scores combines the groups as bleve's disjunction does: the sum of the
// group scores times the share of groups matched (its coordination
// factor), so a track matching more of the request's concepts ranks
// higher. It writes the score of every matched track into acc (which must
// be zero on entry and as long as the index) and returns the positions of
// the matched tracks, in catalog order, in buf's array (which must hold
// as many positions as the index has tracks), and the request's reference
// score: what a track matching every group as well as the group's best
// match would score (the sum of the groups' best scores), which no
// track's score exceeds.
func (ti *textIndex) scores(ctx context.Context, groups []group, acc []float32, buf []int32) ([]int32, float32, error) {
	if len(groups) == 0 {
		return nil, 0, nil
	}
	tm, err := ti.match(ctx, groups, acc)
	if err != nil {
		return nil, 0, err
	}
	defer ti.release(&tm)
	return tm.list(acc, buf), tm.ref, nil
}

// textMatch is the text side of a request before its candidates are
// listed (textIndex.match): the groups' scores summed into the caller's
// acc, how many groups matched each track, and the request's reference
// score.
type textMatch struct {
	cnt    *[]uint8 // groups matched, by track (pooled: textIndex.release)
	listed bool     // list or withSemCandidates zeroed cnt
	// coord is the coordination factor of c groups matched, by c.
	coord [256]float32
	ref   float32
}

// match sums the scores of the (at most 255) groups into acc and counts
// the groups each track matched (see scores).
func (ti *textIndex) match(ctx context.Context, groups []group, acc []float32) (textMatch, error) {
	// A request has at most maxGroups groups (ByText): room for them on
	// the stack.
	var hitsBuf [maxGroups]groupHits
	var scaleBuf [maxGroups]float32
	hits, scale := hitsBuf[:0], scaleBuf[:0]
	for _, g := range groups {
		h, err := ti.group(ctx, g)
		if err != nil {
			return textMatch{}, err
		}
		hits = append(hits, h)
	}
	scale = correctedScale(groups, hits, scale)
	tm := textMatch{cnt: ti.counters()}
	for k, h := range hits {
		tm.ref += h.best * scale[k]
	}
	cnt := *tm.cnt
	for k, h := range hits {
		for j, d := range h.docs {
			acc[d] += h.scores[j] * scale[k]
			cnt[d]++
		}
	}
	total := float32(len(groups))
	for c := range min(len(groups)+1, len(tm.coord)) {
		tm.coord[c] = float32(c) / total
	}
	return tm, nil
}

// list returns the positions of the matched tracks, in catalog order, in
// buf's array, with their scores in acc times their coordination factor,
// and zeroes the counters.
func (tm *textMatch) list(acc []float32, buf []int32) []int32 {
	cnt := *tm.cnt
	matched := nonZero(cnt, buf) // never nil: "no match" is not "no words"
	for _, d := range matched {
		acc[d] *= tm.coord[cnt[d]]
		cnt[d] = 0 // leave the pooled counters zero
	}
	tm.listed = true
	return matched
}

// release gives the match counters back, zeroed (by list or
// withSemCandidates, or here when the request ended before).
func (ti *textIndex) release(tm *textMatch) {
	if !tm.listed {
		clear(*tm.cnt)
	}
	ti.counterPool.Put(tm.cnt)
}

// counters returns zeroed per-track match counters (give them back to
// counterPool).
func (ti *textIndex) counters() *[]uint8 {
	if c, ok := ti.counterPool.Get().(*[]uint8); ok {
		return c
	}
	c := make([]uint8, ti.n)
	return &c
}

// matches reports, per track position, whether any group matches (the
// exclusions of a negated query); nil when there are no groups.
func (ti *textIndex) matches(ctx context.Context, groups []group) ([]bool, error) {
	if len(groups) == 0 {
		return nil, nil
	}
	out := make([]bool, ti.n)
	for _, g := range groups {
		h, err := ti.group(ctx, g)
		if err != nil {
			return nil, err
		}
		for _, d := range h.docs {
			out[d] = true
		}
	}
	return out, nil
}

// correctedShare caps a corrected word's best score at this share of the
// weakest best score among the words spelled as the catalog spells them.
const correctedShare = 0.5

// correctedScale is the factor for each group's BM25 scores: 1 for the
// words as written, and for a corrected word whatever keeps its best
// score under correctedShare of the weakest exact word's best. BM25 gives
// a rare word a high score, and a correction often lands on a rare word
// ("genre" → "tense" once made the top results Cinematic/Suspense for
// "rock genre"); a guess must not outrank what the request actually said.
// With no exact word matching anything, corrections rank on their own.
//
// The factors are appended to scale (a buffer; nil allocates).
func correctedScale(groups []group, hits []groupHits, scale []float32) []float32 {
	scale = slices.Grow(scale[:0], len(groups))[:len(groups)]
	exactMin := float32(-1)
	for k, g := range groups {
		scale[k] = 1
		if g[0].corrected || len(hits[k].scores) == 0 {
			continue
		}
		if m := hits[k].best; exactMin < 0 || m < exactMin {
			exactMin = m
		}
	}
	if exactMin <= 0 {
		return scale
	}
	for k, g := range groups {
		if !g[0].corrected || len(hits[k].scores) == 0 {
			continue
		}
		if m := hits[k].best; m > 0 {
			scale[k] = min(1, correctedShare*exactMin/m)
		}
	}
	return scale
}
