package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"mime/multipart"
	"musiccatalog/pkg/cputime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio/audiotest/benchvideo"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/httpapi/apitest"
)

// BenchmarkRecognitionEndToEnd submits the benchmark video through the
// devserver API (multipart upload), polls until the job completes and
// reports the wall time from submit to completion and, for every
// boundary of the music, the error of the reported segment's bound.
// Setup (catalog ingest, the outside service, the video) is not timed.
// Target (issue 6): ≤ 10 s, boundaries within ±1 s. Run: make bench.
func BenchmarkRecognitionEndToEnd(b *testing.B) {
	requireWesnoth(b)
	dir := b.TempDir()
	outsideURL := startOutsideService(b, dir)
	b.Setenv("ACRCLOUD_HOST", outsideURL)
	b.Setenv("ACRCLOUD_ACCESS_KEY", "bench-key")
	b.Setenv("ACRCLOUD_ACCESS_SECRET", "bench-secret")
	d, creds := newTestDeps(b)
	ids := ingestBenchCatalog(b, d, dir)
	video := makeBenchVideo(b, dir)
	srv := httptest.NewServer(d.LocalHandler())
	defer srv.Close()

	b.ResetTimer()
	var job map[string]any
	var wall, cpu time.Duration
	for range b.N {
		t0, c0 := time.Now(), cputime.Total()
		job = submitAndPoll(b, srv.URL, creds.Partner.Key, video)
		wall, cpu = time.Since(t0), cputime.Total()-c0
	}
	b.StopTimer()
	// CPU seconds of the whole pipeline (ffmpeg included, the outside
	// service's process not): what the cost model bills the tasks for.
	b.ReportMetric(cpu.Seconds(), "cpu_s")
	maxErr, identified := reportBoundaries(b, job, ids, wall)
	b.ReportMetric(wall.Seconds(), "wall_s")
	b.ReportMetric(maxErr, "max_boundary_err_s")
	b.ReportMetric(float64(identified), "stretches_named")
}

// startOutsideService runs `admin outside-serve` over a manifest of
// wesnoth tracks that are not in the catalog and returns its URL.
func startOutsideService(b *testing.B, dir string) string {
	b.Helper()
	mpath := filepath.Join(dir, "outside.jsonl")
	if err := os.WriteFile(mpath, []byte(benchvideo.OutsideManifest()), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "admin")
	if out, err := exec.Command("go", "build", "-o", bin, "musiccatalog/functions/admin").CombinedOutput(); err != nil {
		b.Fatalf("build admin: %v %s", err, out)
	}
	cmd := exec.Command(bin, "outside-serve", "--manifest", mpath, "--addr", "127.0.0.1:0",
		"--access-key", "bench-key", "--access-secret", "bench-secret")
	cmd.Env = append(os.Environ(), "DATA_DIR="+filepath.Join(dir, "outside-data"), "LOG_LEVEL=info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	if url, ok := apitest.ListeningURL(stderr); ok {
		return url
	}
	b.Fatal("outside-serve stopped before listening")
	return ""
}

