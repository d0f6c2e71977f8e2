package recognition

import (
	"context"
	"errors"
	"fmt"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/dsp"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// guideEdges places the edges of the catalog stretches by the tracks' own
// audio (fingerprint.GuideEdges): the video's prepared audio against the
// windows of each track's WAV rendition around the stretch's edges, read
// by range. A track without a readable rendition keeps its edges.
func (s *Service) guideEdges(ctx context.Context, src SourceRef, cat *catalog.Catalog, st []fingerprint.Stretch) ([]fingerprint.Stretch, error) {
	named := false
	for _, x := range st {
		named = named || x.TrackID != ""
	}
	if !named {
		return st, nil
	}
	pcm, err := s.readAudio(ctx, src)
	if errors.Is(err, blob.ErrNotFound) {
		// The prepared audio went with the storage lifecycle while its
		// analysis stayed: the hashes' edges stand.
		s.log.Warn("guided edges skipped: prepared audio missing", "key", src.Key)
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recognition: read prepared audio: %w", err)
	}
	if pcm.Rate != fingerprint.SampleRate {
		pcm = dsp.Resample(pcm, fingerprint.SampleRate)
	}
	refs := &renditions{ctx: ctx, blob: s.blob, cat: cat, layouts: map[string]*decode.WAVLayout{}}
	out, err := fingerprint.GuideEdges(pcm, st, refs.window)
	if err != nil {
		return nil, fmt.Errorf("recognition: guided edges: %w", err)
	}
	return out, nil
}

// renditions reads windows of catalog tracks' WAV renditions.
type renditions struct {
	ctx  context.Context
	blob blob.Store
	cat  *catalog.Catalog
	// layouts caches each track's WAV header; nil for a track without a
	// readable rendition.
	layouts map[string]*decode.WAVLayout
}

// wavHeaderBytes bounds the bytes read for a WAV header (fmt chunk and
// whatever metadata chunks precede the samples).
const wavHeaderBytes = 64 << 10

// window is a fingerprint.Reference: empty audio for a track without a
// readable rendition, which leaves its edges where they are.
func (r *renditions) window(id string, from, seconds float64) (audio.PCM, error) {
	l, err := r.layout(id)
	if err != nil || l == nil {
		return audio.PCM{Rate: fingerprint.SampleRate}, err
	}
	off, n := l.Window(from, seconds)
	if n == 0 {
		return audio.PCM{Rate: l.Rate}, nil
	}
	t, _ := r.cat.Track(id)
	rc, err := r.blob.GetRange(r.ctx, t.Audio.WAVKey, off, n)
	if err != nil {
		return audio.PCM{}, fmt.Errorf("read %s: %w", t.Audio.WAVKey, err)
	}
	defer rc.Close()
	return l.ReadData(rc, n)
}

// layout returns the WAV layout of track id's rendition, nil when the
// catalog has no such track or the rendition is missing or not a WAV the
// decoder reads.
func (r *renditions) layout(id string) (*decode.WAVLayout, error) {
	if l, ok := r.layouts[id]; ok {
		return l, nil
	}
	t, ok := r.cat.Track(id)
	if !ok || t.Audio.WAVKey == "" {
		r.layouts[id] = nil
		return nil, nil
	}
	rc, err := r.blob.GetRange(r.ctx, t.Audio.WAVKey, 0, wavHeaderBytes)
	if errors.Is(err, blob.ErrNotFound) {
		r.layouts[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.Audio.WAVKey, err)
	}
	defer rc.Close()
	l, err := decode.ReadWAVLayout(rc)
	if err != nil {
		// Not a WAV this reader decodes (or a header longer than
		// wavHeaderBytes): the stretch keeps its edges.
		r.layouts[id] = nil
		return nil, nil
	}
	r.layouts[id] = &l
	return &l, nil
}
