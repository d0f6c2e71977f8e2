package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"musiccatalog/pkg/cputime"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio/decode"
)

func needFFmpeg(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
}

func run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return out
}

// testVideo writes an H.264 MP4 of the given size and length; with tone
// > 0 its audio is a sine of that frequency, without it has no audio.
func testVideo(t testing.TB, path, size string, seconds float64, tone float64) {
	t.Helper()
	secs := fmt.Sprint(seconds)
	args := []string{"-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=" + size + ":r=30:d=" + secs}
	if tone > 0 {
		args = append(args, "-f", "lavfi", "-i", fmt.Sprintf("sine=f=%g:r=48000:d=%s", tone, secs), "-af", "volume=0.5", "-c:a", "aac", "-b:a", "128k")
	}
	args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-t", secs, path)
	run(t, "ffmpeg", args...)
}

// testTrack writes a stereo wav of a sine (ffmpeg's sine at twice its 1/8 amplitude).
func testTrack(t testing.TB, path string, freq, seconds float64) {
	t.Helper()
	run(t, "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", fmt.Sprintf("sine=f=%g:r=44100:d=%g", freq, seconds),
		"-af", "volume=2", "-ac", "2", path)
}

type probed struct {
	Format  struct{ Duration string }
	Streams []struct {
		CodecType string `json:"codec_type"`
		CodecName string `json:"codec_name"`
	}
}

func probe(t testing.TB, path string) (seconds float64, video, audio []string) {
	t.Helper()
	var p probed
	if err := json.Unmarshal(run(t, "ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type,codec_name", "-of", "json", path), &p); err != nil {
		t.Fatal(err)
	}
	seconds, _ = strconv.ParseFloat(p.Format.Duration, 64)
	for _, s := range p.Streams {
		switch s.CodecType {
		case "video":
			video = append(video, s.CodecName)
		case "audio":
			audio = append(audio, s.CodecName)
		}
	}
	return seconds, video, audio
}

// levels decodes the render's audio (mono, 22.05 kHz) between from and
// to seconds and returns the amplitude at freq (Goertzel, as a sine's
// peak) and the largest sample.
func levels(t testing.TB, path string, from, to, freq float64) (amp, peak float64) {
	t.Helper()
	pcm, err := decode.Decoder{}.DecodeWindow(context.Background(), path, from, to-from)
	if err != nil {
		t.Fatal(err)
	}
	n := len(pcm.Samples)
	w := 2 * math.Pi * freq / float64(pcm.Rate)
	var re, im float64
	for i, s := range pcm.Samples {
		re += float64(s) * math.Cos(w*float64(i))
		im -= float64(s) * math.Sin(w*float64(i))
		peak = math.Max(peak, math.Abs(float64(s)))
	}
	return 2 * math.Hypot(re, im) / float64(n), peak
}

// TestMixProbesAndLevels: the render lasts as long as the video (±0.1 s)
// with one video stream (copied: still H.264) and one audio stream; the
// track's level follows track_volume (its source's at 1.0, half at 0.5,
// none at 0), the video's own sound follows video_volume; the end fades out; and
// two full-scale sources summed never clip.
//
// It runs on the machine's ffmpeg and on the pinned static build the
// Lambda layer ships (infra/local/ffmpeg.sh; 4.1, which lacks filter
// options newer builds have): a filter graph only a newer ffmpeg accepts
// renders locally and fails every render on AWS.
func TestMixProbesAndLevels(t *testing.T) {
	needFFmpeg(t)
	t.Run("machine", func(t *testing.T) { checkMixLevels(t, Mixer{}) })
	t.Run("pinned", func(t *testing.T) { checkMixLevels(t, Mixer{FFmpegPath: pinnedFFmpeg(t)}) })
}

