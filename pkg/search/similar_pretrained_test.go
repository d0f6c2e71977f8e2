package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/audio/basicpitch"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/heldout"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/cputime"
)

// pretrainedEnv names the directory BenchmarkSimilarPrecisionPretrained
// works in: it renders the demo and held-out catalogs there (DIR/demo,
// DIR/heldout) when they are missing, and embeds their tracks with
// package basicpitch into DIR/NAME/basicpitch-go.json (kept for the next
// run). With pretrainedSourceEnv=node it reads instead
// DIR/NAME/basicpitch.json or basicpitch-K.json (a shard each), which
// pkg/audio/basicpitch/testdata/node/embed.mjs writes from those WAVs on
// TensorFlow.js.
const (
	pretrainedEnv       = "SEARCH_PRETRAINED_AUDIO"
	pretrainedSourceEnv = "SEARCH_PRETRAINED_SOURCE"
)

// goPooledName is the file the Go embeddings of a catalog are kept in.
const goPooledName = "basicpitch-go.json"

// pretrainedGroups are the pooled Basic Pitch activations compared, each a
// candidate embedding (basicpitch.Blocks by name, the keys of embed.mjs's
// output; a group of several keys gives each key's block the same weight).
var pretrainedGroups = []struct {
	name     string
	keys     []string
	shuffled bool
	project  int // > 0: all blocks through a basicpitch.Projection of this many components fitted on the demo catalog
}{
	{"notes", []string{"note_mean", "note_std", "onset_mean"}, false, 0},
	{"contour", []string{"contour_mean"}, false, 0},
	{"hidden", []string{"relu1_ch", "relu2_ch", "relu3_ch", "relu1_band", "relu2_band", "relu3_band"}, false, 0},
	{"all", allPooled, false, 0},
	// The control: "all" given to the wrong tracks. Mixing in a second
	// cosine narrows the spread of the scores, which alone makes the fixed
	// metadata term weigh more; what a group gains over its shuffled self
	// is what the embedding knows.
	{"all-shuffled", allPooled, true, 0},
	// Shippable: a fixed projection (fitted once, on the demo catalog's
	// embeddings, so the held-out catalog tests it on music it never saw)
	// to a few components, what by-id can afford to scan at 100k tracks.
	{"all-pca16", allPooled, false, 16},
	{"all-pca32", allPooled, false, 32},
	{"all-pca64", allPooled, false, 64},
}

// allPooled is every block of the embedding (basicpitch.Blocks).
var allPooled = []string{"note_mean", "note_std", "onset_mean", "contour_mean", "relu1_ch", "relu2_ch", "relu3_ch", "relu1_band", "relu2_band", "relu3_band"}

// pretrainedMixes are the embedding's shares of the cosine: a track pair's
// score is (1-m)·cos(features) + m·cos(embedding); 0 is today's by-id, 1
// the embedding alone.
var pretrainedMixes = []float64{0, 0.25, 0.5, 0.75, 1}

