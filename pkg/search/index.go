package search

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/search/similarity"
)

// Index is everything searches need about one catalog snapshot. It is
// immutable once built and safe for concurrent use.
type Index struct {
	cat    *catalog.Catalog
	tracks []*catalog.Track
	facets []facets
	byID   map[string]int32
	// bySys maps short ids and ISRCs, lower-cased (input_id_type=system),
	// built on the first such lookup: few requests use it, and a cold
	// start at 100k tracks need not pay for it.
	bySys   map[string]int32
	sysOnce sync.Once
	known   map[string][]string
	sim     simIndex
	text    *textIndex
	sem     *semIndex
	// hot holds what a full scan reads per track, packed (24 bytes a
	// track instead of a pointer chase into each Track).
	hot []hotFacets
	// attrs holds what by-text's attribute preferences read per track.
	attrs []textAttrs
	// codeNames are the interned facet values by code (hotFacets).
	codeNames []string
	// visible[plan][i]: catalog.Visible, evaluated once per plan the
	// identity package knows ("" = anonymous).
	visible map[string][]bool
	// buffers recycles the per-request score slices (one float per
	// track: 400 KB at 100k tracks).
	buffers sync.Pool
	// cands recycles the per-request candidate lists (candidates).
	cands sync.Pool
}

// NewIndex indexes a catalog snapshot.
func NewIndex(cat *catalog.Catalog) (*Index, error) {
	return newIndex(cat, DefaultEmbedder(), func() (*textIndex, error) { return newTextIndex(cat.Tracks()) })
}

// newIndex indexes a snapshot on the text index text returns (built or
// loaded), with emb as the semantic side's embedder.
func newIndex(cat *catalog.Catalog, emb TextEmbedder, text func() (*textIndex, error)) (*Index, error) {
	tracks := cat.Tracks()
	ix := &Index{
		cat: cat, tracks: tracks,
		facets: make([]facets, len(tracks)),
		byID:   make(map[string]int32, len(tracks)),
		known:  knownValues(cat),
		sim:    newSimIndex(tracks),
	}
	type facetKey struct {
		kind byte
		v    string
	}
	codes := map[facetKey]int32{}
	code := func(kind byte, v string) int32 {
		if v == "" {
			return 0
		}
		c, ok := codes[facetKey{kind, v}]
		if !ok {
			c = int32(len(codes) + 1)
			codes[facetKey{kind, v}] = c
		}
		return c
	}
	ix.hot = make([]hotFacets, len(tracks))
	ix.attrs = make([]textAttrs, len(tracks))
	ix.visible = map[string][]bool{}
	for _, plan := range plans {
		ix.visible[plan] = make([]bool, len(tracks))
	}
	lc := lowerCache{}
	for i, t := range tracks {
		f := facetsWith(t, lc.lower)
		f.genreC, f.subgenreC = code('g', f.genre), code('s', f.subgenre)
		f.moodC, f.mood2C = code('m', f.mood), code('m', f.mood2)
		ix.facets[i] = f
		ix.hot[i] = hotFacets{genre: f.genreC, subgenre: f.subgenreC, mood: f.moodC, mood2: f.mood2C,
			tempo: float32(f.tempo), sung: hasVocals(f.vocals)}
		ix.attrs[i] = textAttrs{tempo: f.tempo, length: f.length, vocals: vocalsIndex(f.vocals), names: trackNameKeys(t)}
		for _, plan := range plans {
			ix.visible[plan][i] = catalog.Visible(plan, t)
		}
		ix.byID[strings.ToLower(t.ID)] = int32(i)
	}
	var err error
	if ix.text, err = text(); err != nil {
		return nil, err
	}
	// The tracks' vectors come with a loaded text index when they were
	// computed by the same embedder; otherwise they are computed here.
	cols := ix.text.vectorsOf(emb)
	ix.text.semCols = nil
	names := make(map[int32]string, len(codes))
	for k, c := range codes {
		names[c] = k.v
	}
	ix.codeNames = byCode(names)
	if ix.sem, err = newSemIndex(context.Background(), ix, emb, cols, names); err != nil {
		ix.text.close()
		return nil, err
	}
	return ix, nil
}

