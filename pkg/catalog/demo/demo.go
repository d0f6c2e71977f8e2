package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/manifest"
)

// Defaults of the demo catalog (admin demo, make run).
const (
	DefaultTracks = 240
	DefaultSeed   = 1
	// ManifestName is the manifest Generate writes in its directory.
	ManifestName = "catalog.jsonl"
)

// SoundFXCount is how many sound effects a demo of n tracks has: 30 for
// the default catalog, a couple for small ones.
func SoundFXCount(n int) int { return min(30, max(2, n/8)) }

// Records returns the manifest lines of a demo catalog of n tracks without
// rendering audio (their audio paths point where Generate would write).
func Records(n int, seed uint64) ([]manifest.Track, []manifest.SoundFX) {
	var tracks []manifest.Track
	for _, p := range plans(n, seed) {
		tracks = append(tracks, p.manifestLine())
	}
	var sfx []manifest.SoundFX
	for _, p := range sfxPlans(SoundFXCount(n), seed) {
		sfx = append(sfx, p.manifestLine())
	}
	return tracks, sfx
}

func (p trackPlan) manifestLine() manifest.Track {
	rec := p.rec
	rec.Audio = p.file
	for _, name := range p.stems {
		if name != "" {
			rec.Stems = append(rec.Stems, manifest.Stem{Name: name, Audio: p.stemFile(name)})
		}
	}
	return rec
}

func (p sfxPlan) manifestLine() manifest.SoundFX {
	s := p.rec
	s.Audio = p.file
	return s
}

func (p trackPlan) stemFile(name string) string {
	return strings.TrimSuffix(p.file, ".wav") + "-" + manifest.Slug(name) + ".wav"
}

// Generate writes a demo catalog of n tracks (and SoundFXCount(n) sound
// effects) into dir: WAV files under dir/audio and dir/sfx, and the
// manifest dir/ManifestName, whose path it returns. The same n and seed
// always give the same files.
func Generate(ctx context.Context, dir string, n int, seed uint64) (string, error) {
	if n <= 0 {
		return "", fmt.Errorf("demo: %d tracks", n)
	}
	for _, sub := range []string{"audio", "sfx"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return "", fmt.Errorf("demo: %w", err)
		}
	}
	tracks, sfx := plans(n, seed), sfxPlans(SoundFXCount(n), seed)
	var jobs []func() error
	for _, p := range tracks {
		jobs = append(jobs, func() error { return p.write(dir) })
	}
	for _, p := range sfx {
		jobs = append(jobs, func() error { return writeWAV(filepath.Join(dir, p.file), p.render()) })
	}
	if err := runJobs(ctx, jobs); err != nil {
		return "", err
	}
	return writeManifest(dir, tracks, sfx)
}

// runJobs runs jobs on every CPU and returns the first error, or the
// context's when it ends first (the remaining jobs are not started).
func runJobs(ctx context.Context, jobs []func() error) error {
	feed := make(chan func() error)
	errc := make(chan error, 1)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for job := range feed {
				if err := job(); err != nil {
					select {
					case errc <- err:
					default:
					}
				}
			}
		})
	}
send:
	for _, job := range jobs {
		select {
		case feed <- job:
		case err := <-errc:
			errc <- err
			break send
		case <-ctx.Done():
			break send
		}
	}
	close(feed)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
	}
	return ctx.Err()
}

func (p trackPlan) write(dir string) error {
	mix, layers := p.song.render()
	if err := writeWAV(filepath.Join(dir, p.file), mix); err != nil {
		return err
	}
	for l, name := range p.stems {
		if name == "" {
			continue
		}
		if err := writeWAV(filepath.Join(dir, p.stemFile(name)), layers[l]); err != nil {
			return err
		}
	}
	return nil
}

func writeWAV(path string, samples []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	err = decode.WriteWAV(f, audio.PCM{Samples: samples, Rate: SampleRate})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("demo: write %s: %w", path, err)
	}
	return nil
}

func writeManifest(dir string, tracks []trackPlan, sfx []sfxPlan) (string, error) {
	path := filepath.Join(dir, ManifestName)
	var lines []manifest.Track
	for _, p := range tracks {
		lines = append(lines, p.manifestLine())
	}
	var fx []manifest.SoundFX
	for _, p := range sfx {
		fx = append(fx, p.manifestLine())
	}
	if err := manifest.WriteFile(path, lines, fx); err != nil {
		return "", fmt.Errorf("demo: write manifest: %w", err)
	}
	return path, nil
}
