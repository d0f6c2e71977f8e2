package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/outside/acrcloud"
)

// startOutsideServe runs `admin outside-serve` until the test ends and
// returns the base URL it logged.
func startOutsideServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"outside-serve"}, args...), io.Discard, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("outside-serve exited with %d", code)
		}
	})
	if url, ok := apitest.ListeningURL(pr); ok {
		return url
	}
	t.Fatalf("outside-serve ended without listening (exit %d)", <-done)
	return ""
}

func writeWAV(t *testing.T, path string, p audio.PCM) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := decode.WriteWAV(f, p); err != nil {
		t.Fatal(err)
	}
}

// TestOutsideServeWithTheACRCloudAdapter serves a manifest of two songs
// and identifies samples with the production adapter.
func TestOutsideServeWithTheACRCloudAdapter(t *testing.T) {
	const rate = audio.DefaultSampleRate
	dir := t.TempDir()
	t.Setenv("DATA_DIR", filepath.Join(dir, "data"))
	songs := []audio.PCM{}
	var m strings.Builder
	for i, label := range []string{"Epidemic Sound", "Artlist"} {
		song, _ := audiotest.Song(rate, 8, uint64(i+1))
		songs = append(songs, song)
		writeWAV(t, filepath.Join(dir, fmt.Sprintf("song%d.wav", i)), song)
		fmt.Fprintf(&m, `{"kind":"track","name":"Outside %d","artist":{"name":"Band %d"},"album":{"name":"Album %d"},"label":%q,"isrc":"QZOUT260000%d","genre_name":"Pop","audio":"song%d.wav"}`+"\n",
			i, i, i, label, i, i)
	}
	mpath := filepath.Join(dir, "outside.jsonl")
	if err := os.WriteFile(mpath, []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	base := startOutsideServe(t, "--manifest", mpath, "--addr", "127.0.0.1:0", "--access-key", "key", "--access-secret", "secret")

	client, err := acrcloud.New(base, "key", "secret")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	match, err := client.Identify(ctx, decode.WAVBytes(songs[1].Window(12, 10)))
	if err != nil || match == nil {
		t.Fatalf("identify: %+v %v", match, err)
	}
	if match.Title != "Outside 1" || match.Artist != "Band 1" || match.Album != "Album 1" || match.Label != "Artlist" ||
		match.ISRC != "QZOUT2600001" || match.Score == nil {
		t.Errorf("match %+v", match)
	}
	// Music it does not hold is no match.
	other, _ := audiotest.Song(rate, 8, 99)
	if match, err := client.Identify(ctx, decode.WAVBytes(other.Window(12, 10))); err != nil || match != nil {
		t.Errorf("unknown music: %+v %v", match, err)
	}
	// The signature is checked: a wrong secret is rejected.
	wrong, _ := acrcloud.New(base, "key", "not-the-secret")
	if _, err := wrong.Identify(ctx, decode.WAVBytes(songs[0].Window(12, 10))); !errors.Is(err, outside.ErrRejected) {
		t.Errorf("wrong secret: %v", err)
	}
}

func TestOutsideServeUsage(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, args := range [][]string{
		{"outside-serve"},
		{"outside-serve", "--manifest", "m.jsonl", "--access-key", "k"},
	} {
		var errb strings.Builder
		if code := Run(ctx, args, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), "--access-secret") {
			t.Errorf("%v: exit %d %s", args, code, errb.String())
		}
	}
	var errb strings.Builder
	if code := Run(ctx, []string{"outside-serve", "--manifest", filepath.Join(t.TempDir(), "none.jsonl"), "--access-key", "k", "--access-secret", "s"}, io.Discard, &errb); code != 1 {
		t.Errorf("missing manifest: exit %d %s", code, errb.String())
	}
}
