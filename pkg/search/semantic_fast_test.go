package search

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/searchtest"
)

// semScoresReference is the semantic score in its plainest form: one
// pass over out per request dimension, then each track's facet match.
func semScoresReference(ix *Index, q *semQuery, out []float32) {
	si, n := ix.sem, ix.sem.n
	clear(out)
	for k, d := range q.dims {
		w := q.wts[k] * si.cosWeight(d) * wTrackVec / vecScale
		for i, x := range si.cols[int(d)*n : int(d)*n+n] {
			out[i] += w * float32(x)
		}
	}
	for i := range out {
		out[i] += si.facetOf(ix, &q.near, i)
	}
}

// TestSemanticPathsAgree: the full scan (four dimensions a pass, facet
// match by combination) gives every track the same float32 score, to
// the bit, as the plain computation, with and without the combination
// table, for every request of rankingQueries.
func TestSemanticPathsAgree(t *testing.T) {
	cat, err := catalog.New(searchtest.DemoContents(t, 2000, demo.DefaultSeed, true))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := NewIndex(cat)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	n := len(ix.tracks)
	if l := len(ix.sem.combo.list); l == 0 || l >= n {
		t.Fatalf("%d facet combinations over %d tracks", l, n)
	}
	want, got := make([]float32, n), make([]float32, n)
	checked := 0
	for _, text := range rankingQueries(300) {
		q := Understand(text, 0)
		if !q.understood() {
			continue
		}
		q = ix.correct(q)
		acc := make([]float32, n)
		matched, _, err := ix.text.scores(t.Context(), q.Groups, acc, make([]int32, 0, n))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(matched) {
			t.Fatalf("%q: candidates out of catalog order", text)
		}
		sq, err := ix.sem.query(t.Context(), q.Words)
		if err != nil {
			t.Fatal(err)
		}
		if sq == nil || len(sq.dims) == 0 {
			continue
		}
		semScoresReference(ix, sq, want)
		for _, table := range []bool{true, false} {
			list := ix.sem.combo.list
			if !table {
				ix.sem.combo.list = nil
			}
			ix.sem.scores(ix, sq, got)
			ix.sem.combo.list = list
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%q, table %v: track %d scores %v, plainly %v", text, table, i, got[i], want[i])
				}
			}
		}
		checked++
	}
	if checked < 300 {
		t.Errorf("only %d requests had a meaning", checked)
	}
}

// TestPackedFacetsAgree: what by-text and the ranking read from the
// packed per-track tables (textAttrs, the compiled filters) says what the
// facets say, for every track of the demo catalog.
func TestPackedFacetsAgree(t *testing.T) {
	ix := demoIndex(t, demo.DefaultTracks)
	for i := range ix.tracks {
		f, a := &ix.facets[i], &ix.attrs[i]
		if a.tempo != f.tempo || a.length != f.length || a.sung() != hasVocals(f.vocals) ||
			(a.vocals == mixedIndex) != (f.vocals == catalog.VocalsMixed) {
			t.Fatalf("track %d: attrs %+v, facets tempo %v length %v vocals %q", i, *a, f.tempo, f.length, f.vocals)
		}
		for _, v := range vocalsOrder {
			if (a.vocals == vocalsIndex(v)) != (f.vocals == v) {
				t.Fatalf("track %d: vocals %q, index %d", i, f.vocals, a.vocals)
			}
		}
	}
	bpm := Range{90, 120}
	yes := true
	filters := []Filters{
		{},
		{Genres: []string{"rock", "pop", "jazz"}},
		{Subgenres: []string{"synthwave", "house", "lo-fi hip hop"}},
		{Subgenres: []string{"synthwave", "ambient electronic"}, Moods: []string{"dreamy", "dark"}},
		{Moods: []string{"calm", "happy"}},
		{Vocals: []string{catalog.VocalsFemale, catalog.VocalsMixed}},
		{Vocals: []string{"robotic"}}, // no such vocals: Filters.match decides
		{Genres: []string{"electronic"}, BPM: &bpm, Tempos: []string{catalog.TempoMedium}},
		{Moods: []string{"epic"}, Restricted: &yes},
		{Genres: []string{"no such genre"}},
		{TitleContains: "a", Vocals: []string{catalog.VocalsInstrumental}},
	}
	for k, f := range filters {
		m, n := ix.matcher(&f), 0
		for i := range ix.tracks {
			want := f.match(&ix.facets[i])
			if m.match(i) != want {
				t.Fatalf("filters #%d, track %d: compiled %v, Filters.match %v", k, i, !want, want)
			}
			if want {
				n++
			}
		}
		t.Logf("filters #%d: %d tracks", k, n)
	}
}

