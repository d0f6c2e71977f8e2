package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"musiccatalog/pkg/catalog"
)

// Sound is a song rendered with the demo's synthesizer for a catalog other
// than the demo (the held-out evaluation catalog): played the way one of
// the demo's subgenres is played, with the stated tempo, key, energy and
// voice, so its audio agrees with the metadata written for it.
type Sound struct {
	Style   string // a demo subgenre whose playing it takes (StyleNames)
	Seed    uint64
	BPM     float64
	Tonic   int // pitch class, 0 = C
	Minor   bool
	Seconds float64 // about how long (at least 4 bars, at most 40.5 s)
	Energy  float64 // 0..1: loudness and density
	Vocals  string  // "" or catalog.VocalsMale, VocalsFemale, VocalsMixed
}

// StyleNames are the styles a Sound can be played in: the demo's subgenres.
func StyleNames() []string {
	var out []string
	for _, g := range genres {
		for _, sg := range g.subgenres {
			out = append(out, sg.name)
		}
	}
	return out
}

// Render synthesizes the sound's mix at SampleRate.
func (s Sound) Render() ([]float32, error) {
	var st *style
	for _, g := range genres {
		for i := range g.subgenres {
			if g.subgenres[i].name == s.Style {
				st = &g.subgenres[i].style
			}
		}
	}
	switch {
	case st == nil:
		return nil, fmt.Errorf("demo: unknown style %q", s.Style)
	case !(s.BPM > 0 && s.BPM <= 300), s.Tonic < 0, s.Tonic > 11, !(s.Energy >= 0 && s.Energy <= 1), !(s.Seconds > 0):
		return nil, fmt.Errorf("demo: sound out of range: %+v", s)
	case s.Vocals != "" && !slices.Contains([]string{catalog.VocalsMale, catalog.VocalsFemale, catalog.VocalsMixed}, s.Vocals):
		return nil, fmt.Errorf("demo: vocals %q", s.Vocals)
	}
	sng := song{seed: s.Seed, bpm: s.BPM, tonic: s.Tonic, minor: s.Minor, bars: barsFor(s.BPM, s.Seconds), style: *st, energy: s.Energy, vocals: s.Vocals}
	mix, _ := sng.render()
	return mix, nil
}

// WriteSounds renders sounds[i] as a WAV file at dir/files[i] (directories
// created as needed), in parallel.
func WriteSounds(ctx context.Context, dir string, files []string, sounds []Sound) error {
	if len(files) != len(sounds) {
		return fmt.Errorf("demo: %d files for %d sounds", len(files), len(sounds))
	}
	jobs := make([]func() error, len(sounds))
	for i, s := range sounds {
		path := filepath.Join(dir, files[i])
		jobs[i] = func() error {
			mix, err := s.Render()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			return writeWAV(path, mix)
		}
	}
	return runJobs(ctx, jobs)
}
