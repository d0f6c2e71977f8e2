package videoanalysis

import (
	"context"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
)

// BenchmarkAnalyze60s times the analysis the create call runs on a
// one-minute 640x360 H.264 video with music (audio and picture in
// parallel, as in the API).
func BenchmarkAnalyze60s(b *testing.B) {
	t := &testing.T{}
	if !hasFFmpeg() {
		b.Skip("needs ffmpeg")
	}
	dir := b.TempDir()
	song, _ := audiotest.Song(audio.DefaultSampleRate, 10, 11) // six sections: 60 s
	music := wav(t, filepath.Join(dir, "music.wav"), song)
	video := filepath.Join(dir, "v60.mp4")
	ffmpeg(t, "-i", music, "-f", "lavfi", "-t", "60", "-i", "testsrc2=s=640x360:r=30", "-map", "0:a", "-map", "1:v", "-t", "60",
		"-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", video)
	if t.Failed() {
		b.Fatal("could not make the video")
	}
	ctx := context.Background()
	b.ResetTimer()
	var a float64
	for b.Loop() {
		res, err := Analyzer{}.Analyze(ctx, video, true)
		if err != nil {
			b.Fatal(err)
		}
		a = res.Seconds
	}
	b.ReportMetric(a, "video-s")
}
