package fingerprint_test

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/audio/fingerprint"
)

// BenchmarkFingerprintIndex fingerprints a real track with IndexOptions;
// the x-realtime metric is audio seconds per CPU second.
func BenchmarkFingerprintIndex(b *testing.B) {
	benchFingerprint(b, fingerprint.IndexOptions)
}

// BenchmarkFingerprintQuery is the same with QueryOptions.
func BenchmarkFingerprintQuery(b *testing.B) {
	benchFingerprint(b, fingerprint.QueryOptions)
}

func benchFingerprint(b *testing.B, opts fingerprint.Options) {
	tracks := loadTracks(b)
	pcm := tracks[0].pcm
	fp := fingerprint.New(opts)
	var dst []fingerprint.Hash
	b.ResetTimer()
	for b.Loop() {
		dst = fp.AppendHashes(dst[:0], pcm)
	}
	b.ReportMetric(pcm.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
}

// BenchmarkMatch10s matches a 10-s clip's hashes against the 41-track index.
func BenchmarkMatch10s(b *testing.B) {
	tracks := loadTracks(b)
	ix, _, _ := buildIndex(b, tracks, func(int) bool { return true })
	q := fingerprint.New(fingerprint.QueryOptions).Fingerprint(tracks[1].pcm.Window(30, 10))
	b.ResetTimer()
	for b.Loop() {
		ix.Match(q, fingerprint.MatchOptions{})
	}
}

// BenchmarkMatch100h matches a 10-s clip against 100 hours (see big100h).
func BenchmarkMatch100h(b *testing.B) {
	ix, tracks := index100h(b)
	q := fingerprint.New(fingerprint.QueryOptions).Fingerprint(tracks[1].pcm.Window(30, 10))
	b.ResetTimer()
	for b.Loop() {
		ix.Match(q, fingerprint.MatchOptions{})
	}
}

// index100h is the real tracks' hashes 47 times (see big100h).
func index100h(b *testing.B) (*fingerprint.Index, []benchTrack) {
	tracks := loadTracks(b)
	fp := fingerprint.New(fingerprint.IndexOptions)
	hs := make([][]fingerprint.Hash, len(tracks))
	for i, t := range tracks {
		hs[i] = fp.Fingerprint(t.pcm)
	}
	bl := fingerprint.NewBuilder()
	for c := range 47 { // 47 × 2.14 h ≈ 100 h
		for i, t := range tracks {
			if err := bl.Add(fmt.Sprintf("%s#%d", t.name, c), t.pcm.Seconds(), rotate(hs[i], c)); err != nil {
				b.Fatal(err)
			}
		}
	}
	return bl.Build(), tracks
}
