package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/semantic"
)

// TestSituationWithoutSharedWords: a request none of whose words a track
// holds is answered by meaning: BM25 alone finds nothing for "bedtime
// lullaby" on the demo catalog, the semantic side finds its quiet tracks.
func TestSituationWithoutSharedWords(t *testing.T) {
	ix := demoIndex(t, demo.DefaultTracks)
	for _, w := range []string{"bedtime", "lullaby"} {
		if ix.text.vocab[w] {
			t.Fatalf("%q is in the catalog's text: the test needs a word it lacks", w)
		}
	}
	res, err := ix.ByText(t.Context(), "bedtime lullaby", Options{Plan: "enterprise", Limit: 10})
	if err != nil || len(res.Hits) != 10 {
		t.Fatalf("%d hits, %v", len(res.Hits), err)
	}
	quiet := []string{"Calm", "Peaceful", "Dreamy"}
	for _, h := range res.Hits {
		if !slices.Contains(quiet, h.Track.Mood) && !slices.Contains(quiet, h.Track.SecondaryMood) {
			t.Errorf("bedtime lullaby: %s (%s/%s)", h.Track.Subgenre, h.Track.Mood, h.Track.SecondaryMood)
		}
	}
}

// TestExplicitFacetsStillFilter: with the semantic side on, the facets a
// request states filter exactly as before: a stated tempo, "no vocals",
// an excluded instrument.
func TestExplicitFacetsStillFilter(t *testing.T) {
	ix := demoIndex(t, demo.DefaultTracks)
	all := Options{Plan: "enterprise", Limit: MaxLimit}
	res, _ := ix.ByText(t.Context(), "a calm evening 80 bpm", all)
	if res.Total == 0 {
		t.Fatal("no results")
	}
	for _, h := range res.Hits {
		if h.Track.Tempo == nil || *h.Track.Tempo < 75 || *h.Track.Tempo > 85 {
			t.Errorf("80 bpm: a track at %v", h.Track.Tempo)
		}
	}
	res, _ = ix.ByText(t.Context(), "heartbreak at the wedding, no vocals", all)
	if res.Total == 0 || slices.ContainsFunc(res.Hits, func(h Hit) bool { return hasVocals(h.Track.Vocals) }) {
		t.Errorf("no vocals: %d results, some sung", res.Total)
	}
	res, _ = ix.ByText(t.Context(), "a spa day without drums", all)
	for _, h := range res.Hits {
		if slices.ContainsFunc(h.Track.Tags, func(tag string) bool { return strings.Contains(tag, "percussion") || tag == "drums" }) {
			t.Errorf("without drums: %s tagged %v", h.Track.Subgenre, h.Track.Tags)
		}
	}
}

// hashEmbedder is a stand-in for a hosted model: it knows nothing of
// facets or words (neither optional interface), and embeds a text as the
// bag of its words hashed into dim buckets.
type hashEmbedder struct{ dim int }

func (h hashEmbedder) ID() string { return fmt.Sprintf("hash/%d", h.dim) }
func (h hashEmbedder) Dim() int   { return h.dim }
func (h hashEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, h.dim)
	n := 0
	for _, w := range semantic.Tokens(text) {
		if semantic.IsStopword(w) {
			continue
		}
		s := uint32(2166136261)
		for i := range len(w) {
			s = (s ^ uint32(w[i])) * 16777619
		}
		v[s%uint32(h.dim)]++
		n++
	}
	if n == 0 {
		return nil, nil
	}
	return unitVec(v), nil
}

func unitVec(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(s))
	}
	return v
}

// TestOtherEmbedder: the port takes another embedder; vectors published
// with the snapshot by a different one are not compared with its queries
// but computed again, and the search works end to end.
func TestOtherEmbedder(t *testing.T) {
	bs, cat := publishDemo(t, 600, TextIndexArtifact)
	other := hashEmbedder{dim: 64}
	svc := NewService(catalog.NewLoader(bs), WithPrebuilt(bs), WithEmbedder(other))
	ix, err := svc.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.text.dir == "" {
		t.Fatal("the published text index was not loaded")
	}
	if ix.sem.dim != 64 || len(ix.sem.cols) != 64*len(cat.Tracks()) {
		t.Fatalf("vectors of dim %d (%d values): not recomputed for the other embedder", ix.sem.dim, len(ix.sem.cols))
	}
	res, err := svc.ByText(t.Context(), "romantic jazz", Options{Plan: "enterprise", Limit: 5})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Track.Genre != "Jazz" {
		t.Fatalf("romantic jazz with the other embedder: %+v %v", res.Hits, err)
	}
	// The default embedder loads the published vectors as they are.
	def := NewService(catalog.NewLoader(bs), WithPrebuilt(bs))
	dix, err := def.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer dix.Close()
	built, err := NewIndex(cat)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()
	if dix.text.semID != vectorsID(DefaultEmbedder()) || !slices.Equal(dix.sem.cols, built.sem.cols) {
		t.Error("published vectors differ from the ones an index computes")
	}
}

// TestQueryEmbeddingCacheBounded: the per-snapshot cache of embedded
// requests never holds more than maxCachedQueries.
func TestQueryEmbeddingCacheBounded(t *testing.T) {
	ix := demoIndex(t, 200)
	for i := range maxCachedQueries + 50 {
		if _, err := ix.sem.query(t.Context(), []string{"calm", fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(ix.sem.cache); n > maxCachedQueries {
		t.Errorf("%d cached queries", n)
	}
	q1, _ := ix.sem.query(t.Context(), []string{"rainy", "day"})
	q2, _ := ix.sem.query(t.Context(), []string{"rainy", "day"})
	if q1 == nil || q1 != q2 {
		t.Error("the same words were embedded twice")
	}
}