// ingestBenchCatalog ingests the video's catalog songs and a few more
// and returns the catalog ids by title.
func ingestBenchCatalog(b *testing.B, d *Deps, dir string) map[string]string {
	b.Helper()
	mpath := filepath.Join(dir, "catalog.jsonl")
	if err := os.WriteFile(mpath, []byte(benchvideo.CatalogManifest(func(f string) string { return filepath.Join(wesnothMusic, f) })), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rep, err := ingest.Run(ctx, ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, FFmpegPath: "ffmpeg"}, mpath)
	if err != nil || len(rep.Errors) > 0 {
		b.Fatalf("ingest: %v %v", err, rep.Errors)
	}
	cat, err := d.Catalog.Current(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids := map[string]string{}
	for _, t := range cat.Tracks() {
		ids[t.Name] = t.ID
	}
	return ids
}

// makeBenchVideo renders the benchmark video (benchvideo.Make).
func makeBenchVideo(b *testing.B, dir string) string {
	b.Helper()
	video, err := benchvideo.Make(dir)
	if err != nil {
		b.Fatal(err)
	}
	return video
}

// submitAndPoll submits the video as a multipart upload and polls the job
// until it ends, as a client would (more often than the spec's 2–5 s, so
// the wall time measures the service, not the poll cadence).
func submitAndPoll(b *testing.B, base, key, video string) map[string]any {
	b.Helper()
	raw, err := os.ReadFile(video)
	if err != nil {
		b.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "vlog.mp4")
	fw.Write(raw)
	mw.Close()
	req, _ := http.NewRequest("POST", base+recognitionPath, &body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var created map[string]any
	if status := doJSON(b, req, &created); status != 201 {
		b.Fatalf("submit: %d %v", status, created)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		req, _ := http.NewRequest("GET", base+recognitionPath+created["job_id"].(string)+"/", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		var job map[string]any
		if status := doJSON(b, req, &job); status != 200 {
			b.Fatalf("poll: %d %v", status, job)
		}
		if job["status"] == "completed" || job["status"] == "failed" {
			if job["status"] == "failed" {
				b.Fatalf("job failed: %v", job)
			}
			return job
		}
		if time.Now().After(deadline) {
			b.Fatalf("job still %v", job)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func doJSON(b *testing.B, req *http.Request, v any) int {
	b.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		b.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return resp.StatusCode
}

// reportBoundaries prints, per music stretch, the segment that overlaps it
// most, what it was named and the error of both bounds, and returns the
// largest error and how many stretches were named right.
func reportBoundaries(b *testing.B, job map[string]any, ids map[string]string, wall time.Duration) (maxErr float64, named int) {
	segs, _ := job["segments"].([]any)
	var out strings.Builder
	fmt.Fprintf(&out, "\nrecognition end to end: %.0f s video, %d segments, wall %.2f s (submit → completed)\n", float64(benchvideo.Seconds), len(segs), wall.Seconds())
	fmt.Fprintf(&out, "%-22s %-8s %13s %15s %9s %9s  %s\n", "stretch", "tier", "truth (s)", "reported (s)", "start err", "end err", "named as")
	used := map[int]bool{}
	for _, s := range benchvideo.Music {
		best, bestOverlap := -1, 0.0
		for i, raw := range segs {
			seg := raw.(map[string]any)
			a, z := ms(seg["start_ms"]), ms(seg["end_ms"])
			if ov := math.Min(z, s.End) - math.Max(a, s.Start); ov > bestOverlap {
				best, bestOverlap = i, ov
			}
		}
		tier := "catalog"
		if s.Outside {
			tier = "outside"
		}
		if best < 0 {
			fmt.Fprintf(&out, "%-22s %-8s %6.1f–%6.1f %15s %9s %9s  MISSED\n", s.Title, tier, s.Start, s.End, "-", "-", "-")
			maxErr = math.Inf(1)
			continue
		}
		used[best] = true
		seg := segs[best].(map[string]any)
		a, z := ms(seg["start_ms"]), ms(seg["end_ms"])
		es, ee := a-s.Start, z-s.End
		maxErr = math.Max(maxErr, math.Max(math.Abs(es), math.Abs(ee)))
		right := false
		name := "unidentified"
		if seg["identified"] == true {
			name = fmt.Sprintf("%v (internal %v, cleared %v, label %v)", seg["title"], seg["internal"], seg["cleared"], seg["external_label"])
			if s.Outside {
				right = seg["internal"] == false && seg["cleared"] == false && seg["id"] == nil && seg["title"] == s.Title
			} else {
				right = seg["internal"] == true && seg["id"] == ids[s.Title]
			}
		}
		if right {
			named++
		} else {
			name += "  WRONG"
		}
		fmt.Fprintf(&out, "%-22s %-8s %6.1f–%6.1f %7.2f–%7.2f %+9.2f %+9.2f  %s\n", s.Title, tier, s.Start, s.End, a, z, es, ee, name)
	}
	for i, raw := range segs {
		if !used[i] {
			seg := raw.(map[string]any)
			fmt.Fprintf(&out, "extra segment %.2f–%.2f: %v (identified %v)\n", ms(seg["start_ms"]), ms(seg["end_ms"]), seg["title"], seg["identified"])
		}
	}
	fmt.Fprintf(&out, "named right %d/%d, largest boundary error %.2f s (target ≤ 10 s wall, ±1 s)\n", named, len(benchvideo.Music), maxErr)
	fmt.Print(out.String())
	return maxErr, named
}

func ms(v any) float64 {
	f, _ := v.(float64)
	return f / 1000
}
