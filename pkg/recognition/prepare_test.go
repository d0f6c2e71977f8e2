package recognition_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/recognition"
)

// TestConcurrentPreparesOfOneUploadDecodeOnce: the upload trigger and the
// job's Extract racing on the same upload share one decode.
func TestConcurrentPreparesOfOneUploadDecodeOnce(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip("needs ffmpeg")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	wrapper := filepath.Join(dir, "ffmpeg")
	// Counts its runs, then is ffmpeg.
	script := "#!/bin/sh\necho run >> '" + calls + "'\nexec '" + ffmpeg + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *recognition.Config) { c.Decoder = decode.Decoder{FFmpegPath: wrapper} })
	song, _ := audiotest.Song(22050, 5, 7)
	var wav bytes.Buffer
	if err := decode.WriteWAV(&wav, song); err != nil {
		t.Fatal(err)
	}
	ref := upload(t, e.cfg.Blob, wav.Bytes(), "clip.mp4")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = e.svc.Prepare(context.Background(), ref.Key, ref.ETag) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := os.ReadFile(calls)
	if n := strings.Count(string(raw), "run"); n != 1 {
		t.Errorf("ffmpeg ran %d times for one upload", n)
	}
	if work := listWork(t, e.cfg.Blob); len(work) != 2 {
		t.Errorf("work %v", work)
	}
}