// BenchmarkSimilarPrecisionPretrained measures issue 15 item 6: a
// pretrained audio model from a registry (Spotify's Basic Pitch, whose
// weights ship in its npm package) as a by-id embedding, alone and mixed
// with today's features, by the precision@10 by genre of
// BenchmarkSimilarPrecisionDemo/Heldout on the same rendered catalogs. It
// measures; nothing of it is in the service path. It renders the catalogs
// and embeds their tracks in Go (package basicpitch, four windows a track,
// on every core) the first time:
//
//	SEARCH_PRETRAINED_AUDIO=/tmp/pa go test -run '^$' -bench SimilarPrecisionPretrained -benchtime 1x -timeout 60m ./pkg/search/
//
// With SEARCH_PRETRAINED_SOURCE=node it measures TensorFlow.js's
// embeddings instead, computed beforehand (and says so when they are
// missing); when both are there, it logs how far they differ:
//
//	(cd pkg/audio/basicpitch/testdata/node && npm install && for c in demo heldout; do node embed.mjs /tmp/pa/$c /tmp/pa/$c/basicpitch.json; done)
//	(or SHARD=k/n, k = 0…n-1, into basicpitch-k.json: n processes a catalog)
//
// precision@10 is with the metadata term of by-id (SimilarTo), audio-only
// without it (the cosine alone, as similarity.Similar ranks). Figures of
// 2026-11-25 (4 windows a track) are in README "Search".
func BenchmarkSimilarPrecisionPretrained(b *testing.B) {
	dir := os.Getenv(pretrainedEnv)
	if dir == "" {
		b.Skipf("set %s to a working directory (see the comment)", pretrainedEnv)
	}
	node := os.Getenv(pretrainedSourceEnv) == "node"
	type measured struct{ name, manifest string }
	var todo []measured
	for _, c := range []struct {
		name string
		gen  func(context.Context, string) (string, error)
	}{
		{"demo", func(ctx context.Context, d string) (string, error) {
			return demo.Generate(ctx, d, demo.DefaultTracks, demo.DefaultSeed)
		}},
		{"heldout", func(ctx context.Context, d string) (string, error) {
			return heldout.Generate(ctx, d, heldout.DefaultTracks, heldout.DefaultSeed)
		}},
	} {
		sub := filepath.Join(dir, c.name)
		path := filepath.Join(sub, demo.ManifestName)
		if _, err := os.Stat(path); err != nil {
			if path, err = c.gen(b.Context(), sub); err != nil {
				b.Fatal(err)
			}
		}
		todo = append(todo, measured{c.name, path})
	}
	if node {
		for _, c := range todo {
			if files := nodePooledFiles(b, filepath.Dir(c.manifest)); len(files) == 0 {
				b.Skipf("no basicpitch.json in %s: run testdata/node/embed.mjs %s %s", filepath.Dir(c.manifest), filepath.Dir(c.manifest), filepath.Join(filepath.Dir(c.manifest), "basicpitch.json"))
			}
		}
	}
	var projections map[int]*basicpitch.Projection // fitted on the first catalog, demo
	for _, c := range todo {
		path := c.manifest
		goPooled := goPooledEmbeddings(b, path)
		pooled := goPooled
		if files := nodePooledFiles(b, filepath.Dir(path)); len(files) > 0 {
			nodePooled := readPooled(b, files)
			compareSources(b, goPooled, nodePooled)
			if node {
				pooled = nodePooled
			}
		}
		// The features alone at ingest: the embeddings compared here are
		// mixed in below.
		ix := ingestedIndexBy(b, path, featuresOnly{ingest.Engine{}})
		if projections == nil {
			projections = fitProjections(b, ix, pooled)
		}
		for _, g := range pretrainedGroups {
			var emb [][]float32
			if g.project > 0 {
				emb = projectedEmbeddings(b, ix, pooled, projections[g.project])
			} else {
				emb = pooledEmbeddings(b, ix, pooled, g.keys)
			}
			if g.shuffled {
				shuffleRows(emb)
			}
			for _, m := range pretrainedMixes {
				if m == 0 && g.name != pretrainedGroups[0].name {
					continue // the features alone: the same for every group
				}
				mixed := embeddingMixIndex(b, ix, emb, m)
				b.Run(fmt.Sprintf("%s/%s/mix=%.2f", c.name, g.name, m), func(b *testing.B) {
					benchSimilarPrecision(b, mixed)
				})
			}
		}
	}
}

// featuresOnly is an Analyzer that is no ingest.Embedder.
type featuresOnly struct{ ingest.Analyzer }

// pooledTrack is one track's pooled activations by block name
// (basicpitch.Blocks).
type pooledTrack map[string][]float64

// nodePooledFiles are embed.mjs's outputs in dir.
func nodePooledFiles(b *testing.B, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "basicpitch.json"))
	if err != nil {
		b.Fatal(err)
	}
	shards, err := filepath.Glob(filepath.Join(dir, "basicpitch-[0-9]*.json"))
	if err != nil {
		b.Fatal(err)
	}
	return append(files, shards...)
}