// plans are the plans whose visibility an Index precomputes (identity's
// plans and anonymous); any other plan is evaluated per request.
var plans = []string{"", "free", "subscriber", "commercial", "enterprise"}

// hotFacets are the per-track values a full scan reads.
type hotFacets struct {
	genre, subgenre, mood, mood2 int32 // interned codes, 0 = none
	tempo                        float32
	sung                         bool
}

// visibleTo is catalog.Visible for every track under plan.
func (ix *Index) visibleTo(plan string) []bool {
	if v, ok := ix.visible[plan]; ok {
		return v
	}
	v := make([]bool, len(ix.tracks))
	for i, t := range ix.tracks {
		v[i] = catalog.Visible(plan, t)
	}
	return v
}

// Catalog is the snapshot the index was built from.
func (ix *Index) Catalog() *catalog.Catalog { return ix.cat }

// Close releases the text index.
func (ix *Index) Close() error { return ix.text.close() }

// Lookup resolves a track id: our UUID, or with system set the track's
// short id or ISRC (gaps.md by-id input_id_type=system). Only tracks
// visible to plan are found.
func (ix *Index) Lookup(id, plan string, system bool) (*catalog.Track, bool) {
	m := ix.byID
	if system {
		m = ix.systemIDs()
	}
	key := strings.ToLower(strings.TrimSpace(id))
	i, ok := m[key]
	if !ok && system {
		// ISRCs are written with or without hyphens ("QZ-DMO-12-00001");
		// the manifest stores them upper-cased without (and short ids may
		// hold a hyphen, hence the exact key first).
		i, ok = m[normalizeISRC(key)]
	}
	if !ok || !catalog.Visible(plan, ix.tracks[i]) {
		return nil, false
	}
	return ix.tracks[i], true
}

// systemIDs is bySys, built on first use.
func (ix *Index) systemIDs() map[string]int32 {
	ix.sysOnce.Do(func() {
		ix.bySys = make(map[string]int32, 2*len(ix.tracks))
		for i, t := range ix.tracks {
			for _, k := range []string{t.ShortID, t.ISRC} {
				if k = strings.ToLower(k); k != "" {
					if _, dup := ix.bySys[k]; !dup {
						ix.bySys[k] = int32(i)
					}
				}
			}
		}
	})
	return ix.bySys
}

// normalizeISRC is an ISRC as the manifest stores it, lower-cased as the
// system-id keys are: hyphens and spaces dropped.
func normalizeISRC(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(s))
}

// IsTrackUUID reports whether id has the shape of a catalog track id (a
// UUID, any case): by-id with input_id_type=client answers anything else
// with a 400 on track_id, not a 404 that reads as "no such track".
func IsTrackUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, r := range id {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}

// variantOf reports whether a and b are versions of one recording: the
// same artist and base title, at least one carrying a variant marker
// ("Silver Pulse" and "Silver Pulse (Short Edit)"). For by-id they are the
// seed again under another cut, not a recommendation.
func variantOf(a, b *catalog.Track) bool {
	fa, fb := facetsOf(a), facetsOf(b)
	return sameRecording(&fa, &fb)
}

// sameRecording is variantOf on precomputed facets (the by-id scan).
func sameRecording(a, b *facets) bool {
	return (a.variant || b.variant) && a.artist == b.artist && a.baseTitle == b.baseTitle
}

// baseTitle is the display name without the variant marker.
func baseTitle(t *catalog.Track) string {
	name := t.DisplayName()
	if t.Variant != "" {
		name = strings.TrimSuffix(name, " ("+t.Variant+")")
	}
	return strings.TrimSpace(name)
}