// TestNonZero: the candidate list is the positions of the non-zero
// counters, in order.
func TestNonZero(t *testing.T) {
	cnt := []uint8{0, 3, 0, 0, 255, 1, 0, 1}
	if got := nonZero(cnt, make([]int32, 0, len(cnt))); !slices.Equal(got, []int32{1, 4, 5, 7}) {
		t.Errorf("%v", got)
	}
	if got := nonZero(make([]uint8, 5), make([]int32, 0, 5)); got == nil || len(got) != 0 {
		t.Errorf("no match: %v", got)
	}
}

// TestFacetTablesKeptWithinBudget: the facet tables kept with cached
// queries are the tables a request computes, their bytes are accounted
// as queries come and go (a full cache evicting), and they stay within
// maxFacetTableBytes.
func TestFacetTablesKeptWithinBudget(t *testing.T) {
	ix := demoIndex(t, 10_000)
	si := ix.sem
	if l := len(si.combo.list); l == 0 || l >= si.n {
		t.Fatalf("%d facet combinations over %d tracks", l, si.n)
	}
	words := []string{"calm", "epic", "dark", "happy", "rainy", "night", "piano", "drive"}
	for i := range maxCachedQueries + 100 {
		if _, err := si.query(t.Context(), []string{words[i%len(words)], fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	si.mu.RLock()
	defer si.mu.RUnlock()
	sum, kept := 0, 0
	for _, q := range si.cache {
		if q == nil || q.facets == nil {
			continue
		}
		sum += 4 * len(q.facets)
		kept++
		if kept <= 20 {
			plain := *q
			plain.facets = nil
			want := si.facetTable(&plain, si.n, nil)
			if !slices.EqualFunc(q.facets, want, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Fatal("a kept facet table differs from the computed one")
			}
		}
	}
	if sum != si.facetBytes || sum > maxFacetTableBytes || kept == 0 || kept == len(si.cache) {
		t.Errorf("%d bytes of %d tables kept for %d queries, accounted %d (budget %d)", sum, kept, len(si.cache), si.facetBytes, maxFacetTableBytes)
	}
}

// TestFullFacetBudgetSkipsTheTable: with the facet-table budget spent, a
// new query does not compute a table it could not keep (before, it
// computed one, 4 bytes per facet combination, and dropped it). Measured
// as the bytes a batch of new queries allocates, with and without room.
func TestFullFacetBudgetSkipsTheTable(t *testing.T) {
	ix := demoIndex(t, 10_000)
	si := ix.sem
	table := uint64(4 * len(si.combo.list))
	if table == 0 || len(si.combo.list) >= si.n {
		t.Fatalf("%d facet combinations over %d tracks", len(si.combo.list), si.n)
	}
	const batch = 40
	defer func() { // the index is shared: account its tables again
		si.mu.Lock()
		defer si.mu.Unlock()
		si.facetBytes = 0
		for _, q := range si.cache {
			if q != nil {
				si.facetBytes += 4 * len(q.facets)
			}
		}
	}()
	allocated := func(prefix string, spent int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range batch {
			si.mu.Lock()
			si.facetBytes = spent // (a full cache's evictions free some)
			si.mu.Unlock()
			if _, err := si.query(t.Context(), []string{prefix, fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / batch
	}
	room := allocated("budgetroom", 0) // words no other test asks for
	full := allocated("budgetfull", maxFacetTableBytes)
	if full+table/2 > room {
		t.Errorf("a query allocates %d bytes with a full budget, %d with room; the table is %d", full, room, table)
	}
	si.mu.RLock()
	defer si.mu.RUnlock()
	for k, q := range si.cache {
		if strings.HasPrefix(k, "budgetfull ") && q != nil && q.facets != nil {
			t.Fatalf("%q kept a table over the budget", k)
		}
	}
}
