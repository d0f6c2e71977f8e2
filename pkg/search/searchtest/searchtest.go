package searchtest

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/manifest"
)

// DemoContents is the demo catalog's metadata as ingestion would publish
// it, without rendering audio: the manifest lines of demo.Records through
// the manifest parser, with a length drawn per track and, when vectors is
// set, synthetic feature vectors that cluster by subgenre and mood (the
// parameters the demo's audio is generated from) so that similarity code
// can be tested without decoding audio. Relevance and precision figures
// on real audio come from the benchmarks, which ingest the rendered demo.
func DemoContents(tb testing.TB, n int, seed uint64, vectors bool) catalog.Contents {
	tb.Helper()
	recs, sfx := demo.Records(n, seed)
	return ManifestContents(tb, recs, sfx, seed, vectors)
}

// ManifestContents is what ingestion would publish for these manifest
// lines, without their audio: the lines through the manifest writer and
// parser, with a length drawn per track (from seed) and, when vectors is
// set, synthetic feature vectors as DemoContents describes.
func ManifestContents(tb testing.TB, recs []manifest.Track, sfx []manifest.SoundFX, seed uint64, vectors bool) catalog.Contents {
	tb.Helper()
	var buf bytes.Buffer
	if err := manifest.Write(&buf, recs, sfx); err != nil {
		tb.Fatal(err)
	}
	m, err := manifest.Parse(&buf, manifest.LocalBase("/demo"))
	if err != nil || len(m.Errors) > 0 {
		tb.Fatal(err, m.Errors)
	}
	r := rand.New(rand.NewPCG(seed, 99))
	centroid := map[string][]float32{}
	center := func(key string, dim int) []float32 {
		if c, ok := centroid[key]; ok {
			return c
		}
		c := make([]float32, dim)
		for i := range c {
			c[i] = float32(r.NormFloat64())
		}
		centroid[key] = c
		return c
	}
	var c catalog.Contents
	for _, a := range m.Assets {
		if a.SoundFX != nil {
			a.SoundFX.Length = 1 + r.IntN(8)
			c.SoundFX = append(c.SoundFX, a.SoundFX)
			continue
		}
		t := a.Track
		t.Length = 20 + r.IntN(200)
		t.Highlights = []catalog.Region{{Offset: 8, Duration: 12}, {Offset: 30, Duration: 10}}
		if vectors {
			const dim = 16
			g, sg, md := center("g:"+t.Genre, dim), center("s:"+t.Subgenre, dim), center("m:"+t.Mood, dim)
			v := make([]float32, dim)
			var norm float64
			for i := range v {
				v[i] = g[i] + 0.8*sg[i] + 0.4*md[i] + float32(r.NormFloat64()*0.5)
				norm += float64(v[i] * v[i])
			}
			for i := range v {
				v[i] /= float32(math.Sqrt(norm))
			}
			t.Features, t.Vector = v, v
			t.Energy = r.Float64()
		}
		c.Tracks = append(c.Tracks, t)
	}
	if vectors {
		c.Scaler = catalog.FeatureScaler{Mean: make([]float32, 16), Std: ones(16)}
	}
	return c
}

func ones(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = 1
	}
	return out
}
