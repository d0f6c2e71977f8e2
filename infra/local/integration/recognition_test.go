package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"musiccatalog/infra/local/lambdastub"
	"musiccatalog/pkg/audio/audiotest/benchvideo"
	"musiccatalog/pkg/httpapi/apitest"
)

const (
	recognitionPath = "/api/v4/video-recognition/"
	// jobDeadline bounds one recognition job end to end.
	jobDeadline = 4 * time.Minute
)

func requireWesnoth(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(benchvideo.WesnothMusic); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("wesnoth music missing: %v", err)
		}
		t.Skip("needs the wesnoth-1.16-music package")
	}
}

// recognitionClient is the client side of the upload-url flow, over the
// devserver's HTTP API or the API function's events.
type recognitionClient interface {
	request(method, path string, body []byte) apiResponse
	// put uploads to a presigned URL as a client would.
	put(url, contentType string, body []byte)
}

// uploadURL asks for an upload URL and PUTs the video to it.
func uploadVideo(t testing.TB, c recognitionClient, video []byte, name string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"filename": name, "content_length": len(video)})
	r := c.request("POST", recognitionPath+"upload-url/", body)
	if r.Status != http.StatusCreated {
		t.Fatalf("upload-url: %d %s", r.Status, r.Body)
	}
	up := r.JSON(t)
	c.put(up["upload_url"].(string), up["content_type"].(string), video)
	return up["storage_key"].(string)
}

func submit(t testing.TB, c recognitionClient, key string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"storage_key": key})
	r := c.request("POST", recognitionPath, body)
	return r.Status, r.JSON(t)
}