// Weights of the similarity ranking. Audio features carry it (a cosine in
// [-1, 1]); metadata is the minor term the issue asks for, at most 0.34:
// enough to decide among tracks that sound about equally close, never
// enough to lift a track that sounds different. On the rendered demo
// catalog the features alone give a precision@10 by genre of 0.50, with
// these weights 0.81 (BenchmarkSimilarPrecisionDemo; the weights were
// chosen on that same catalog).
const (
	wMetaSubgenre = 0.10
	wMetaGenre    = 0.20
	wMetaMood     = 0.04
	// wTempoNear rewards a tempo within the tolerance; PrioritiseBPM adds
	// wPriority, more than any cosine difference, so those come first.
	wTempoNear = 0.05
	wPriority  = 10
	// wEnergy weighs closeness to an energy hint (by-video pictures).
	wEnergy = 0.15
)

// ByID ranks tracks similar to the track id (UUID). The seed never
// appears in its own results.
func (ix *Index) ByID(id string, opts Options) (Result, error) {
	const op = "search.ByID"
	seed, ok := ix.Lookup(id, opts.Plan, false)
	if !ok {
		return Result{}, errs.E(op, errs.NotFound, "Track not found.")
	}
	return ix.SimilarTo(seed, opts)
}

// SimilarTo ranks tracks similar to a catalog track (by-id after the id
// was resolved). Like the seed, its variants (the instrumental or short
// edit of the same recording, see variantOf) are left out: they sound
// most alike by construction and would fill the top of every page with
// the track the caller already has.
func (ix *Index) SimilarTo(seed *catalog.Track, opts Options) (Result, error) {
	if err := opts.Filters.checkKnown("search.SimilarTo", ix.known, false); err != nil {
		return Result{}, err
	}
	si := int(ix.byID[strings.ToLower(seed.ID)])
	vec := ix.sim.row(si)
	buf := ix.cosines(vec, false)
	defer ix.release(buf)
	scores := *buf
	if vec != nil {
		ix.sim.mixEmbeddings(si, scores)
	}
	sh := ix.hot[si]
	sharesMood := func(c int32) bool { return c != 0 && (c == sh.mood || c == sh.mood2) }
	for i := range scores {
		if i == si || isNaN(scores[i]) || sameRecording(&ix.facets[i], &ix.facets[si]) {
			scores[i] = nan
			continue
		}
		h := &ix.hot[i]
		s := scores[i]
		if h.subgenre == sh.subgenre && sh.subgenre != 0 {
			s += wMetaSubgenre
		}
		if h.genre == sh.genre && sh.genre != 0 {
			s += wMetaGenre
		}
		if sharesMood(h.mood) || sharesMood(h.mood2) {
			s += wMetaMood
		}
		if sh.tempo > 0 {
			s += float32(tempoTerm(float64(sh.tempo), float64(h.tempo), opts))
		}
		scores[i] = s
	}
	return ix.rank(opts, scores, nil), nil
}

// ByAudio ranks tracks similar to reference audio (by-url, by-video).
func (ix *Index) ByAudio(q AudioQuery, opts Options) (Result, error) {
	const op = "search.ByAudio"
	if err := opts.Filters.checkKnown(op, ix.known, false); err != nil {
		return Result{}, err
	}
	var vec []float32
	tempo := q.TempoHint
	if q.Features != nil {
		if v := similarity.StandardVector(ix.cat, q.Features.Vector); len(v) == ix.sim.dim {
			vec = v
		}
		if q.Features.Tempo > 0 {
			tempo = q.Features.Tempo
		}
	}
	if vec == nil && tempo <= 0 && q.EnergyHint < 0 {
		return Result{}, errs.E(op, errs.Unprocessable, "The reference has no music that could be analyzed.")
	}
	exclude := -1
	if i, ok := ix.byID[strings.ToLower(q.ExcludeID)]; ok {
		exclude = int(i)
	}
	buf := ix.cosines(vec, true)
	defer ix.release(buf)
	scores := *buf
	for i := range scores {
		if i == exclude || isNaN(scores[i]) {
			scores[i] = nan
			continue
		}
		s := float64(scores[i]) + tempoTerm(tempo, float64(ix.hot[i].tempo), opts)
		if q.EnergyHint >= 0 {
			s += wEnergy * (1 - math.Abs(q.EnergyHint-ix.tracks[i].Energy))
		}
		scores[i] = float32(s)
	}
	return ix.rank(opts, scores, nil), nil
}

