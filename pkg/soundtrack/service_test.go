package soundtrack_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/soundtrack/videoanalysis"
	"musiccatalog/pkg/store/boltstore"
)

// counting is the real analyzer, counted, with a version the test can change.
type counting struct {
	videoanalysis.Analyzer
	calls   atomic.Int32
	version string
}

func (c *counting) Version() string { return c.version }
func (c *counting) Analyze(ctx context.Context, path string, picture bool) (soundtrack.Analysis, error) {
	c.calls.Add(1)
	a, err := c.Analyzer.Analyze(ctx, path, picture)
	a.Version = c.version
	return a, err
}

func TestServiceAnalyzesEachContentOnceAndExpires(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg missing")
		}
		t.Skip("needs ffmpeg")
	}
	dir := t.TempDir()
	clk := clock.NewManual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), boltstore.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bs, err := fileblob.New(filepath.Join(dir, "blobs"), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	an := &counting{version: "v1"}
	svc, err := soundtrack.New(soundtrack.Config{Store: st, Blob: bs, Analyzer: an, Clock: clk, TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	song, _ := audiotest.Song(audio.DefaultSampleRate, 4, 5)
	var wav bytes.Buffer
	decode.WriteWAV(&wav, song)
	os.WriteFile(filepath.Join(dir, "s.wav"), wav.Bytes(), 0o644)
	video := filepath.Join(dir, "v.mp4")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-i", filepath.Join(dir, "s.wav"), "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25",
		"-map", "0:a", "-map", "1:v", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", video).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	raw, _ := os.ReadFile(video)
	p := &identity.Principal{Client: identity.Client{ID: "c1"}}
	create := func() soundtrack.Video {
		u, err := svc.Spool(bytes.NewReader(raw), "v.mp4", "video/mp4")
		if err != nil {
			t.Fatal(err)
		}
		defer u.Close()
		v, err := svc.Create(ctx, p, soundtrack.CreateInput{File: u})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v1, v2 := create(), create()
	if v1.SourceValue != v2.SourceValue || v1.ID == v2.ID || an.calls.Load() != 1 {
		t.Errorf("two uploads of one file: %s %s, %d analyses", v1.SourceValue, v2.SourceValue, an.calls.Load())
	}
	if v1.ExpiresAt != clk.Now().Add(soundtrack.Retention) || v1.CreatedBy != p.ID() {
		t.Errorf("video %+v", v1)
	}
	a, err := svc.AnalysisFor(ctx, v1.SourceValue, p.ID(), false)
	if err != nil || a.Music == nil || an.calls.Load() != 1 {
		t.Fatalf("analysis by value: %+v %v (%d analyses)", a, err, an.calls.Load())
	}
	// Another caller, or an anonymous one, may not use a private video's hash.
	for _, viewer := range []string{"", "client:other", "user:" + p.Client.ID} {
		if _, err := svc.AnalysisFor(ctx, v1.SourceValue, viewer, false); !errs.Is(err, errs.NotFound) {
			t.Errorf("viewer %q, private video: %v; want not found", viewer, err)
		}
	}
	// A new analyzer version analyzes again, from the stored media.
	an.version = "v2"
	if a, err := svc.AnalysisFor(ctx, v1.SourceValue, p.ID(), false); err != nil || a.Version != "v2" || an.calls.Load() != 2 {
		t.Errorf("after a version change: %+v %v (%d analyses)", a.Version, err, an.calls.Load())
	}
	// After the retention both the video and its analysis are gone.
	clk.Advance(soundtrack.Retention + time.Minute)
	if _, err := svc.Get(ctx, v1.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("expired video: %v", err)
	}
	if _, err := svc.AnalysisFor(ctx, v1.SourceValue, p.ID(), false); !errs.Is(err, errs.NotFound) {
		t.Errorf("expired analysis: %v", err)
	}
}