// pollJob polls until the job ends, a little more often than the spec's
// 2–5 s so the wall time measures the service, not the cadence.
func pollJob(t testing.TB, c recognitionClient, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(jobDeadline)
	for {
		r := c.request("GET", recognitionPath+id+"/", nil)
		if r.Status != http.StatusOK {
			t.Fatalf("poll %s: %d %s", id, r.Status, r.Body)
		}
		job := r.JSON(t)
		if job["status"] == "completed" || job["status"] == "failed" {
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %v after %s", id, job["status"], jobDeadline)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lambdaClient calls api-recognition's binary through the Invoke API.
type lambdaClient struct {
	s *stack
	t testing.TB
}

func (c lambdaClient) request(method, path string, body []byte) apiResponse {
	return c.s.call("ApiRecognitionFunction", method, path, "", map[string]string{"content-type": "application/json"}, body)
}

func (c lambdaClient) put(url, contentType string, body []byte) { httpPut(c.t, url, contentType, body) }

func httpPut(t testing.TB, url, contentType string, body []byte) {
	t.Helper()
	req, _ := http.NewRequest("PUT", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.ContentLength = int64(len(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT %s: %d %s", url, resp.StatusCode, msg)
	}
}

// httpClient calls the devserver.
type httpClient struct {
	base, key string
	t         testing.TB
}

func (c httpClient) request(method, path string, body []byte) apiResponse {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return apiResponse{Status: resp.StatusCode, Body: b}
}

func (c httpClient) put(url, contentType string, body []byte) { httpPut(c.t, url, contentType, body) }

// startProcess runs a built binary until the test ends and returns the
// "listening on URL" its JSON log announces.
func startProcess(t testing.TB, bin string, args, env []string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	if url, ok := apitest.ListeningURL(stderr); ok {
		return url
	}
	t.Fatalf("%s stopped before listening", filepath.Base(bin))
	return ""
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// segmentFields are what both paths must agree on (URLs differ by host).
var segmentFields = []string{"identified", "start_ms", "end_ms", "id", "title", "artist", "cleared", "internal", "isrc", "score", "external_label"}

func segmentsOf(job map[string]any) []map[string]any {
	var out []map[string]any
	segs, _ := job["segments"].([]any)
	for _, raw := range segs {
		seg, _ := raw.(map[string]any)
		m := map[string]any{}
		for _, f := range segmentFields {
			m[f] = seg[f]
		}
		out = append(out, m)
	}
	return out
}

// runDevserver ingests the catalog with `admin ingest` and serves it with
// the devserver binary, the `make run` path.
func runDevserver(t testing.TB, outsideEnv []string, dir string) httpClient {
	t.Helper()
	bins := binaries(t)
	data := filepath.Join(dir, "devserver-data")
	manifest := filepath.Join(dir, "catalog.jsonl")
	if err := os.WriteFile(manifest, []byte(benchvideo.CatalogManifest(func(f string) string { return filepath.Join(benchvideo.WesnothMusic, f) })), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append([]string{"DATA_DIR=" + data, "LOG_LEVEL=info"}, outsideEnv...)
	ingest := exec.Command(filepath.Join(bins, "admin", "bootstrap"), "ingest", manifest)
	ingest.Env = append(os.Environ(), env...)
	t0 := time.Now()
	if out, err := ingest.CombinedOutput(); err != nil {
		t.Fatalf("admin ingest: %v\n%s", err, tail(string(out), 2000))
	}
	t.Logf("devserver catalog ingested in %.1f s", time.Since(t0).Seconds())
	addr := freeAddr(t)
	env = append(env, "ADDR="+addr)
	startProcess(t, filepath.Join(bins, "devserver", "bootstrap"), nil, env)
	var creds struct {
		Partner struct{ Key string } `json:"partner"`
	}
	raw, err := os.ReadFile(filepath.Join(data, "demo-credentials.json"))
	if err != nil || json.Unmarshal(raw, &creds) != nil || creds.Partner.Key == "" {
		t.Fatalf("devserver demo credentials: %v %s", err, raw)
	}
	return httpClient{base: "http://" + addr, key: creds.Partner.Key, t: t}
}

// ingestThroughBinary uploads the catalog's audio and manifest to the
// bucket; the manifest's notification runs the catalog-ingest binary.
func ingestThroughBinary(t testing.TB, s *stack, prefix string, files map[string][]byte, manifest string) {
	t.Helper()
	ctx := context.Background()
	for name, body := range files {
		if _, err := s.S3().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(prefix + name), Body: bytes.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	key := prefix + "tracks.jsonl"
	if _, err := s.S3().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), Body: strings.NewReader(manifest), ContentType: aws.String("application/x-ndjson")}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	n, err := s.Notify(ctx, s.bucket, key)
	if err != nil || n != 1 {
		t.Fatalf("manifest notification reached %d targets: %v", n, err)
	}
	s.WaitAsync()
	if _, err := s.S3().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String("catalog/current.json")}); err != nil {
		t.Fatalf("catalog-ingest published no catalog: %v\n%s", err, tail(s.Logs(s.Function("CatalogIngestFunction")), 3000))
	}
	t.Logf("catalog-ingest binary published the catalog in %.1f s", time.Since(t0).Seconds())
}

// TestRecognitionThroughTheBinaries is the upload path partners hit in
// production, on the stand-ins: presigned PUT → S3 notification → SQS →
// recognition-prepare → submit through api-recognition → the recognition
// state machine on aws-local-stepfunctions invoking the task binaries →
// poll. The job must end with the same segments as the devserver's for the
// same 3-minute benchmark video and catalog.
func TestRecognitionThroughTheBinaries(t *testing.T) {
	requireTier(t)
	requireWesnoth(t)
	dir := t.TempDir()
	bins := binaries(t)
	outsideManifest := filepath.Join(dir, "outside.jsonl")
	if err := os.WriteFile(outsideManifest, []byte(benchvideo.OutsideManifest()), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := startProcess(t, filepath.Join(bins, "admin", "bootstrap"), []string{"outside-serve", "--manifest", outsideManifest,
		"--addr", "127.0.0.1:0", "--access-key", "it-key", "--access-secret", "it-secret"}, []string{"DATA_DIR=" + filepath.Join(dir, "outside-data")})
	videoPath, err := benchvideo.Make(dir)
	if err != nil {
		t.Fatal(err)
	}
	video, err := os.ReadFile(videoPath)
	if err != nil {
		t.Fatal(err)
	}

	// The devserver path first, alone on the machine.
	dev := runDevserver(t, []string{"ACRCLOUD_HOST=" + outside, "ACRCLOUD_ACCESS_KEY=it-key", "ACRCLOUD_ACCESS_SECRET=it-secret"}, dir)
	t0 := time.Now()
	key := uploadVideo(t, dev, video, "bench.mp4")
	status, created := submit(t, dev, key)
	if status != http.StatusCreated {
		t.Fatalf("devserver submit: %d %v", status, created)
	}
	devJob := pollJob(t, dev, created["job_id"].(string))
	devWall := time.Since(t0)
	if devJob["status"] != "completed" {
		t.Fatalf("devserver job: %v", devJob)
	}

	// On AWS the ACRCloud credentials come from an SSM SecureString read
	// at init; the tier has no SSM, so the function gets them as the
	// local environment variables the same config reads. (A real deploy
	// refuses AcrCloudHost without AcrCloudCredentialsParameter, the
	// template's AcrCloudHostNeedsCredentials rule; lambdastub does not
	// evaluate Rules, and the variables below stand in for that parameter.)
	s := newStack(t, map[string]string{"AcrCloudHost": outside}, func(st *lambdastub.Stack) {
		for _, f := range st.Functions {
			if _, ok := f.Env["ACRCLOUD_HOST"]; ok {
				f.Env["ACRCLOUD_ACCESS_KEY"], f.Env["ACRCLOUD_ACCESS_SECRET"] = "it-key", "it-secret"
			}
		}
	})
	files := map[string][]byte{}
	for _, f := range benchvideo.CatalogFiles() {
		b, err := os.ReadFile(filepath.Join(benchvideo.WesnothMusic, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	ingestThroughBinary(t, s, "catalog-manifests/bench/", files, benchvideo.CatalogManifest(func(f string) string { return f }))
	s.StartEventSources()

	fn := lambdaClient{s: s, t: t}
	t0 = time.Now()
	key = uploadVideo(t, fn, video, "bench.mp4")
	if n, err := s.Notify(context.Background(), s.bucket, key); err != nil || n != 1 {
		t.Fatalf("upload notification reached %d targets: %v", n, err)
	}
	status, created = submit(t, fn, key)
	if status != http.StatusCreated {
		t.Fatalf("submit through api-recognition: %d %v", status, created)
	}
	job := pollJob(t, fn, created["job_id"].(string))
	wall := time.Since(t0)
	if job["status"] != "completed" {
		t.Fatalf("job through the binaries: %v", job)
	}
	record(t, "recognition of the %d s benchmark video, PUT → completed: %.1f s through the Lambda binaries and Step Functions (devserver: %.1f s)",
		benchvideo.Seconds, wall.Seconds(), devWall.Seconds())

	got, want := segmentsOf(job), segmentsOf(devJob)
	if len(want) == 0 {
		t.Fatalf("the devserver found no segments: %v", devJob)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("segments through the binaries differ from the devserver's:\n%s\nwant\n%s", g, w)
	}
	named := 0
	for _, seg := range got {
		if seg["identified"] == true {
			named++
		}
	}
	if named < len(benchvideo.Music) {
		t.Errorf("%d identified segments, want the video's %d stretches: %v", named, len(benchvideo.Music), got)
	}
	// The upload was prepared by the trigger before or while the job ran.
	out, err := s.S3().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String("recognition-work/")})
	if err != nil || len(out.Contents) == 0 {
		t.Errorf("no prepared work under recognition-work/: %v", err)
	}
}
