package recognition

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/catalog"
)

// TestGuidedEdgesReadTheRendition: Match's edges are placed by the track's
// WAV rendition as ingest stores it (another rate, stereo, metadata before
// the samples), read by range; a track whose rendition is missing keeps
// the edges the hashes gave it.
func TestGuidedEdgesReadTheRendition(t *testing.T) {
	knolls := filepath.Join("/usr/share/games/wesnoth/1.16/data/core/music", "knolls.ogg")
	if _, err := exec.LookPath("ffmpeg"); err != nil || !fileExists(knolls) {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs ffmpeg and the wesnoth-1.16-music package")
		}
		t.Skip("needs ffmpeg and the wesnoth-1.16-music package")
	}
	ctx := context.Background()
	dir := t.TempDir()
	wav := filepath.Join(dir, "knolls.wav")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-i", knolls, "-t", "40", "-ar", "22050", "-ac", "2",
		"-metadata", "title=Knolls", "-c:a", "pcm_s16le", wav).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	bs, err := fileblob.New(filepath.Join(dir, "blob"), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	rendition, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	if err := bs.Put(ctx, "catalog/audio/knolls.wav", bytes.NewReader(rendition), int64(len(rendition)), "audio/wav"); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(catalog.Contents{Tracks: []*catalog.Track{
		{ID: "knolls", Name: "Knolls", Audio: catalog.AudioRef{WAVKey: "catalog/audio/knolls.wav"}},
		{ID: "gone", Name: "Gone", Audio: catalog.AudioRef{WAVKey: "catalog/audio/gone.wav"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The video: noise, knolls 10–30 s, noise; as Extract stores it.
	song, err := decode.Decoder{}.DecodeWindow(ctx, knolls, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	rate := fingerprint.SampleRate
	video := audiotest.Concat(audiotest.PinkNoise(rate, 3, 0.05, 1), song, audiotest.PinkNoise(rate, 3, 0.05, 2))
	src := SourceRef{Key: UploadPrefix + "c1/v.mp4", ETag: "e1"}
	if err := bs.Put(ctx, workDir(src.Key, src.ETag)+audioFile, bytes.NewReader(decode.WAVBytes(video)), decode.WAVSize(len(video.Samples)), "audio/wav"); err != nil {
		t.Fatal(err)
	}
	s := &Service{blob: bs, log: slog.New(slog.DiscardHandler)}
	// The hashes placed the song 3 s late and ended it 3 s early.
	late := []fingerprint.Stretch{{StartMs: 6000, EndMs: 20000, TrackID: "knolls", TrackOffsetMs: 13000}}
	got, err := s.guideEdges(ctx, src, int64(video.Seconds()*1000), cat, late)
	if err != nil {
		t.Fatal(err)
	}
	if g := got[0]; math.Abs(float64(g.StartMs-3000)) > 500 || math.Abs(float64(g.EndMs-23000)) > 500 || g.TrackOffsetMs-g.StartMs != 7000 {
		t.Errorf("guided to %+v, want 3000–23000 ± 500 at track 10 s", g)
	}
	gone := []fingerprint.Stretch{{StartMs: 6000, EndMs: 20000, TrackID: "gone", TrackOffsetMs: 13000}}
	if got, err := s.guideEdges(ctx, src, int64(video.Seconds()*1000), cat, gone); err != nil || got[0] != gone[0] {
		t.Errorf("a track without its rendition: %+v (%v)", got, err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
