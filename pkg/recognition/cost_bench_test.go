package recognition_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"musiccatalog/pkg/blob"
)

// BenchmarkPrepareLongUpload prints what the upload trigger (Prepare)
// costs for a 61-minute, 8 kb/s AAC upload – over the 60-minute cap – and
// for a 20-minute one within it: peak RSS of this process, CPU of this
// process and of its children (ffmpeg, ffprobe), and what is left under
// recognition-work/. Run it alone, so the peak RSS is this case's:
//
//	go test ./pkg/recognition/ -run '^$' -bench 'PrepareLongUpload/61min' -benchtime 1x
func BenchmarkPrepareLongUpload(b *testing.B) {
	requireTools(b)
	for _, minutes := range []int{61, 20} {
		b.Run(strconv.Itoa(minutes)+"min", func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "long.mp4")
			out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
				"sine=f=440:d="+strconv.Itoa(60*minutes), "-ac", "1", "-ar", "8000",
				"-c:a", "aac", "-b:a", "8k", path).CombinedOutput()
			if err != nil {
				b.Fatalf("ffmpeg: %v %s", err, out)
			}
			video, _ := os.ReadFile(path)
			for range b.N {
				e := newEnv(b, nil)
				ref := upload(b, e.cfg.Blob, video, "long.mp4")
				before := rusage(b)
				start := time.Now()
				err := e.svc.Prepare(context.Background(), ref.Key, ref.ETag)
				took := time.Since(start)
				after := rusage(b)
				work, _ := e.cfg.Blob.List(context.Background(), "recognition-work/")
				var workBytes int64
				for _, w := range work {
					workBytes += w.Size
				}
				_, gone := e.cfg.Blob.Head(context.Background(), ref.Key)
				b.Logf("%d-minute upload of %.1f MB: err=%v, %v; peak RSS %.0f → %.0f MB; CPU self %.2f s, children %.2f s; work files %.1f MB; upload deleted: %v",
					minutes, float64(len(video))/1e6, err, took.Round(time.Millisecond), before.maxRSS, after.maxRSS,
					after.self-before.self, after.children-before.children, float64(workBytes)/1e6, errors.Is(gone, blob.ErrNotFound))
			}
		})
	}
}

type usage struct{ maxRSS, self, children float64 }

func rusage(b *testing.B) usage {
	var s, c syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &s); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c); err != nil {
		b.Fatal(err)
	}
	cpu := func(r syscall.Rusage) float64 {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano()).Seconds()
	}
	return usage{maxRSS: float64(s.Maxrss) / 1024, self: cpu(s), children: cpu(c)}
}
