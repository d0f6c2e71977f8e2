package heldout

import (
	"context"
	"fmt"
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
	lines := make([]manifest.Track, len(tracks))
	for i, t := range tracks {
		lines[i] = t.Manifest
	}
	if err := manifest.WriteFile(path, lines, nil); err != nil {
		return "", fmt.Errorf("heldout: write manifest: %w", err)
	}
	return path, nil
}
