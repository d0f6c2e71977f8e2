package ingest

import (
	"context"
	"fmt"
	"math"
	"slices"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/basicpitch"
	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/audio/highlights"
	"musiccatalog/pkg/catalog"
)

// Analysis is what an Analyzer finds in a track's audio.
type Analysis struct {
	Tempo      float64          `json:"tempo,omitempty"`  // BPM; 0 when not found
	Key        string           `json:"key,omitempty"`    // e.g. "A minor"; "" when not found
	Vector     []float32        `json:"vector,omitempty"` // raw similarity descriptors
	Energy     float64          `json:"energy,omitempty"` // overall, in [0, 1]
	Highlights []catalog.Region `json:"highlights,omitempty"`
	// Embedding is an Embedder's view of the audio (catalog.Track's
	// AudioEmbedding); nil without one.
	Embedding []float32 `json:"embedding,omitempty"`
}

// Analyzer is the audio engine's view of a track: the seam where tempo, key,
// the similarity vector and highlights come into ingestion. Tempo and key
// given in the manifest win over the analyzed ones. Vectors are raw;
// ingestion standardizes them over the whole catalog.
type Analyzer interface {
	// Version names the analysis. Results are cached per audio file and
	// version, so a new version re-analyzes every track on the next ingest.
	Version() string
	Analyze(ctx context.Context, pcm audio.PCM) (Analysis, error)
}

// Embedder is an Analyzer that also embeds a track's audio with a
// pretrained model, which takes the audio at its own rate: ingestion
// decodes it again at EmbeddingRate when that is not the analysis rate.
// Its embeddings are cached with the analysis, under the Analyzer's
// Version.
type Embedder interface {
	Analyzer
	EmbeddingRate() int
	Embed(ctx context.Context, pcm audio.PCM) ([]float32, error)
}

// Engine is the Analyzer of the audio engine: features.Analyze for tempo,
// key, loudness and the descriptor vector, highlights.FindIn for the hooks;
// and the Embedder of Spotify's Basic Pitch (basicpitch.TrackEmbedding).
type Engine struct{}

var _ Embedder = Engine{}

// engineVersion must change whenever package features, highlights or
// basicpitch changes what it computes, so that cached analyses are redone.
const engineVersion = "engine-2"

func (Engine) EmbeddingRate() int { return basicpitch.SampleRate }

func (Engine) Embed(ctx context.Context, pcm audio.PCM) ([]float32, error) {
	if pcm.Rate != basicpitch.SampleRate {
		return nil, fmt.Errorf("embed: audio at %d Hz, want %d", pcm.Rate, basicpitch.SampleRate)
	}
	return basicpitch.TrackEmbedding(ctx, pcm.Samples)
}

func (Engine) Version() string { return engineVersion }

// Loudness range mapped onto Energy 0..1: -36 LUFS (a whisper of a
// track) to -6 LUFS (a brickwalled master).
const (
	quietLUFS = -36.0
	loudLUFS  = -6.0
)

func (Engine) Analyze(ctx context.Context, pcm audio.PCM) (Analysis, error) {
	f, err := features.Analyze(pcm)
	if err != nil {
		return Analysis{}, err
	}
	if err := ctx.Err(); err != nil {
		return Analysis{}, err
	}
	a := Analysis{Tempo: f.Tempo, Key: f.Key, Vector: f.Vector,
		Energy: math.Max(0, math.Min(1, (f.Loudness-quietLUFS)/(loudLUFS-quietLUFS)))}
	for _, r := range highlights.FindIn(f.ChromaCurve, f.Energy, highlights.Options{}) {
		a.Highlights = append(a.Highlights, catalog.Region{Offset: r.Offset, Duration: r.Duration})
	}
	return a, nil
}

// standardize fits the catalog's scaler on the tracks' raw vectors and
// sets their Features. Only vectors of the most common length take part
// (a catalog mid-way through a change of analyzer may hold two kinds);
// the other tracks get no Features until re-analyzed.
func standardize(c *catalog.Contents) error {
	lengths := map[int]int{}
	for _, t := range c.Tracks {
		if len(t.Vector) > 0 {
			lengths[len(t.Vector)]++
		}
	}
	dim, most := 0, 0
	for l, n := range lengths {
		if n > most || (n == most && l > dim) {
			dim, most = l, n
		}
	}
	var vs [][]float32
	for _, t := range c.Tracks {
		if len(t.Vector) == dim && dim > 0 {
			vs = append(vs, t.Vector)
		}
	}
	c.Scaler = catalog.FeatureScaler{}
	apply := func([]float32) []float32 { return nil }
	if len(vs) > 0 {
		s, err := features.FitScaler(vs)
		if err != nil {
			return err
		}
		c.Scaler = catalog.FeatureScaler{Mean: s.Mean, Std: s.Std}
		apply = s.Apply
	}
	for i, t := range c.Tracks {
		var f []float32
		if len(t.Vector) == dim {
			f = apply(t.Vector)
		}
		if !slices.Equal(f, t.Features) {
			// Tracks are shared with the previous snapshot: copy, never modify.
			nt := *t
			nt.Features = f
			c.Tracks[i] = &nt
		}
	}
	return nil
}
