// Package fpindex keeps a catalog version's fingerprint index in memory.
// It is apart from package catalog so that a function serving metadata
// only (track detail, filters, allowlist) does not link the audio engine.
package fpindex

import (
	"context"
	"fmt"
	"sync"

	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/fingerprint/background"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// Index keeps the merged fingerprint index of a catalog version
// in memory: recognition and by-video identification both match against
// it. It loads the version's segments from the blob store on first use and
// again when asked for another version. Safe for concurrent use.
type Index struct {
	Blob blob.Store

	mu      sync.Mutex
	loaded  bool
	version string
	ix      *fingerprint.Index // nil when the catalog has no segments
}

// For returns the merged index of cat's fingerprint segments, or nil when
// the catalog has none. A small catalog (background.For: under
// background.Below seconds outside its longest track) is matched against
// the background music as well (never reported): with few tracks of its
// own it would otherwise name music it does not hold.
func (f *Index) For(ctx context.Context, cat *catalog.Catalog) (*fingerprint.Index, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded && f.version == cat.Version() {
		return f.ix, nil
	}
	var segs []*fingerprint.Index
	for _, key := range cat.FingerprintSegments() {
		rc, _, err := f.Blob.Get(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("fpindex: fingerprint segment %s: %w", key, err)
		}
		ix, err := fingerprint.ReadIndex(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("fpindex: fingerprint segment %s: %w", key, err)
		}
		segs = append(segs, ix)
	}
	var merged *fingerprint.Index
	switch len(segs) {
	case 0:
	case 1:
		merged = segs[0]
	default:
		var err error
		if merged, err = fingerprint.Merge(segs...); err != nil {
			return nil, fmt.Errorf("fpindex: merge fingerprint segments: %w", err)
		}
	}
	merged, err := background.For(merged)
	if err != nil {
		return nil, fmt.Errorf("fpindex: %w", err)
	}
	f.loaded, f.version, f.ix = true, cat.Version(), merged
	return merged, nil
}
