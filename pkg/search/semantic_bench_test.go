package search

import (
	"context"
	"testing"

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
	c0 := cpuTime()
	for b.Loop() {
		if cols, err = trackVectors(context.Background(), emb, cat.Tracks()); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime() - c0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10_000), "ns/track")
	b.ReportMetric(cpu.Seconds()*1e6/float64(b.N*10_000), "µs-cpu/track")
	b.ReportMetric(float64(len(cols))/1e6, "MB-per-10k-tracks")
}