// pinnedFFmpeg is the path of the pinned static ffmpeg for this machine's
// architecture (fetched once by infra/local/ffmpeg.sh, which needs npm);
// the test is skipped where it cannot be had, and fails under CI=true.
func pinnedFFmpeg(t *testing.T) string {
	t.Helper()
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" || runtime.GOOS != "linux" {
		t.Skipf("no pinned ffmpeg build for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	out, err := exec.Command("bash", "../../../infra/local/ffmpeg.sh", "cache", arch).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the pinned ffmpeg (infra/local/ffmpeg.sh cache %s): %v", arch, err)
		}
		t.Skipf("the pinned ffmpeg is not available here: %v", err)
	}
	return filepath.Join(dir, "ffmpeg")
}

func checkMixLevels(t *testing.T, m Mixer) {
	dir := t.TempDir()
	video, track := filepath.Join(dir, "v.mp4"), filepath.Join(dir, "t.wav")
	testVideo(t, video, "320x240", 6, 440)
	testTrack(t, track, 1000, 20)
	mix := func(name string, p Params) string {
		out := filepath.Join(dir, name+".mp4")
		res, err := m.Mix(context.Background(), MixInput{VideoPath: video, TrackPath: track, OutPath: out, Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if !res.CopiedVideo {
			t.Error("H.264 video was re-encoded")
		}
		secs, v, a := probe(t, out)
		if math.Abs(secs-6) > 0.1 || len(v) != 1 || v[0] != "h264" || len(a) != 1 || a[0] != "aac" {
			t.Errorf("%s probes as %.3f s, video %v, audio %v; want 6 ± 0.1 s, one h264, one aac", name, secs, v, a)
		}
		return out
	}
	full := mix("full", Params{VideoVolume: 1, TrackVolume: 1, TrackStart: 3})
	half := mix("half", Params{VideoVolume: 0, TrackVolume: 0.5, TrackStart: 3})
	mute := mix("mute", Params{VideoVolume: 1, TrackVolume: 0})

	// Levels are compared with the sources' own, measured the same way.
	tRef, _ := levels(t, track, 4, 6, 1000) // the track from track_start=3, at 1..3 s of the render
	vRef, _ := levels(t, video, 1, 3, 440)
	tFull, _ := levels(t, full, 1, 3, 1000)
	vFull, _ := levels(t, full, 1, 3, 440)
	tHalf, _ := levels(t, half, 1, 3, 1000)
	vHalf, _ := levels(t, half, 1, 3, 440)
	tMute, _ := levels(t, mute, 1, 3, 1000)
	t.Logf("track (source %.4f) at volume 1.0: %.4f, at 0.5: %.4f (%.2f dB), at 0: %.5f; video sound (source %.4f) at 1.0: %.4f, at 0: %.5f",
		tRef, tFull, tHalf, 20*math.Log10(tHalf/tFull), tMute, vRef, vFull, vHalf)
	if r := tFull / tRef; math.Abs(r-1) > 0.05 {
		t.Errorf("track at volume 1: %.3f of its source; want 1", r)
	}
	if r := tHalf / tRef; math.Abs(r-0.5) > 0.03 {
		t.Errorf("track at volume 0.5: %.3f of its source; want 0.5", r)
	}
	if tMute > 0.005*tRef || vHalf > 0.005*tRef {
		t.Errorf("muted sources still sound: track %.5f, video %.5f", tMute, vHalf)
	}
	if r := vFull / vRef; math.Abs(r-1) > 0.05 {
		t.Errorf("video sound at volume 1: %.3f of its source; want 1", r)
	}
	// The fade: the last half second is far quieter than the body.
	tail, _ := levels(t, full, 5.6, 6, 1000)
	if tail > tFull/4 {
		t.Errorf("no fade-out: %.4f at the end vs %.4f", tail, tFull)
	}

	// Two loud sources (each at 0.9 peak) summed: limited, never clipped.
	loudVideo, loudTrack := filepath.Join(dir, "lv.mp4"), filepath.Join(dir, "lt.wav")
	run(t, "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4",
		"-af", "volume=7.2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le", "-t", "4", filepath.Join(dir, "lv.mov"))
	run(t, "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", filepath.Join(dir, "lv.mov"), "-c:v", "copy", "-c:a", "aac", "-b:a", "256k", loudVideo)
	run(t, "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=44100:d=10", "-af", "volume=7.2", loudTrack)
	out := filepath.Join(dir, "loud.mp4")
	if _, err := m.Mix(context.Background(), MixInput{VideoPath: loudVideo, TrackPath: loudTrack, OutPath: out, Params: Params{VideoVolume: 1, TrackVolume: 1}}); err != nil {
		t.Fatal(err)
	}
	_, peak := levels(t, out, 0.5, 2, 440)
	t.Logf("two sources at 0.9 peak summed: output peak %.3f", peak)
	if peak >= 0.99 || peak < 0.5 {
		t.Errorf("loud mix peaks at %.3f; want limited below full scale", peak)
	}
}

// TestMixWithoutVideoAudioAndReencode: a video without sound gets the
// track alone; a codec MP4 does not carry (here FFV1 in Matroska) is
// encoded to H.264.
func TestMixWithoutVideoAudioAndReencode(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	silent, track := filepath.Join(dir, "s.mp4"), filepath.Join(dir, "t.wav")
	testVideo(t, silent, "320x240", 3, 0)
	testTrack(t, track, 1000, 10)
	out := filepath.Join(dir, "o.mp4")
	if _, err := (Mixer{}).Mix(context.Background(), MixInput{VideoPath: silent, TrackPath: track, OutPath: out, Params: Params{TrackVolume: 1}}); err != nil {
		t.Fatal(err)
	}
	if secs, v, a := probe(t, out); math.Abs(secs-3) > 0.1 || len(v) != 1 || len(a) != 1 {
		t.Errorf("silent video: %.3f s, %v, %v", secs, v, a)
	}
	mkv := filepath.Join(dir, "f.mkv")
	run(t, "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=3", "-c:v", "ffv1", mkv)
	res, err := Mixer{}.Mix(context.Background(), MixInput{VideoPath: mkv, TrackPath: track, OutPath: out, Params: Params{TrackVolume: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if secs, v, _ := probe(t, out); res.CopiedVideo || len(v) != 1 || v[0] != "h264" || math.Abs(secs-3) > 0.1 {
		t.Errorf("ffv1 input: copied %v, %.3f s, %v", res.CopiedVideo, secs, v)
	}
	// Not a video at all: a BuildError, not retried.
	junk := filepath.Join(dir, "junk.mp4")
	os.WriteFile(junk, []byte("#EXTM3U\n#EXT-X-ENDLIST\n"), 0o644)
	_, err = Mixer{}.Mix(context.Background(), MixInput{VideoPath: junk, TrackPath: track, OutPath: out, Params: Params{TrackVolume: 1}})
	if be := (*BuildError)(nil); !errors.As(err, &be) || be.Code != CodeCorrupt {
		t.Errorf("junk input: %v", err)
	}
}

// BenchmarkRender60s720p: a 60-s 1280×720 H.264 video with sound, mixed
// with a track; prints how many times faster than real time (the video
// stream is copied).
func BenchmarkRender60s720p(b *testing.B) {
	needFFmpeg(b)
	dir := b.TempDir()
	video, track := filepath.Join(dir, "v.mp4"), filepath.Join(dir, "t.wav")
	testVideo(b, video, "1280x720", 60, 440)
	testTrack(b, track, 1000, 180)
	out := filepath.Join(dir, "o.mp4")
	b.ResetTimer()
	cpu0 := cputime.Children()
	start := time.Now()
	for range b.N {
		res, err := Mixer{}.Mix(context.Background(), MixInput{VideoPath: video, TrackPath: track, OutPath: out, Params: Params{VideoVolume: 0.7, TrackVolume: 0.8, TrackStart: 12}})
		if err != nil || !res.CopiedVideo {
			b.Fatalf("%v copied=%v", err, res.CopiedVideo)
		}
	}
	per := time.Since(start).Seconds() / float64(b.N)
	cpu := (cputime.Children() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(60/per, "x_realtime")
	b.ReportMetric(60/cpu, "x_realtime_cpu")
	b.Logf("60-s 720p H.264 render (stream copy): %.2f s wall = %.1f× real time; ffmpeg/ffprobe CPU %.2f s = %.1f× real time per CPU second",
		per, 60/per, cpu, 60/cpu)
}
