package search

import (
	"context"
	"musiccatalog/pkg/cputime"
	"testing"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/searchtest"
)

// BenchmarkTrackVectors10k is the ingest cost of the semantic side: the
// vectors of 10k demo tracks from their own text, with the offline
// embedder (ns/track and µs-cpu/track are per track, on all cores; run
// with -cpu 1 for one core), and the bytes they add to the snapshot.
//
//	go test -run '^$' -bench TrackVectors10k -benchtime 3x -cpu 1 ./pkg/search/
func BenchmarkTrackVectors10k(b *testing.B) {
	cat, err := catalog.New(searchtest.DemoContents(b, 10_000, demo.DefaultSeed, true))
	if err != nil {
		b.Fatal(err)
	}
	emb := DefaultEmbedder()
	var cols []int8
	c0 := cputime.Self()
	for b.Loop() {
		if cols, err = trackVectors(context.Background(), emb, cat.Tracks()); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cputime.Self() - c0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10_000), "ns/track")
	b.ReportMetric(cpu.Seconds()*1e6/float64(b.N*10_000), "µs-cpu/track")
	b.ReportMetric(float64(len(cols))/1e6, "MB-per-10k-tracks")
}

// BenchmarkSemanticColdStart100k is what the semantic side adds to a
// cold start at 100k tracks with the vectors loaded from the snapshot:
// the facet vectors and per-track bands (newSemIndex), then the first
// request's embedding and scan. Run with -cpu 1.
//
//	go test -run '^$' -bench SemanticColdStart100k -benchtime 5x -cpu 1 ./pkg/search/
func BenchmarkSemanticColdStart100k(b *testing.B) {
	const n = 100_000
	cat, err := catalog.New(searchtest.DemoContents(b, n, demo.DefaultSeed, true))
	if err != nil {
		b.Fatal(err)
	}
	emb := DefaultEmbedder()
	ix := &Index{tracks: cat.Tracks(), facets: make([]facets, n), hot: make([]hotFacets, n)}
	codes := map[int32]string{}
	seen := map[string]int32{}
	code := func(v string) int32 {
		if v == "" {
			return 0
		}
		c, ok := seen[v]
		if !ok {
			c = int32(len(seen) + 1)
			seen[v], codes[c] = c, v
		}
		return c
	}
	for i, t := range ix.tracks {
		f := facetsOf(t)
		ix.facets[i] = f
		ix.hot[i] = hotFacets{genre: code(f.genre), subgenre: code(f.subgenre), mood: code(f.mood), mood2: code(f.mood2)}
	}
	cols := make([]int8, emb.Dim()*n) // as loaded: the timing does not depend on the values
	out := make([]float32, n)
	var build, query time.Duration
	for b.Loop() {
		t0 := time.Now()
		si, err := newSemIndex(context.Background(), ix, emb, cols, codes)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		q, err := si.query(context.Background(), []string{"chill", "lo-fi", "beats", "for", "studying"})
		if err != nil || q == nil {
			b.Fatal(err)
		}
		si.scores(ix, q, out)
		build, query = t1.Sub(t0), time.Since(t1)
	}
	b.ReportMetric(float64(build.Microseconds())/1000, "ms-sem-index")
	b.ReportMetric(float64(query.Microseconds())/1000, "ms-first-query-sem")
}