var nan = float32(math.NaN())

func isNaN(x float32) bool { return x != x }

// cosines returns a scores buffer (give it back with release) holding the
// cosine of every analyzed track to vec, NaN for tracks without analysis;
// with no vec (a seed without analysis) every track gets 0 and metadata
// decides. raw says vec is not yet weighted (see simIndex.cosines).
func (ix *Index) cosines(vec []float32, raw bool) *[]float32 {
	buf := ix.scratch(len(ix.tracks))
	if vec == nil || len(vec) != ix.sim.dim || ix.sim.dim == 0 {
		clear(*buf)
		return buf
	}
	ix.sim.cosines(vec, raw, *buf)
	return buf
}

// scratch returns a buffer of n floats, not zeroed (give it back with
// release: the pointer is what the pool holds, so that giving it back
// allocates nothing).
func (ix *Index) scratch(n int) *[]float32 {
	if b, ok := ix.buffers.Get().(*[]float32); ok && len(*b) == n {
		return b
	}
	b := make([]float32, n)
	return &b
}

func (ix *Index) release(b *[]float32) { ix.buffers.Put(b) }

// tempoTerm scores a candidate's tempo against a reference tempo: inside
// the tolerance it earns wTempoNear (or wPriority when asked to prioritise);
// outside, nothing. Half and double time count as the same pulse.
func tempoTerm(ref, bpm float64, opts Options) float64 {
	if ref <= 0 || bpm <= 0 {
		return 0
	}
	tol := opts.BPMRange
	if tol <= 0 {
		tol = DefaultBPMRange
	}
	near := math.Abs(bpm-ref) <= tol
	if !near {
		return 0
	}
	if opts.PrioritiseBPM {
		return wPriority
	}
	return wTempoNear
}

// hasVocals reports whether a track is sung (suppress_vocals).
func hasVocals(v string) bool {
	return v == catalog.VocalsMale || v == catalog.VocalsFemale || v == catalog.VocalsMixed
}

// rank keeps the candidates the caller may see and the filters let
// through, and returns the requested page of them, best first (ties in
// catalog order). scores has one entry per track, NaN for tracks that are
// no candidate; cands, when not nil, lists the only positions to look at.
// Filtering before selecting gives the same page as ranking
// everything and filtering afterwards, which is what the contract says,
// since a track's score does not depend on the other candidates.
func (ix *Index) rank(opts Options, scores []float32, cands []int32) Result {
	n := len(scores)
	if cands != nil {
		n = len(cands)
	}
	p := ix.pager(opts, n)
	if cands != nil {
		for _, i := range cands {
			if p.admits(int(i)) {
				p.offer(int(i), scores[i])
			}
		}
	} else {
		for i, s := range scores {
			if p.admits(i) {
				p.offer(i, s)
			}
		}
	}
	return p.result()
}

// pager is rank's selection of a page: a track the caller may see
// (visible) and the filters let through (admits) with a score (not NaN)
// counts in the total and is offered to the page.
type pager struct {
	ix      *Index
	opts    Options
	offset  int
	h       topK
	visible []bool
	hot     []hotFacets   // set when sung tracks are left out
	fm      *facetMatcher // nil without filters
	total   int
}

// pager starts the page opts asks for, out of at most n candidates.
func (ix *Index) pager(opts Options, n int) pager {
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	offset := max(opts.Offset, 0)
	p := pager{ix: ix, opts: opts, offset: offset, visible: ix.visibleTo(opts.Plan),
		h: topK{max: offset + limit, heap: make([]scored, 0, min(offset+limit, n))}}
	if opts.SuppressVocals {
		p.hot = ix.hot
	}
	if !opts.Filters.empty() {
		p.fm = ix.matcher(&opts.Filters)
	}
	return p
}