// readPooled reads embed.mjs's outputs: pooled activations by source
// SHA-256.
func readPooled(b *testing.B, files []string) map[string]pooledTrack {
	all := map[string]pooledTrack{}
	for _, path := range files {
		maps.Copy(all, readPooledFile(b, path))
	}
	return all
}

// pooledFile is embed.mjs's output, and what goPooledEmbeddings keeps.
type pooledFile struct {
	Tracks      map[string]pooledTrack `json:"tracks"`
	AudioSecs   float64                `json:"audio_seconds"`
	Analyzed    float64                `json:"analyzed_seconds"`
	CPUSecs     float64                `json:"cpu_seconds"`
	Model       string                 `json:"model"`
	Backend     string                 `json:"backend"`
	OutputShape map[string][]int       `json:"shapes,omitempty"`
}

func (f *pooledFile) log(b *testing.B, path string) {
	b.Logf("%s: %s on %s, %d tracks, %.0f s of audio, %.0f s analyzed in %.1f s CPU (%.3f s CPU per analyzed second, %.2f s a track)",
		path, f.Model, f.Backend, len(f.Tracks), f.AudioSecs, f.Analyzed, f.CPUSecs, f.CPUSecs/max(f.Analyzed, 1), f.CPUSecs/float64(max(len(f.Tracks), 1)))
}

func readPooledFile(b *testing.B, path string) map[string]pooledTrack {
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var f pooledFile
	if err := json.Unmarshal(raw, &f); err != nil {
		b.Fatal(err)
	}
	f.log(b, path)
	return f.Tracks
}

