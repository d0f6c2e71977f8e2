package fpindex_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"musiccatalog/pkg/cputime"
	"runtime"
	"testing"
	"time"

	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/fpindex"
)

// hashesPerSecond is about what IndexOptions yields on music (18 peaks a
// second, fan-out 6).
const hashesPerSecond = 108

// synthetic returns the hashes of a track of the given length: random
// keys at random frames, the index's statistics without decoding audio.
func synthetic(r *rand.Rand, seconds float64) []fingerprint.Hash {
	frames := uint32(seconds / fingerprint.FrameSeconds)
	hs := make([]fingerprint.Hash, int(seconds*hashesPerSecond))
	for i := range hs {
		hs[i] = fingerprint.Hash{Key: r.Uint32N(1 << fingerprint.HashBits), Time: r.Uint32N(frames)}
	}
	return hs
}

// publishFingerprints publishes a catalog of n tracks of the given length
// whose fingerprints are one index segment, and returns the store, the
// hashes of track 0 and the segment's size.
func publishFingerprints(tb testing.TB, n int, seconds float64) (blob.Store, []fingerprint.Hash, int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	c := catalogtest.Contents(n, 0)
	bl := fingerprint.NewBuilder()
	var first []fingerprint.Hash
	seg := catalog.Segment{Key: "catalog/fingerprints/segments/bench.fpi"}
	for i, t := range c.Tracks {
		hs := synthetic(r, seconds)
		if i == 0 {
			first = hs
		}
		if err := bl.Add(t.ID, seconds, hs); err != nil {
			tb.Fatal(err)
		}
		seg.TrackIDs = append(seg.TrackIDs, t.ID)
	}
	data, err := bl.Build().MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	bs := catalogtest.NewStore(tb)
	if err := bs.Put(context.Background(), seg.Key, bytes.NewReader(data), int64(len(data)), "application/octet-stream"); err != nil {
		tb.Fatal(err)
	}
	c.Segments = []catalog.Segment{seg}
	catalogtest.Publish(tb, bs, c)
	return bs, first, len(data)
}

// TestForLoadsTheSegments: the index of a published catalog holds its
// tracks and finds a track from an excerpt of its own hashes.
func TestForLoadsTheSegments(t *testing.T) {
	bs, first, _ := publishFingerprints(t, 20, 60)
	cat, err := catalog.Load(t.Context(), bs)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := (&fpindex.Index{Blob: bs}).For(t.Context(), cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Tracks()) != 20 {
		t.Fatalf("%d tracks, want 20", len(ix.Tracks()))
	}
	got := ix.Match(excerpt(first, 10, 30), fingerprint.MatchOptions{})
	if len(got) == 0 || got[0].TrackID != cat.Tracks()[0].ID {
		t.Fatalf("excerpt of track 0 matched %+v", got)
	}
}

// excerpt is the hashes of [from, from+seconds) of a track, on the
// excerpt's own timeline.
func excerpt(hs []fingerprint.Hash, from, seconds float64) []fingerprint.Hash {
	lo, hi := uint32(from/fingerprint.FrameSeconds), uint32((from+seconds)/fingerprint.FrameSeconds)
	var out []fingerprint.Hash
	for _, h := range hs {
		if h.Time >= lo && h.Time < hi {
			out = append(out, fingerprint.Hash{Key: h.Key, Time: h.Time - lo})
		}
	}
	return out
}

// BenchmarkColdStartMatch100h is the first match of a fresh
// recognition-match instance over a catalog of 100 hours of audio (2,000
// three-minute tracks, about 39 million postings): the snapshot load,
// the fingerprint index load and the first match of a 10-s excerpt
// (issue 12: ≤ 1.5 s at GOMAXPROCS=1).
//
//	go test -run '^$' -bench ColdStartMatch100h -benchtime 1x -cpu 1 ./pkg/catalog/fpindex/
func BenchmarkColdStartMatch100h(b *testing.B) {
	bs, first, size := publishFingerprints(b, 2000, 180)
	var snap, load, match, cpu time.Duration
	var cat *catalog.Catalog
	for b.Loop() {
		runtime.GC()
		ctx := context.Background()
		c0, t0 := cputime.Self(), time.Now()
		var err error
		if cat, err = catalog.NewLoader(bs).Current(ctx); err != nil {
			b.Fatal(err)
		}
		ts := time.Now()
		ix, err := (&fpindex.Index{Blob: bs}).For(ctx, cat)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		got := ix.Match(excerpt(first, 60, 10), fingerprint.MatchOptions{})
		if len(got) == 0 || got[0].TrackID != cat.Tracks()[0].ID {
			b.Fatalf("excerpt of track 0 matched %+v", got)
		}
		snap, load, match, cpu = ts.Sub(t0), t1.Sub(ts), time.Since(t1), cputime.Self()-c0
	}
	b.ReportMetric(float64(size)/1e6, "MB-segment")
	b.ReportMetric(snap.Seconds(), "s-snapshot-load")
	b.ReportMetric(load.Seconds(), "s-index-load")
	b.ReportMetric(match.Seconds(), "s-first-match")
	b.ReportMetric((snap + load + match).Seconds(), "s-first-answer")
	b.ReportMetric(cpu.Seconds(), "s-cpu-first-answer")
}
