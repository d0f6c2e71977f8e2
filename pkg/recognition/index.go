package recognition

import (
	"context"
	"fmt"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/catalog"
)

// catalogIndex returns the merged fingerprint index of cat (nil when it
// has no segments), loaded once per catalog version.
func (s *Service) catalogIndex(ctx context.Context, cat *catalog.Catalog) (*fingerprint.Index, error) {
	ix, err := s.index.For(ctx, cat)
	if err != nil {
		return nil, fmt.Errorf("recognition: %w", err)
	}
	return ix, nil
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
