package recognition

import (
	"context"
	"errors"
	"fmt"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// guideEdges widens the catalog stretches to where their tracks are heard
// (fingerprint.GuideEdges): windows of the video's prepared audio against
// windows of each track's WAV rendition around the stretch's edges, both
// read by range. Guiding only refines what the hashes found: a track
// without a readable rendition keeps its edges, and any other failure
// leaves the timeline as it was (logged), unless ctx ended.
func (s *Service) guideEdges(ctx context.Context, src SourceRef, durationMs int64, cat *catalog.Catalog, st []fingerprint.Stretch) ([]fingerprint.Stretch, error) {
	guided := false
	for _, x := range st {
		guided = guided || x.TrackID != "" && x.Speed == 0 && x.Semitones == 0
	}
	if !guided {
		return st, nil
	}
	wavs := &wavWindows{blob: s.blob, layouts: map[string]*decode.WAVLayout{}, warned: map[string]bool{}}
	video := workDir(src.Key, src.ETag) + audioFile
	query := func(from, seconds float64) (audio.PCM, error) { return wavs.read(ctx, video, from, seconds) }
	track := func(id string, from, seconds float64) (audio.PCM, error) {
		t, ok := cat.Track(id)
		if !ok || t.Audio.WAVKey == "" {
			return audio.PCM{Rate: fingerprint.SampleRate}, nil
		}
		p, err := wavs.read(ctx, t.Audio.WAVKey, from, seconds)
		if errors.Is(err, blob.ErrNotFound) || errors.Is(err, errNotWAV) {
			if !wavs.warned[t.Audio.WAVKey] {
				s.log.Warn("guided edges: no readable rendition", "track", id, "key", t.Audio.WAVKey, "err", err)
				wavs.warned[t.Audio.WAVKey] = true
			}
			return audio.PCM{Rate: fingerprint.SampleRate}, nil
		}
		return p, err
	}
	out, err := fingerprint.GuideEdges(query, float64(durationMs)/1000, st, track)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.log.Warn("guided edges skipped", "key", src.Key, "err", err)
		return st, nil
	}
	return out, nil
}

// errNotWAV: the object is not a WAV file decode reads.
var errNotWAV = errors.New("not a readable WAV file")

// wavWindows reads windows of WAV objects by range, each header once.
type wavWindows struct {
	blob    blob.Store
	layouts map[string]*decode.WAVLayout // nil: not a readable WAV
	warned  map[string]bool              // renditions already logged as unreadable
}

// wavHeaderBytes bounds the bytes read for a WAV header (fmt chunk and
// whatever metadata chunks precede the samples).
const wavHeaderBytes = 64 << 10

// read returns seconds of the object at key from fromSec, mixed to mono at
// the file's rate; blob.ErrNotFound or errNotWAV when there is none.
func (w *wavWindows) read(ctx context.Context, key string, fromSec, seconds float64) (audio.PCM, error) {
	l, err := w.layout(ctx, key)
	if err != nil {
		return audio.PCM{}, err
	}
	off, n := l.Window(fromSec, seconds)
	if n == 0 {
		return audio.PCM{Rate: l.Rate}, nil
	}
	rc, err := w.blob.GetRange(ctx, key, off, n)
	if err != nil {
		return audio.PCM{}, fmt.Errorf("read %s: %w", key, err)
	}
	defer rc.Close()
	return l.ReadData(rc, n)
}

func (w *wavWindows) layout(ctx context.Context, key string) (*decode.WAVLayout, error) {
	if l, ok := w.layouts[key]; ok {
		if l == nil {
			return nil, errNotWAV
		}
		return l, nil
	}
	rc, err := w.blob.GetRange(ctx, key, 0, wavHeaderBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	defer rc.Close()
	l, err := decode.ReadWAVLayout(rc)
	if err != nil {
		// Not a WAV this reader decodes, or a header longer than
		// wavHeaderBytes.
		w.layouts[key] = nil
		return nil, fmt.Errorf("%s: %w (%v)", key, errNotWAV, err)
	}
	w.layouts[key] = &l
	return &l, nil
}
