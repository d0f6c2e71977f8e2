package decode_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg not installed")
		}
		t.Skip("ffmpeg not installed")
	}
}

func ffmpeg(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("ffmpeg", append([]string{"-nostdin", "-y", "-loglevel", "error"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg %v: %v %s", args, err, out)
	}
}

func TestWAVRoundTrip(t *testing.T) {
	p := audiotest.Tone(8000, 0.5, 440, 0.5)
	var buf bytes.Buffer
	if err := decode.WriteWAV(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := decode.ReadWAV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Rate != 8000 || len(back.Samples) != len(p.Samples) {
		t.Fatalf("rate %d len %d", back.Rate, len(back.Samples))
	}
	for i := range p.Samples {
		if math.Abs(float64(back.Samples[i]-p.Samples[i])) > 1.0/32767 {
			t.Fatalf("sample %d: %v vs %v", i, back.Samples[i], p.Samples[i])
		}
	}
	if _, err := decode.ReadWAV(bytes.NewReader([]byte("not a wav file at all"))); !errors.Is(err, decode.ErrCorrupt) {
		t.Errorf("garbage: %v", err)
	}
}

// TestContainers decodes the same tone from the formats the API accepts
// and checks rate, length and pitch survive.
func TestContainers(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.wav")
	f, _ := os.Create(src)
	decode.WriteWAV(f, audiotest.Tone(44100, 3, 440, 0.5))
	f.Close()
	outs := map[string][]string{
		"a.mp3":  {"-c:a", "libmp3lame"},
		"a.flac": {},
		"a.ogg":  {"-c:a", "libvorbis"},
		"v.mp4":  {"-f", "lavfi", "-i", "color=c=black:s=64x64:d=3", "-shortest", "-c:a", "aac", "-c:v", "mpeg4"},
		"v.avi":  {"-f", "lavfi", "-i", "color=c=black:s=64x64:d=3", "-shortest", "-c:v", "mpeg4"},
		"v.mov":  {"-f", "lavfi", "-i", "color=c=black:s=64x64:d=3", "-shortest", "-c:a", "aac", "-c:v", "mpeg4"},
	}
	for name, extra := range outs {
		path := filepath.Join(dir, name)
		args := []string{"-i", src}
		args = append(args, extra...)
		ffmpeg(t, append(args, path)...)
		p, err := decode.Decoder{}.DecodeFile(context.Background(), path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.Rate != audio.DefaultSampleRate || math.Abs(p.Seconds()-3) > 0.1 {
			t.Errorf("%s: rate %d, %.2f s", name, p.Rate, p.Seconds())
		}
		if z := zeroCrossingHz(p.Window(1, 1)); math.Abs(z-440) > 5 {
			t.Errorf("%s: pitch %.1f Hz, want 440", name, z)
		}
	}
}

func zeroCrossingHz(p audio.PCM) float64 {
	n := 0
	for i := 1; i < len(p.Samples); i++ {
		if (p.Samples[i-1] < 0) != (p.Samples[i] < 0) {
			n++
		}
	}
	return float64(n) / 2 / p.Seconds()
}

func TestTypedErrors(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	ctx := context.Background()

	corrupt := filepath.Join(dir, "corrupt.mp4")
	os.WriteFile(corrupt, bytes.Repeat([]byte("garbage!"), 1000), 0o644)
	_, err := decode.Decoder{}.DecodeFile(ctx, corrupt)
	if !errors.Is(err, decode.ErrCorrupt) || decode.Code(err) != "corrupt_media" {
		t.Errorf("corrupt: %v (code %q)", err, decode.Code(err))
	}

	silent := filepath.Join(dir, "video-only.mp4")
	ffmpeg(t, "-f", "lavfi", "-i", "color=c=black:s=64x64:d=1", "-c:v", "mpeg4", silent)
	_, err = decode.Decoder{}.DecodeFile(ctx, silent)
	if !errors.Is(err, decode.ErrNoAudio) || decode.Code(err) != "no_audio_stream" {
		t.Errorf("video only: %v (code %q)", err, decode.Code(err))
	}

	short := filepath.Join(dir, "short.wav")
	f, _ := os.Create(short)
	decode.WriteWAV(f, audiotest.Tone(44100, 0.5, 440, 0.5))
	f.Close()
	_, err = decode.Decoder{MinSeconds: 2}.DecodeFile(ctx, short)
	if !errors.Is(err, decode.ErrTooShort) || decode.Code(err) != "too_short" {
		t.Errorf("short: %v (code %q)", err, decode.Code(err))
	}

	_, err = decode.Decoder{FFmpegPath: filepath.Join(dir, "no-ffmpeg")}.DecodeFile(ctx, short)
	if err == nil || decode.Code(err) != "" {
		t.Errorf("missing ffmpeg must not blame the input: %v", err)
	}
}

func TestReaderAndWindow(t *testing.T) {
	needFFmpeg(t)
	var buf bytes.Buffer
	// 2 s of 440 Hz then 2 s of 880 Hz.
	decode.WriteWAV(&buf, audiotest.Concat(audiotest.Tone(22050, 2, 440, 0.5), audiotest.Tone(22050, 2, 880, 0.5)))
	data := buf.Bytes()
	p, err := decode.Decoder{SampleRate: 16000}.Decode(context.Background(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if p.Rate != 16000 || math.Abs(p.Seconds()-4) > 0.05 {
		t.Fatalf("rate %d, %.2f s", p.Rate, p.Seconds())
	}
	path := filepath.Join(t.TempDir(), "two.wav")
	os.WriteFile(path, data, 0o644)
	w, err := decode.Decoder{}.DecodeWindow(context.Background(), path, 2.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w.Seconds()-1) > 0.02 || math.Abs(zeroCrossingHz(w)-880) > 5 {
		t.Errorf("window: %.2f s at %.0f Hz", w.Seconds(), zeroCrossingHz(w))
	}
}
