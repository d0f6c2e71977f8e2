package recognition

import (
	"context"
	"errors"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/outside"
)

// An unexplained stretch is cut into chunks of at most chunkMs, each
// identified by one sample from its middle, so one stretch holding
// several outside songs gives several segments (with boundaries to a
// chunk's precision) while the calls stay few.
const (
	chunkMs  = 30_000
	sampleMs = outside.MaxSampleSeconds * 1000
	// Transient outside errors are retried in process a few times before
	// the task fails and the workflow retries it whole.
	outsideAttempts = 3
	outsideBackoff  = 500 * time.Millisecond
)

// externalResult is what the outside tier said about a part of an
// unexplained stretch; Hit is nil when it knew nothing.
type externalResult struct {
	StartMs int64       `json:"start_ms"`
	EndMs   int64       `json:"end_ms"`
	Hit     *outsideHit `json:"hit,omitempty"`
}

type outsideHit struct {
	Title  string   `json:"title"`
	Artist string   `json:"artist"`
	Album  string   `json:"album,omitempty"`
	Label  string   `json:"label,omitempty"`
	ISRC   string   `json:"isrc,omitempty"`
	Score  *float64 `json:"score,omitempty"`
}

func (h *outsideHit) same(o *outsideHit) bool {
	if h == nil || o == nil {
		return h == o
	}
	return h.Title == o.Title && h.Artist == o.Artist && h.ISRC == o.ISRC
}

// identifyOutside samples every unexplained stretch of r's timeline.
func (s *Service) identifyOutside(ctx context.Context, r *jobRecord) ([]externalResult, error) {
	results := []externalResult{}
	var pcm audio.PCM
	for _, st := range r.timeline {
		if st.TrackID != "" {
			continue
		}
		if pcm.Rate == 0 {
			var err error
			if pcm, err = s.sourceAudio(ctx, r.Source); err != nil {
				return nil, err
			}
		}
		for _, c := range chunks(st.StartMs, st.EndMs) {
			hit, err := s.identifyChunk(ctx, pcm, c)
			if err != nil {
				return nil, err
			}
			if n := len(results); n > 0 && results[n-1].EndMs == c[0] && results[n-1].Hit.same(hit) {
				results[n-1].EndMs = c[1]
				continue
			}
			results = append(results, externalResult{StartMs: c[0], EndMs: c[1], Hit: hit})
		}
	}
	return results, nil
}

// sourceAudio reads the prepared audio, preparing it again when storage
// lost it.
func (s *Service) sourceAudio(ctx context.Context, src SourceRef) (audio.PCM, error) {
	pcm, err := s.readAudio(ctx, src)
	if errors.Is(err, blob.ErrNotFound) {
		if _, err = s.prepare(ctx, src); err == nil {
			pcm, err = s.readAudio(ctx, src)
		}
	}
	return pcm, err
}

// chunks splits [start, end) into equal parts of at most chunkMs.
func chunks(start, end int64) [][2]int64 {
	n := max(1, (end-start+chunkMs-1)/chunkMs)
	out := make([][2]int64, 0, n)
	for i := range n {
		out = append(out, [2]int64{start + (end-start)*i/n, start + (end-start)*(i+1)/n})
	}
	return out
}

func (s *Service) identifyChunk(ctx context.Context, pcm audio.PCM, c [2]int64) (*outsideHit, error) {
	length := min(c[1]-c[0], sampleMs)
	from := c[0] + (c[1]-c[0]-length)/2
	wav := decode.WAVBytes(pcm.Window(float64(from)/1000, float64(length)/1000))
	var m *outside.Match
	var err error
	for attempt := range outsideAttempts {
		if attempt > 0 {
			select {
			case <-time.After(outsideBackoff << (attempt - 1)):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if m, err = s.outside.Identify(ctx, wav); !errors.Is(err, outside.ErrTransient) {
			break
		}
	}
	switch {
	case errors.Is(err, outside.ErrRejected):
		// A configuration problem of ours: the music stays unidentified
		// (the truth: no tier could name it) and operators are told.
		s.log.Error("outside recognizer rejected a sample", "err", err)
		return nil, nil
	case err != nil:
		return nil, err
	case m == nil:
		return nil, nil
	}
	return &outsideHit{Title: m.Title, Artist: m.Artist, Album: m.Album, Label: m.Label, ISRC: m.ISRC, Score: m.Score}, nil
}
