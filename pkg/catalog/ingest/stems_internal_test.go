package ingest

import (
	"testing"

	"musiccatalog/pkg/audio/fingerprint"
)

// withStems keeps every stem hash up to maxDenseStems stems and an even,
// fixed share beyond, so a track's stems add at most maxDenseStems stems'
// worth of postings.
func TestWithStemsBoundsTheIndex(t *testing.T) {
	stem := func(seed uint32, n int) trackHashes {
		h := trackHashes{Seconds: 30 + float64(seed)}
		for i := range n {
			h.Hashes = append(h.Hashes, fingerprint.Hash{Key: (seed*7919 + uint32(i)*104729) % (1 << fingerprint.HashBits), Time: uint32(i / 4)})
		}
		return h
	}
	track := stem(0, 3000)
	for _, c := range []struct{ stems, minKept, maxKept int }{
		{0, 0, 0}, {1, 1000, 1000}, {3, 3000, 3000}, {6, 2700, 3300}, {12, 2700, 3300},
	} {
		var stems []trackHashes
		for i := range c.stems {
			stems = append(stems, stem(uint32(i+1), 1000))
		}
		got := withStems(track, stems)
		kept := len(got.Hashes) - len(track.Hashes)
		if kept < c.minKept || kept > c.maxKept {
			t.Errorf("%d stems of 1000 hashes: %d kept, want %d–%d", c.stems, kept, c.minKept, c.maxKept)
		}
		if c.stems > 0 && got.Seconds != 30+float64(c.stems) {
			t.Errorf("%d stems: %.0f s, want the longest", c.stems, got.Seconds)
		}
		if again := withStems(track, stems); len(again.Hashes) != len(got.Hashes) {
			t.Errorf("%d stems: not deterministic", c.stems)
		}
	}
	if len(track.Hashes) != 3000 {
		t.Error("withStems changed the track's hashes")
	}
}