// admits reports whether track i may be on the page whatever its score.
func (p *pager) admits(i int) bool {
	return p.visible[i] && (p.hot == nil || !p.hot[i].sung) && (p.fm == nil || p.fm.match(i))
}

// offer counts an admitted track with score s (NaN: no candidate) and
// keeps it when it makes the page.
func (p *pager) offer(i int, s float32) {
	if isNaN(s) {
		return
	}
	p.total++
	h := &p.h
	if len(h.heap) == h.max && float64(s) < h.heap[0].s {
		return // cannot enter the page: skip the heap
	}
	h.offer(scored{int32(i), float64(s)})
}

// result is the page, best first (ties in catalog order).
func (p *pager) result() Result {
	ix, opts := p.ix, &p.opts
	best := p.h.sorted()
	res := Result{Total: p.total, DidYouMean: opts.Filters.didYouMean(ix.known)}
	if p.offset < len(best) {
		res.Hits = make([]Hit, 0, len(best)-p.offset)
		for _, c := range best[p.offset:] {
			t := ix.tracks[c.i]
			hit := Hit{Track: t, Score: c.s}
			if opts.Highlights {
				hit.Highlights = highlightsIn(t.Highlights, opts.TimeOffset, opts.TimeLimit, float64(t.Length))
			}
			res.Hits = append(res.Hits, hit)
		}
	}
	return res
}

// highlightsIn returns the regions clipped to the window [offset,
// offset+limit) (limit 0: to the end) and to the track's length (0:
// unknown), in the track's order (strongest hook first); regions outside
// either are left out. Analysis windows can run past the audio (a hook
// found at 10.5 s for 15 s in a 25 s track): a client seeking there would
// play silence or fail.
func highlightsIn(regions []catalog.Region, offset, limit, length float64) []catalog.Region {
	out := []catalog.Region{}
	end := math.Inf(1)
	if limit > 0 {
		end = offset + limit
	}
	if length > 0 {
		end = min(end, length)
	}
	for _, r := range regions {
		lo, hi := max(r.Offset, offset), min(r.Offset+r.Duration, end)
		if hi-lo >= 0.5 { // shorter slivers are no hook
			out = append(out, catalog.Region{Offset: round2(lo), Duration: round2(hi - lo)})
		}
	}
	return out
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

type scored struct {
	i int32
	s float64
}

// better orders by score, then by catalog position for stable pages.
func better(a, b scored) bool { return a.s > b.s || (a.s == b.s && a.i < b.i) }

// topK keeps the best max candidates in a min-heap (worst on top).
type topK struct {
	max  int
	heap []scored
}

func (h *topK) offer(c scored) {
	if len(h.heap) < h.max {
		h.heap = append(h.heap, c)
		h.up(len(h.heap) - 1)
		return
	}
	if h.max > 0 && better(c, h.heap[0]) {
		h.heap[0] = c
		h.down(0)
	}
}

// up moves entry j towards the top while it is worse than its parent.
func (h *topK) up(j int) {
	for j > 0 {
		p := (j - 1) / 2
		if !better(h.heap[p], h.heap[j]) {
			break
		}
		h.heap[p], h.heap[j] = h.heap[j], h.heap[p]
		j = p
	}
}

// down moves entry j away from the top while a child is worse.
func (h *topK) down(j int) {
	n := len(h.heap)
	for {
		w := j // the worst of j and its children
		if l := 2*j + 1; l < n && better(h.heap[w], h.heap[l]) {
			w = l
		}
		if r := 2*j + 2; r < n && better(h.heap[w], h.heap[r]) {
			w = r
		}
		if w == j {
			return
		}
		h.heap[j], h.heap[w] = h.heap[w], h.heap[j]
		j = w
	}
}

// sorted returns the kept candidates best first (better is a total
// order: positions are distinct), reordering the heap's own array.
func (h *topK) sorted() []scored {
	out := h.heap
	h.heap = nil
	slices.SortFunc(out, func(a, b scored) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	return out
}
