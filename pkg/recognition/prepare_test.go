package recognition_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/recognition"
)

// countingFFmpeg writes a wrapper that appends a "run" line to calls each
// time it runs, then is ffmpeg (found on PATH, returned too). Without
// ffmpeg the test is skipped (failed in CI).
func countingFFmpeg(t *testing.T) (ffmpeg, wrapper, calls string) {
	t.Helper()
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip("needs ffmpeg")
	}
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	wrapper = filepath.Join(dir, "ffmpeg")
	script := "#!/bin/sh\necho run >> '" + calls + "'\nexec '" + ffmpeg + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return ffmpeg, wrapper, calls
}

// TestConcurrentPreparesOfOneUploadDecodeOnce: the upload trigger and the
// job's Extract racing on the same upload share one decode.
func TestConcurrentPreparesOfOneUploadDecodeOnce(t *testing.T) {
	_, wrapper, calls := countingFFmpeg(t)
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

// TestPrepareRejectsWhatIsOverTheLimits: the upload trigger deletes an
// object over the size limit without reading it, and one whose audio is
// over the duration cap without decoding it (the probe says so); a job
// submitted for the latter fails as too_long, not as a missing file, and
// keeps its quota unit. Within the limits, nothing is deleted.
func TestPrepareRejectsWhatIsOverTheLimits(t *testing.T) {
	ffmpeg, wrapper, calls := countingFFmpeg(t)
	e := newEnv(t, func(c *recognition.Config) {
		c.Decoder = decode.Decoder{FFmpegPath: wrapper}
		c.MaxAudioSeconds = 20
		c.MaxFileSize = 200_000
	})
	ctx := context.Background()
	long := filepath.Join(t.TempDir(), "long.mp4")
	if out, err := exec.Command(ffmpeg, "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=60", "-c:a", "aac", "-b:a", "8k", long).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	video, _ := os.ReadFile(long)
	ref := upload(t, e.cfg.Blob, video, "long.mp4")
	job, err := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Prepare(ctx, ref.Key, ref.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cfg.Blob.Head(ctx, ref.Key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("too long upload kept: %v", err)
	}
	if raw, _ := os.ReadFile(calls); len(raw) != 0 {
		t.Errorf("ffmpeg decoded a too-long upload %d times", strings.Count(string(raw), "run"))
	}
	_, err = e.svc.HandleTask(ctx, recognition.FnExtract, json.RawMessage(`{"job_id":"`+job.ID+`"}`))
	var je *recognition.JobError
	if !errors.As(err, &je) || je.Code != recognition.CodeTooLong {
		t.Fatalf("extract: %v", err)
	}
	e.svc.Fail(ctx, job.ID, je.Code, je.Detail)
	if u, _ := quota.New(e.st, e.clock).Peek(ctx, "compliance_check", "c1", quota.Daily, 5); u.Used != 1 {
		t.Errorf("quota used = %d after a too-long upload", u.Used)
	}

	big := upload(t, e.cfg.Blob, bytes.Repeat([]byte{0}, 200_001), "big.mp4")
	if err := e.svc.Prepare(ctx, big.Key, big.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cfg.Blob.Head(ctx, big.Key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("oversize upload kept: %v", err)
	}

	song, _ := audiotest.Song(8000, 2, 7) // 12 s
	ok := upload(t, e.cfg.Blob, decode.WAVBytes(song), "ok.mp4")
	if err := e.svc.Prepare(ctx, ok.Key, ok.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cfg.Blob.Head(ctx, ok.Key); err != nil {
		t.Errorf("upload within the limits: %v", err)
	}
	if raw, _ := os.ReadFile(calls); strings.Count(string(raw), "run") != 1 {
		t.Errorf("ffmpeg runs: %q", raw)
	}
}
