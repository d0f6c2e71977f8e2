package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/heldout"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/search/similarity"
)

// BenchmarkSimilarPrecisionDemo renders the default demo catalog, ingests
// it (real audio analysis: the Features by-id compares) and reports the
// mean precision@10 by genre of by-id over every track: the share of the
// ten most similar tracks that have the seed's genre. "audio-only" is the
// same with the metadata term switched off, to show what the features
// carry alone. Takes about a minute (rendering and analysis).
//
//	go test -run '^$' -bench SimilarPrecisionDemo -benchtime 1x ./pkg/search/
func BenchmarkSimilarPrecisionDemo(b *testing.B) {
	path, err := demo.Generate(b.Context(), b.TempDir(), demo.DefaultTracks, demo.DefaultSeed)
	if err != nil {
		b.Fatal(err)
	}
	benchSimilarPrecision(b, ingestedIndex(b, path))
}

// BenchmarkSimilarPrecisionHeldout is the same on the held-out catalog of
// issue 15 (package heldout: 320 tracks of its own 31 subgenres in 10
// genres, audio rendered in a style that depends on the subgenre), whose
// metadata term the ranking was never tuned on.
//
//	go test -run '^$' -bench SimilarPrecisionHeldout -benchtime 1x ./pkg/search/
func BenchmarkSimilarPrecisionHeldout(b *testing.B) {
	path, err := heldout.Generate(b.Context(), b.TempDir(), heldout.DefaultTracks, heldout.DefaultSeed)
	if err != nil {
		b.Fatal(err)
	}
	benchSimilarPrecision(b, ingestedIndex(b, path))
}

// ingestedIndex ingests the manifest at path (real audio analysis) into a
// fresh store and indexes the published catalog.
func ingestedIndex(b *testing.B, path string) *Index {
	return ingestedIndexBy(b, path, nil)
}

// ingestedIndexBy is ingestedIndex with analyzer (nil: ingestion's
// default, ingest.Engine).
func ingestedIndexBy(b *testing.B, path string, analyzer ingest.Analyzer) *Index {
	bs := catalogtest.NewStore(b)
	if rep, err := ingest.Run(b.Context(), ingest.Options{Blob: bs, Analyzer: analyzer}, path); err != nil || len(rep.Errors) > 0 {
		b.Fatalf("%v\n%s", err, rep)
	}
	cat, err := catalog.NewLoader(bs).Current(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	ix, err := NewIndex(cat)
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// benchSimilarPrecision reports by-id precision@10 by genre with and
// without the metadata term.
func benchSimilarPrecision(b *testing.B, ix *Index) {
	var withMeta, audioOnly float64
	for b.Loop() {
		withMeta = precisionByGenre(b, ix, false)
		audioOnly = precisionByGenre(b, ix, true)
	}
	b.ReportMetric(withMeta, "precision@10")
	b.ReportMetric(audioOnly, "audio-only-precision@10")
	b.ReportMetric(float64(len(ix.tracks)), "tracks")
}

// precisionByGenre is the mean share of same-genre tracks in the top 10 of
// by-id over every analyzed track; audioOnly ranks by the cosine alone.
func precisionByGenre(tb testing.TB, ix *Index, audioOnly bool) float64 {
	var sum float64
	n := 0
	for i, t := range ix.tracks {
		if !ix.sim.has[i] {
			continue
		}
		var hits []*catalog.Track
		if audioOnly {
			hits = similarity.Similar(ix.cat, ix.sim.row(i), nil, t.ID, 10)
		} else {
			res, err := ix.SimilarTo(t, Options{Plan: "enterprise", Limit: 10})
			if err != nil {
				tb.Fatal(err)
			}
			for _, h := range res.Hits {
				hits = append(hits, h.Track)
			}
		}
		same := 0
		for _, h := range hits {
			if h.Genre == t.Genre {
				same++
			}
		}
		sum += float64(same) / 10
		n++
	}
	return sum / float64(max(n, 1))
}

// BenchmarkByID100k is by-id at 100k tracks: a seed's full ranking (cosine
// over every track, metadata term, top-20 page). Vectors are random unit
// vectors of the engine's dimension (so the descriptor weights apply),
// and every track has an audio embedding of basicpitch's projection
// (random, through the snapshot's 8 bits, mixed in as by-id does); what it
// measures is the scan.
func BenchmarkByID100k(b *testing.B) {
	const n = 100_000
	dim := len(features.VectorNames)
	r := rand.New(rand.NewPCG(3, 4))
	genres := []string{"Rock", "Jazz", "Pop", "Electronic", "Cinematic"}
	unitRandom := func(dim int) []float32 {
		v := make([]float32, dim)
		var norm float32
		for k := range v {
			v[k] = float32(r.NormFloat64())
			norm += v[k] * v[k]
		}
		for k := range v {
			v[k] /= float32(math.Sqrt(float64(norm)))
		}
		return v
	}
	c := catalog.Contents{}
	for i := range n {
		tempo := 60 + float64(r.IntN(120))
		c.Tracks = append(c.Tracks, &catalog.Track{
			ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Name: fmt.Sprint("Track ", i), Tempo: &tempo,
			Genre: genres[i%5], Subgenre: genres[i%5] + fmt.Sprint(i%3), Mood: "Calm", Vocals: catalog.VocalsInstrumental,
			AccessTier: catalog.TierFree, Features: unitRandom(dim), Length: 120,
			AudioEmbedding: catalog.QuantizeEmbedding(unitRandom(embeddingDim100k)),
		})
	}
	cat, err := catalog.New(c)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	ix, err := NewIndex(cat)
	if err != nil {
		b.Fatal(err)
	}
	build := time.Since(t0)
	runtime.GC() // the build's garbage is not the query's
	i := 0
	var lat []time.Duration
	for b.Loop() {
		t1 := time.Now()
		if _, err := ix.SimilarTo(cat.Tracks()[i%n], Options{Limit: 20}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t1))
		i += 7919
	}
	b.ReportMetric(percentile(lat, 0.5), "p50_ms")
	b.ReportMetric(percentile(lat, 0.99), "p99_ms")
	b.ReportMetric(build.Seconds(), "s-index-build")
}

// embeddingDim100k is the length of the tracks' embeddings in
// BenchmarkByID100k: basicpitch's default projection.
const embeddingDim100k = 32
