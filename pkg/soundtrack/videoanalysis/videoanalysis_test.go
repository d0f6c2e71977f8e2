package videoanalysis

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

func TestPace(t *testing.T) {
	// 10 s at 10 samples a second: three hard cuts (one a two-sample
	// dissolve), gentle motion elsewhere.
	var scores, times []float64
	for i := range 100 {
		s := 0.02
		switch i {
		case 20, 50, 51, 80:
			s = 0.6
		}
		scores, times = append(scores, s), append(times, float64(i)/10)
	}
	p := Pace(scores, times)
	if p.Cuts != 3 || p.Frames != 100 || p.Seconds != 10 || p.CutsPerMinute != 18 || p.Motion < 0.0199 || p.Motion > 0.0201 {
		t.Errorf("pace %+v", p)
	}
}

func hasFFmpeg() bool { _, err := exec.LookPath("ffmpeg"); return err == nil }

func needFFmpeg(t *testing.T) {
	if !hasFFmpeg() {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg missing")
		}
		t.Skip("needs ffmpeg")
	}
}

func ffmpeg(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ffmpeg", append([]string{"-nostdin", "-v", "error", "-y"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
}

func wav(t *testing.T, path string, p audio.PCM) string {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := decode.WriteWAV(f, p); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAnalyze(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	ctx := context.Background()
	rate := audio.DefaultSampleRate
	song, _ := audiotest.Song(rate, 5, 3)
	speech := audiotest.Babble(rate, 20, 4)
	music := wav(t, filepath.Join(dir, "music.wav"), song)
	talk := wav(t, filepath.Join(dir, "talk.wav"), speech)

	// Music under a moving picture: music found, picture measured, no cuts.
	moving := filepath.Join(dir, "moving.mp4")
	ffmpeg(t, "-i", music, "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25", "-map", "0:a", "-map", "1:v", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", moving)
	start := time.Now()
	a, err := Analyzer{}.Analyze(ctx, moving, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f s of video analyzed in %v", a.Seconds, time.Since(start))
	if a.Music == nil || a.MusicSeconds < 0.6*a.Seconds || len(a.Music.Vector) == 0 || a.Picture == nil ||
		a.Picture.Cuts > 1 || a.Picture.Motion <= 0 || a.Picture.Frames < 150 || a.Version != version {
		t.Errorf("music video: %+v %+v", a, a.Picture)
	}
	// Speech over a still picture: no music, a picture that hardly moves.
	still := filepath.Join(dir, "still.mp4")
	ffmpeg(t, "-i", talk, "-f", "lavfi", "-i", "color=c=navy:s=320x240:r=25", "-map", "0:a", "-map", "1:v", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", still)
	b, err := Analyzer{}.Analyze(ctx, still, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.Music != nil || b.Picture == nil || b.Picture.Cuts != 0 || b.Picture.Motion > 0.001 {
		t.Errorf("talking, still: music %v, picture %+v", b.Music != nil, b.Picture)
	}
	// Audio only: no picture, and none asked for.
	m4a := filepath.Join(dir, "song.m4a")
	ffmpeg(t, "-i", music, "-c:a", "aac", m4a)
	if c, err := (Analyzer{}).Analyze(ctx, m4a, true); err != nil || c.Picture != nil || c.Music == nil {
		t.Errorf("audio only: %+v %v", c, err)
	}
	if c, err := (Analyzer{}).Analyze(ctx, moving, false); err != nil || c.Picture != nil {
		t.Errorf("picture not asked for: %+v %v", c.Picture, err)
	}
	// Input errors keep the decoder's codes (the 422 of the API).
	junk := filepath.Join(dir, "junk.mp4")
	os.WriteFile(junk, []byte("not media"), 0o644)
	if _, err := (Analyzer{}).Analyze(ctx, junk, true); decode.Code(err) != "corrupt_media" {
		t.Errorf("junk: %v", err)
	}
}

// TestUnexpectedFFmpegOutput: scene output that ends in "pts_time:" (or
// is otherwise not what ffmpeg usually prints) neither panics the picture
// goroutine, which would end the process, nor fails the analysis.
func TestUnexpectedFFmpegOutput(t *testing.T) {
	for _, out := range []string{"frame:0 pts:0 pts_time:\n", "pts_time:\nlavfi.scene_score=0.5\n", "pts_time:x\nlavfi.scene_score=1\n"} {
		if _, _, err := parseSceneScores(strings.NewReader(out)); err != nil {
			t.Errorf("%q: %v", out, err)
		}
	}
	var err error
	func() {
		defer recoverTo(&err)
		var s []int
		_ = s[1]
	}()
	if err == nil {
		t.Error("a panic was not turned into an error")
	}

	needFFmpeg(t)
	dir := t.TempDir()
	real, _ := exec.LookPath("ffmpeg")
	fake := filepath.Join(dir, "ffmpeg")
	// The picture run prints a truncated frame line; decoding is real ffmpeg.
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -vf ] && { echo 'frame:0 pts:0 pts_time:'; exit 0; }; done\nexec '" + real + "' \"$@\"\n"
	os.WriteFile(fake, []byte(script), 0o755)
	song, _ := audiotest.Song(audio.DefaultSampleRate, 5, 3)
	video := filepath.Join(dir, "v.mp4")
	ffmpeg(t, "-i", wav(t, filepath.Join(dir, "a.wav"), song), "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25",
		"-map", "0:a", "-map", "1:v", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", video)
	if a, err := (Analyzer{FFmpegPath: fake}).Analyze(context.Background(), video, true); err != nil || a.Music == nil {
		t.Errorf("analysis: %+v %v", a, err)
	}
}
