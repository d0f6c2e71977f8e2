package heldout

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/manifest"
)

// Generate writes the held-out catalog of n tracks into dir: WAV files
// under dir/audio, rendered with the demo's synthesizer in the style of
// each track's subgenre, and the manifest dir/ManifestName, whose path it
// returns. The same n and seed always give the same files.
func Generate(ctx context.Context, dir string, n int, seed uint64) (string, error) {
	if n <= 0 {
		return "", fmt.Errorf("heldout: %d tracks", n)
	}
	tracks := Tracks(n, seed)
	files := make([]string, len(tracks))
	sounds := make([]demo.Sound, len(tracks))
	for i, t := range tracks {
		files[i], sounds[i] = t.Manifest.Audio, t.Sound
	}
	if err := demo.WriteSounds(ctx, dir, files, sounds); err != nil {
		return "", fmt.Errorf("heldout: %w", err)
	}
	path := filepath.Join(dir, ManifestName)
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("heldout: %w", err)
	}
	w := manifest.NewWriter(f)
	for _, t := range tracks {
		if err = w.Track(t.Manifest); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("heldout: write manifest: %w", err)
	}
	return path, nil
}
