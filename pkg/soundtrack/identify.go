package soundtrack

import (
	"context"
	"errors"
	"fmt"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/fpindex"
)

// FingerprintIdentifier matches a recording against the catalog's
// fingerprint index (the same index recognition uses).
type FingerprintIdentifier struct {
	Catalog catalog.Source
	// Index holds the catalog's merged index in memory; share one with
	// recognition so a process keeps a single copy.
	Index *fpindex.Index
}

var _ Identifier = (*FingerprintIdentifier)(nil)

// Identify returns the id of the catalog track whose fingerprints the
// recording matches best, clearly ahead of the others (the matcher's
// default score and ratio thresholds); "" when none does or the catalog
// has no fingerprint index.
func (f *FingerprintIdentifier) Identify(ctx context.Context, pcm audio.PCM) (string, error) {
	if pcm.Rate != fingerprint.SampleRate {
		return "", fmt.Errorf("soundtrack: identify: audio at %d Hz, fingerprints need %d", pcm.Rate, fingerprint.SampleRate)
	}
	cat, err := f.Catalog.Current(ctx)
	if errors.Is(err, catalog.ErrNoCatalog) {
		return "", nil // nothing published yet: nothing to be identified as
	}
	if err != nil {
		return "", fmt.Errorf("soundtrack: identify: catalog: %w", err)
	}
	ix, err := f.Index.For(ctx, cat)
	if err != nil || ix == nil {
		return "", err
	}
	hashes := fingerprint.New(fingerprint.QueryOptions).Fingerprint(pcm)
	cands := ix.Match(hashes, fingerprint.MatchOptions{MaxCandidates: 1})
	if len(cands) == 0 {
		return "", nil
	}
	return cands[0].TrackID, nil
}
