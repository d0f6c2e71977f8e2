package recognition

import (
	"context"
	"fmt"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/catalog"
)

// loadedIndex is the catalog's fingerprint index, its segments merged,
// kept while the catalog version stays current.
type loadedIndex struct {
	version string
	ix      *fingerprint.Index // nil when the catalog has no segments
}

// catalogIndex returns the merged fingerprint index of cat, loading it
// from the blob store on first use and after a catalog change.
func (s *Service) catalogIndex(ctx context.Context, cat *catalog.Catalog) (*fingerprint.Index, error) {
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	if s.index != nil && s.index.version == cat.Version() {
		return s.index.ix, nil
	}
	var segs []*fingerprint.Index
	for _, key := range cat.FingerprintSegments() {
		rc, _, err := s.blob.Get(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("recognition: fingerprint segment %s: %w", key, err)
		}
		ix, err := fingerprint.ReadIndex(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("recognition: fingerprint segment %s: %w", key, err)
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
			return nil, fmt.Errorf("recognition: merge fingerprint segments: %w", err)
		}
	}
	s.index = &loadedIndex{version: cat.Version(), ix: merged}
	return merged, nil
}

// unexplained is the timeline of a catalog without fingerprints: all the
// music is unexplained.
func unexplained(music []audio.Range) []fingerprint.Stretch {
	out := []fingerprint.Stretch{}
	for _, m := range music {
		if m.EndMs-m.StartMs >= minStretchMs {
			out = append(out, fingerprint.Stretch{StartMs: m.StartMs, EndMs: m.EndMs})
		}
	}
	return out
}

// minStretchMs is the shortest stretch reported, as Timeline's default.
const minStretchMs = 2000
