package search

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"

	"musiccatalog/pkg/catalog"
)

// wFacetCentroid is how much what a catalog's own words say about one of
// its genres or subgenres (the centroid of the text vectors of the tracks
// that have it) counts against what the value's name says. A catalog whose
// descriptions never name its facets ("a lone grand piano in a quiet
// room" under Neo-Classical) still teaches the value's meaning, and a
// name the lexicon misreads ("Trip Hop" is no journey) is set right by
// its tracks. Moods are left to their names: a mood spans genres, and its
// centroid would be a genre mix. Fitted on the three sets (README,
// Search): 0.75.
const wFacetCentroid = 0.75

// trackVectorsRecipe names how trackVectors combines a track's text and
// facets; vectors stored with a snapshot under another recipe (or
// embedder) are computed again. v2: genres and subgenres with their
// tracks' centroid. v3: a secondary mood equal to the main one counts once.
const trackVectorsRecipe = "tv3"

// vectorsID identifies track vectors computed by emb with this recipe.
func vectorsID(emb TextEmbedder) string { return emb.ID() + "+" + trackVectorsRecipe }

// trackVectors computes the tracks' vectors from their own text, on all
// cores: first each track's words (tags, description, title, stems),
// then the vectors of the values many tracks share (genres, subgenres,
// moods, vocals, tempo bands) once each, the genres and subgenres with
// their tracks' centroid, then each track's sum of the two.
func trackVectors(ctx context.Context, e TextEmbedder, tracks []*catalog.Track) ([]int8, error) {
	dim, n := e.Dim(), len(tracks)
	text := make([]float32, dim*n) // track i's words: text[i*dim:(i+1)*dim]
	err := eachTrack(n, func(i int) error {
		t := tracks[i]
		acc := text[i*dim : (i+1)*dim]
		stems := make([]string, len(t.Stems))
		for k, s := range t.Stems {
			stems[k] = s.Name
		}
		for _, f := range []struct {
			s  string
			wt float32
		}{{strings.Join(t.Tags, ", "), wVecTags}, {t.Description, wVecDescription},
			{t.DisplayName(), wVecTitle}, {strings.Join(stems, ", "), wVecStems}} {
			if strings.TrimSpace(f.s) == "" {
				continue
			}
			v, err := e.Embed(ctx, f.s)
			if err != nil {
				return fmt.Errorf("search: embed track %s: %w", t.ID, err)
			}
			if len(v) == dim {
				for d, x := range v {
					acc[d] += f.wt * x
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	facet := facetVectors(ctx, e, tracks, text)
	cols := make([]int8, dim*n)
	err = eachTrack(n, func(i int) error {
		t := tracks[i]
		acc := text[i*dim : (i+1)*dim] // this track's own from now on
		add := func(v []float32, wt float32) {
			for d, x := range v {
				acc[d] += wt * x
			}
		}
		add(facet[t.Genre], wVecGenre)
		add(facet[t.Subgenre], wVecSubgenre)
		add(facet[t.Mood], wVecMood)
		if !strings.EqualFold(t.SecondaryMood, t.Mood) { // a mood given twice is one mood
			add(facet[t.SecondaryMood], wVecMood2)
		}
		add(facet[vocalsText[t.Vocals]], wVecVocals)
		if t.Tempo != nil {
			add(facet[tempoBands[bandOf(*t.Tempo)]], wVecTempo)
		}
		quantize(acc, cols, i, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cols, nil
}

// facetVectors are the vectors of the facet values of tracks (by value;
// nil when unknown): each value's own (embedFacet), and for genres and
// subgenres that plus wFacetCentroid × the unit centroid of the text
// vectors of the tracks that have it.
func facetVectors(ctx context.Context, e TextEmbedder, tracks []*catalog.Track, text []float32) map[string][]float32 {
	dim := e.Dim()
	out := map[string][]float32{}
	sums := map[string][]float32{}
	for i, t := range tracks {
		row := unitOf(text[i*dim : (i+1)*dim])
		for _, f := range [...]string{t.Genre, t.Subgenre} {
			if f == "" {
				continue
			}
			s := sums[f]
			if s == nil {
				s = make([]float32, dim)
				sums[f] = s
			}
			for d, x := range row {
				s[d] += x
			}
		}
		for _, f := range [...]string{t.Mood, t.SecondaryMood, vocalsText[t.Vocals]} {
			if _, ok := out[f]; !ok && f != "" {
				out[f] = embedFacet(ctx, e, f)
			}
		}
	}
	for _, b := range tempoBands[1:] {
		out[b] = embedFacet(ctx, e, b)
	}
	for f, s := range sums {
		v := make([]float32, dim)
		copy(v, embedFacet(ctx, e, f))
		for d, x := range unitOf(s) {
			v[d] += wFacetCentroid * x
		}
		out[f] = unitOf(v)
	}
	return out
}

// unitOf is the unit vector of v (a copy; zeros when v is).
func unitOf(v []float32) []float32 {
	var s float32
	for _, x := range v {
		s += x * x
	}
	out := make([]float32, len(v))
	if s == 0 {
		return out
	}
	inv := 1 / float32(math.Sqrt(float64(s)))
	for d, x := range v {
		out[d] = x * inv
	}
	return out
}

// eachTrack calls fn for every track index on all cores (one goroutine
// below 256 tracks a core) and returns the first error.
func eachTrack(n int, fn func(i int) error) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/256))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
