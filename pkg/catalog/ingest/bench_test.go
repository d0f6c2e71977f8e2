package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/catalog/manifest"
)

// BenchmarkIngestWesnoth ingests all 41 tracks of wesnoth-1.16-music into
// an empty local store and reports the speed in × real time (issue 4:
// at least 20× on this 2-core machine). Run with -benchtime 1x.
//
//	go test -run '^$' -bench IngestWesnoth -benchtime 1x ./pkg/catalog/ingest/
func BenchmarkIngestWesnoth(b *testing.B) {
	files, _ := filepath.Glob("/usr/share/games/wesnoth/1.16/data/core/music/*.ogg")
	if len(files) == 0 {
		b.Skip("wesnoth-1.16-music is not installed")
	}
	path := filepath.Join(b.TempDir(), "wesnoth.jsonl")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := manifest.NewWriter(out)
	for _, f := range files {
		w.Track(manifest.Track{Name: filepath.Base(f), Artist: catalog.Artist{Name: "Battle for Wesnoth"}, Genre: "Cinematic", Audio: f})
	}
	if err := errors.Join(w.Flush(), out.Close()); err != nil {
		b.Fatal(err)
	}
	var rep ingest.Report
	for b.Loop() {
		var err error
		rep, err = ingest.Run(b.Context(), ingest.Options{Blob: catalogtest.NewStore(b)}, path)
		if err != nil || rep.Tracks != len(files) {
			b.Fatalf("%v\n%s", err, rep)
		}
	}
	b.ReportMetric(rep.RealTime(), "x-realtime")
	b.ReportMetric(rep.AudioSeconds, "s-audio")
	b.ReportMetric(rep.Elapsed.Seconds(), "s-wall")
}

// BenchmarkDemo generates the default demo catalog and ingests it, as
// `make run` does on a fresh data directory (issue 4: under a minute).
//
//	go test -run '^$' -bench Demo -benchtime 1x ./pkg/catalog/ingest/
func BenchmarkDemo(b *testing.B) {
	var gen, ing time.Duration
	var rep ingest.Report
	var bs blob.Store
	for b.Loop() {
		dir := b.TempDir()
		start := time.Now()
		path, err := demo.Generate(b.Context(), dir, demo.DefaultTracks, demo.DefaultSeed)
		if err != nil {
			b.Fatal(err)
		}
		gen = time.Since(start)
		bs = catalogtest.NewStore(b)
		rep, err = ingest.Run(b.Context(), ingest.Options{Blob: bs}, path)
		if err != nil || len(rep.Errors) > 0 {
			b.Fatalf("%v\n%s", err, rep)
		}
		ing = time.Since(start) - gen
	}
	b.ReportMetric(gen.Seconds(), "s-generate")
	b.ReportMetric(ing.Seconds(), "s-ingest")
	b.ReportMetric(rep.AudioSeconds, "s-audio")
	b.ReportMetric(float64(rep.Tracks+rep.Stems+rep.SoundFX), "files")
	// Index size (issue 16 budget: 3 MB an hour of catalog audio), per hour
	// of the tracks' own audio and per hour of everything indexed (tracks
	// and the stems indexed under them).
	c, err := catalog.Load(b.Context(), bs)
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, k := range c.FingerprintSegments() {
		a, err := bs.Head(b.Context(), k)
		if err != nil {
			b.Fatal(err)
		}
		bytes += a.Size
	}
	var trackSec, stemSec float64
	for _, t := range c.Tracks() {
		trackSec += float64(t.Length)
		for _, s := range t.Stems {
			stemSec += float64(s.Length)
		}
	}
	b.ReportMetric(float64(bytes)/1e6/(trackSec/3600), "MB/h-tracks")
	b.ReportMetric(float64(bytes)/1e6/((trackSec+stemSec)/3600), "MB/h-indexed")
}