// goPooledEmbeddings embeds every track WAV of the manifest at path with
// package basicpitch (DefaultExcerpts windows a track, as embed.mjs),
// keyed by the SHA-256 of the file, and keeps them beside it
// (goPooledName) for the next run.
func goPooledEmbeddings(b *testing.B, path string) map[string]pooledTrack {
	dir := filepath.Dir(path)
	keep := filepath.Join(dir, goPooledName)
	if _, err := os.Stat(keep); err == nil {
		return readPooledFile(b, keep)
	}
	net, err := basicpitch.Load()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var wavs []string
	for line := range strings.SplitSeq(string(raw), "\n") {
		var rec struct{ Kind, Audio string }
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			b.Fatal(err)
		}
		if rec.Kind == "track" && rec.Audio != "" {
			wavs = append(wavs, filepath.Join(dir, rec.Audio))
		}
	}
	f := pooledFile{Model: "@spotify/basic-pitch@1.0.1", Backend: "go (pkg/audio/basicpitch)", Tracks: map[string]pooledTrack{}}
	var mu sync.Mutex
	cpu0 := cputime.Self()
	work := make(chan string, len(wavs))
	for _, wav := range wavs {
		work <- wav
	}
	close(work)
	errs := make([]error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for k := range errs {
		wg.Go(func() {
			errs[k] = embedWAVs(net, work, func(sum [32]byte, t pooledTrack, seconds, analyzed float64) {
				mu.Lock()
				defer mu.Unlock()
				f.Tracks[hex.EncodeToString(sum[:])] = t
				f.AudioSecs += seconds
				f.Analyzed += analyzed
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	f.CPUSecs = (cputime.Self() - cpu0).Seconds()
	f.log(b, keep)
	out, err := json.Marshal(f)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(keep, out, 0o644); err != nil {
		b.Fatal(err)
	}
	return f.Tracks
}

// embedWAVs embeds the WAVs it takes from work until it is drained,
// handing each result to done.
func embedWAVs(net *basicpitch.Network, work <-chan string, done func(sum [32]byte, t pooledTrack, seconds, analyzed float64)) error {
	for wav := range work {
		data, err := os.ReadFile(wav)
		if err != nil {
			return err
		}
		pcm, err := decode.ReadWAV(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", wav, err)
		}
		if pcm.Rate != basicpitch.SampleRate {
			return fmt.Errorf("%s: %d Hz, want %d", wav, pcm.Rate, basicpitch.SampleRate)
		}
		emb, err := net.Embed(pcm.Samples, basicpitch.DefaultExcerpts)
		if err != nil {
			return err
		}
		t := pooledTrack{}
		for _, bl := range basicpitch.Blocks {
			v := make([]float64, bl.Len)
			for k, x := range emb[bl.Offset:][:bl.Len] {
				v[k] = float64(x)
			}
			t[bl.Name] = v
		}
		ws := len(basicpitch.Windows(pcm.Samples, basicpitch.DefaultExcerpts))
		done(sha256.Sum256(data), t, pcm.Seconds(), float64(ws*basicpitch.WindowStep)/basicpitch.SampleRate)
	}
	return nil
}

// compareSources logs how far the Go embeddings are from TensorFlow.js's
// on the tracks both have: the largest difference of a block relative to
// the block's largest value, and its median over tracks.
func compareSources(b *testing.B, goPooled, nodePooled map[string]pooledTrack) {
	var worst []float64
	for sha, n := range nodePooled {
		g, ok := goPooled[sha]
		if !ok {
			continue
		}
		w := 0.0
		for _, bl := range basicpitch.Blocks {
			scale, d := 1e-9, 0.0
			for k, x := range n[bl.Name] {
				scale = max(scale, math.Abs(x))
				d = max(d, math.Abs(x-g[bl.Name][k]))
			}
			w = max(w, d/scale)
		}
		worst = append(worst, w)
	}
	if len(worst) == 0 {
		b.Logf("Go and TensorFlow.js embeddings share no track")
		return
	}
	slices.Sort(worst)
	b.Logf("Go against TensorFlow.js on %d tracks: relative difference of a block, median %.2g, largest %.2g", len(worst), worst[len(worst)/2], worst[len(worst)-1])
}

// pooledEmbeddings returns, per index track, the concatenation of keys'
// blocks, each dimension standardized over the catalog (z-score, as the
// features are) and each block at unit length, then the whole at unit
// length; nil for a track without pooled activations.
func pooledEmbeddings(b *testing.B, ix *Index, pooled map[string]pooledTrack, keys []string) [][]float32 {
	blocks := make([][][]float64, len(ix.tracks)) // track, key, values
	for i, t := range ix.tracks {
		p, ok := pooled[t.Audio.SHA256]
		if !ok || !ix.sim.has[i] {
			continue
		}
		for _, k := range keys {
			v := p[k]
			if len(v) == 0 {
				b.Fatalf("track %s: no %s", t.ID, k)
			}
			blocks[i] = append(blocks[i], v)
		}
	}
	out := make([][]float32, len(ix.tracks))
	for k := range keys {
		var mean, sq []float64
		n := 0
		for _, bl := range blocks {
			if bl == nil {
				continue
			}
			if mean == nil {
				mean, sq = make([]float64, len(bl[k])), make([]float64, len(bl[k]))
			}
			for d, x := range bl[k] {
				mean[d] += x
				sq[d] += x * x
			}
			n++
		}
		if n == 0 {
			b.Fatal("no track has pooled activations: was basicpitch.json made from this catalog's audio?")
		}
		for i, bl := range blocks {
			if bl == nil {
				continue
			}
			z := make([]float32, len(bl[k]))
			for d, x := range bl[k] {
				m := mean[d] / float64(n)
				if sd := math.Sqrt(max(0, sq[d]/float64(n)-m*m)); sd > 1e-9 {
					z[d] = float32((x - m) / sd)
				}
			}
			out[i] = append(out[i], unit(z, 1)...)
		}
	}
	for i := range out {
		if out[i] != nil {
			out[i] = unit(out[i], 1)
		}
	}
	return out
}

// projectionEnv, set to a path, makes BenchmarkSimilarPrecisionPretrained
// write there the projection of projectionDim components it fits on the
// demo catalog (what pkg/audio/basicpitch embeds).
const (
	projectionEnv = "SEARCH_PRETRAINED_WRITE_PROJECTION"
	projectionDim = 32
)

// fitProjections fits a basicpitch.Projection of every size the groups
// name on the embeddings of ix's tracks.
func fitProjections(b *testing.B, ix *Index, pooled map[string]pooledTrack) map[int]*basicpitch.Projection {
	var embs [][]float32
	for _, e := range rawEmbeddings(b, ix, pooled) {
		if e != nil {
			embs = append(embs, e)
		}
	}
	out := map[int]*basicpitch.Projection{}
	for _, g := range pretrainedGroups {
		if g.project > 0 {
			p, err := basicpitch.FitProjection(embs, g.project)
			if err != nil {
				b.Fatal(err)
			}
			out[g.project] = p
		}
	}
	if path := os.Getenv(projectionEnv); path != "" {
		data, err := out[projectionDim].MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Logf("wrote the %d-component projection fitted on %d tracks to %s", projectionDim, len(embs), path)
	}
	return out
}

// rawEmbeddings returns, per index track, its pooled vector laid out as
// basicpitch.Blocks; nil for a track without one.
func rawEmbeddings(b *testing.B, ix *Index, pooled map[string]pooledTrack) [][]float32 {
	out := make([][]float32, len(ix.tracks))
	for i, t := range ix.tracks {
		p, ok := pooled[t.Audio.SHA256]
		if !ok || !ix.sim.has[i] {
			continue
		}
		e := make([]float32, 0, basicpitch.EmbeddingDim)
		for _, bl := range basicpitch.Blocks {
			if len(p[bl.Name]) != bl.Len {
				b.Fatalf("track %s: %d values of %s", t.ID, len(p[bl.Name]), bl.Name)
			}
			for _, x := range p[bl.Name] {
				e = append(e, float32(x))
			}
		}
		out[i] = e
	}
	return out
}

// projectedEmbeddings is rawEmbeddings through p.
func projectedEmbeddings(b *testing.B, ix *Index, pooled map[string]pooledTrack, p *basicpitch.Projection) [][]float32 {
	out := rawEmbeddings(b, ix, pooled)
	for i, e := range out {
		if e == nil {
			continue
		}
		y, err := p.Apply(e)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = y
	}
	return out
}

// embeddingMixIndex is an index over ix's catalog whose similarity vectors are
// [√(1-m)·features, √m·embedding]: unit vectors whose dot product is
// (1-m)·cos(features) + m·cos(embedding). The features part is weighted as
// by-id weighs it; the new dimension has no descriptor weights, so it is
// not weighted again.
func embeddingMixIndex(b *testing.B, ix *Index, emb [][]float32, m float64) *Index {
	c := ix.cat.Contents()
	for i, t := range c.Tracks {
		k := ix.byID[strings.ToLower(t.ID)]
		cp := *t
		cp.Features, cp.AudioEmbedding = nil, nil // the mix is in Features alone
		if row := ix.sim.row(int(k)); row != nil && emb[k] != nil {
			cp.Features = append(unit(row, float32(math.Sqrt(1-m))), unit(emb[k], float32(math.Sqrt(m)))...)
		}
		c.Tracks[i] = &cp
	}
	cat, err := catalog.New(c)
	if err != nil {
		b.Fatal(err)
	}
	out, err := NewIndex(cat)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// shuffleRows gives each track with an embedding another's (a fixed
// permutation: the same run after run).
func shuffleRows(emb [][]float32) {
	var idx []int
	for i, e := range emb {
		if e != nil {
			idx = append(idx, i)
		}
	}
	rows := make([][]float32, len(idx))
	for k, i := range idx {
		rows[k] = emb[i]
	}
	rand.New(rand.NewPCG(15, 6)).Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
	for k, i := range idx {
		emb[i] = rows[k]
	}
}

// unit returns a copy of v scaled to length l (zeros stay zeros).
func unit(v []float32, l float32) []float32 {
	out := slices.Clone(v)
	var n float64
	for _, x := range out {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		s := l / float32(math.Sqrt(n))
		for i := range out {
			out[i] *= s
		}
	}
	return out
}
