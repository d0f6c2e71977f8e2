// Package similarity compares tracks by sound: the weighted cosine of
// their standardized feature vectors. It is the part of search that
// recognition needs for its suggestions, apart from package search so
// that the recognition functions do not link the text engine (bleve).
package similarity

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/catalog"
)

// descriptorWeight is how much each descriptor of the engine's vector
// counts in similarity. Raw chroma says which pitch classes sound — the
// key — and two pieces of the same style in different keys are still
// alike to a listener looking for "more like this": at full weight its
// twelve entries (a fifth of the vector) made key decide as much as
// timbre and rhythm, so they count a fifth as much. Key confidence
// likewise.
func descriptorWeight(name string) float32 {
	switch {
	case strings.HasPrefix(name, "chroma_"):
		return chromaW
	case name == "key_confidence":
		return chromaW
	}
	return 1
}

const chromaW = 0.2

// Weights returns the per-descriptor weights for vectors of dim entries,
// nil when the vectors are not the engine's (then all count alike).
func Weights(dim int) []float32 {
	if dim != len(features.VectorNames) {
		return nil
	}
	w := make([]float32, dim)
	for i, n := range features.VectorNames {
		w[i] = descriptorWeight(n)
	}
	return w
}

// Weigh returns v with the weights applied, at unit length again (v itself
// when w is nil).
func Weigh(v, w []float32) []float32 {
	if w == nil || len(v) != len(w) {
		return v
	}
	out := make([]float32, len(v))
	var norm float64
	for i := range v {
		out[i] = v[i] * w[i]
		norm += float64(out[i] * out[i])
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}

// Dot is dsp.Dot: the scan is the whole cost of by-id.
func Dot(a, b []float32) float32 { return dsp.Dot(a, b) }

// Similar returns up to n tracks of cat most similar to seed (a vector in
// the snapshot's standardized feature space, e.g. a catalog track's
// Features or features.Scaler.Apply of analyzed audio), best first, among
// those keep accepts (nil keeps all), never the track exclude. Ties go to
// catalog order. It scans the snapshot directly, without a search index,
// for callers that hold a *catalog.Catalog (recognition suggestions: keep
// = catalog.Covers for the account's plan).
func Similar(cat *catalog.Catalog, seed []float32, keep func(*catalog.Track) bool, exclude string, n int) []*catalog.Track {
	if len(seed) == 0 || n <= 0 {
		return nil
	}
	w := Weights(len(seed))
	seed = Weigh(seed, w)
	type scored struct {
		t *catalog.Track
		s float32
	}
	// best stays sorted, best first; n is a handful of suggestions, so an
	// insertion beats a heap. Equal scores keep catalog order (a later
	// track never passes an earlier one it ties with).
	best := make([]scored, 0, n+1)
	for _, t := range cat.Tracks() {
		if t.ID == exclude || len(t.Features) != len(seed) || (keep != nil && !keep(t)) {
			continue
		}
		s := Dot(seed, Weigh(t.Features, w))
		if len(best) == n && s <= best[n-1].s {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, s, func(c scored, s float32) int {
			if c.s >= s {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, i, scored{t, s})
		if len(best) > n {
			best = best[:n]
		}
	}
	out := make([]*catalog.Track, len(best))
	for k, c := range best {
		out[k] = c.t
	}
	return out
}

// StandardVector places a raw descriptor vector (features.Features.Vector)
// in cat's similarity space, where it compares by cosine with the tracks'
// Features; nil when the catalog has no scaler of that dimension.
func StandardVector(cat *catalog.Catalog, raw []float32) []float32 {
	sc := cat.FeatureScaler()
	if len(raw) == 0 || len(raw) != len(sc.Mean) {
		return nil
	}
	return features.Scaler{Mean: sc.Mean, Std: sc.Std}.Apply(raw)
}

// AudioVectorizer analyzes audio and places it in a catalog's similarity
// space: recognition's Vectorizer, which suggests catalog alternatives to
// outside music.
type AudioVectorizer struct{}

// Vector analyzes pcm (features.Analyze) and standardizes the result.
func (AudioVectorizer) Vector(_ context.Context, cat *catalog.Catalog, pcm audio.PCM) ([]float32, error) {
	f, err := features.Analyze(pcm)
	if err != nil {
		return nil, err
	}
	v := StandardVector(cat, f.Vector)
	if v == nil {
		return nil, errors.New("similarity: the catalog has no feature scaler for this analysis")
	}
	return v, nil
}
