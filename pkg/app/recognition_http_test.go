package app

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

const (
	uploadURLPath   = "/api/v4/video-recognition/upload-url/"
	recognitionPath = "/api/v4/video-recognition/"
	wesnothMusic    = "/usr/share/games/wesnoth/1.16/data/core/music"
)

// multipartFile builds a multipart body with one file part (and extra fields).
func multipartFile(t *testing.T, name string, content []byte, fields map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	}
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func TestRecognitionValidationAndAuth(t *testing.T) {
	d, creds, c := partnerClient(t)
	ctx := context.Background()

	// Auth: partner key with compliance_check.
	_, noScope, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: "N", Plan: identity.PlanEnterprise, Scopes: []string{identity.ScopeLicenses}})
	if err != nil {
		t.Fatal(err)
	}
	for tok, status := range map[string]int{"": 401, "Bearer nope": 401, "Bearer " + noScope: 403, "Bearer " + creds.User.Token: 403} {
		for _, p := range []string{uploadURLPath, recognitionPath} {
			if r := c.Do(apitest.Request{Method: "POST", Path: p, JSON: map[string]string{"filename": "a.mp4"}, Header: map[string]string{"Authorization": tok}}); r.Status != status {
				t.Errorf("POST %s with %q: %d, want %d", p, tok, r.Status, status)
			}
		}
	}

	// upload-url validation.
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"filename": "clip.mkv"}, "filename"},
		{map[string]any{}, "filename"},
		{map[string]any{"filename": "clip.mp4", "content_length": 100_000_001}, "content_length"},
		{map[string]any{"filename": "clip.mp4", "content_length": 0}, "content_length"},
	} {
		r := c.Do(apitest.Request{Method: "POST", Path: uploadURLPath, JSON: tc.body})
		if r.Status != 400 || r.Map(t)[tc.field] == nil {
			t.Errorf("upload-url %v: %d %s", tc.body, r.Status, r.Body)
		}
	}

	// A presigned PUT pins type and length; the key then submits.
	video := []byte("not really a video, but 40 bytes long!!!")
	r := c.Do(apitest.Request{Method: "POST", Path: uploadURLPath, JSON: map[string]any{"filename": "My Clip.MOV", "content_length": len(video)}})
	if r.Status != 201 {
		t.Fatalf("upload-url: %d %s", r.Status, r.Body)
	}
	var up struct {
		UploadURL, StorageKey, ContentType string
		ExpiresIn                          int `json:"expires_in"`
	}
	r.JSON(t, &up)
	m := r.Map(t)
	up.UploadURL, up.StorageKey, up.ContentType = m["upload_url"].(string), m["storage_key"].(string), m["content_type"].(string)
	if !strings.HasPrefix(up.StorageKey, "video-recognition/") || up.ContentType != "video/quicktime" || up.ExpiresIn != 600 {
		t.Fatalf("upload-url response %s", r.Body)
	}
	put := func(contentType string, body []byte) int {
		u, _ := url.Parse(up.UploadURL)
		srv, _ := url.Parse(c.Server.URL)
		u.Host = srv.Host
		req, _ := http.NewRequest("PUT", u.String(), bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := put("video/mp4", video); s != 403 {
		t.Errorf("PUT with the wrong content type: %d", s)
	}
	if s := put("video/quicktime", append(video, 'x')); s < 400 {
		t.Errorf("PUT with the wrong length: %d", s)
	}
	if s := put("video/quicktime", video); s != 200 {
		t.Fatalf("PUT: %d", s)
	}

	// Submit validation (gaps.md texts).
	exactlyOne := "Provide exactly one of `file` or `storage_key`."
	keyInJSON := exactlyOne + " A `storage_key` is sent in a JSON body (Content-Type: application/json); a multipart form carries only `file`."
	ct, body := multipartFile(t, "a.mp4", video, map[string]string{"storage_key": up.StorageKey})
	keyCT, keyBody := multipartFile(t, "", nil, map[string]string{"storage_key": up.StorageKey})
	for _, tc := range []struct {
		req   apitest.Request
		key   string
		value string
	}{
		{apitest.Request{JSON: map[string]any{}}, "detail", exactlyOne},
		{apitest.Request{Body: body, Header: map[string]string{"Content-Type": ct}}, "detail", exactlyOne}, // key before the file
		{apitest.Request{Body: keyBody, Header: map[string]string{"Content-Type": keyCT}}, "detail", keyInJSON},
		{apitest.Request{JSON: map[string]any{"storage_key": "uploads/x.mp4"}}, "storage_key", ""},
		{apitest.Request{JSON: map[string]any{"storage_key": "video-recognition/someone-else/x.mp4"}}, "storage_key", ""},
	} {
		tc.req.Method, tc.req.Path = "POST", recognitionPath
		r := c.Do(tc.req)
		got := r.Map(t)[tc.key]
		if r.Status != 400 || got == nil || (tc.value != "" && got != tc.value) {
			t.Errorf("submit: %d %s; want 400 with %s", r.Status, r.Body, tc.key)
		}
	}
	ct, body = multipartFile(t, "clip.exe", video, nil)
	if r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}}); r.Status != 400 || r.Map(t)["file"] == nil {
		t.Errorf("bad extension: %d %s", r.Status, r.Body)
	}

	// A valid submit by storage key is accepted; the job belongs to its client.
	r = c.Do(apitest.Request{Method: "POST", Path: recognitionPath, JSON: map[string]any{"storage_key": up.StorageKey}})
	if m := r.Map(t); r.Status != 201 || m["status"] != "queued" || m["track"] != nil || m["segments"] != nil || m["progress"] != nil {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	jobID := r.Map(t)["job_id"].(string)
	_, otherKey, _ := d.Identity.CreateClient(ctx, identity.NewClient{Name: "O", Plan: identity.PlanEnterprise, Scopes: []string{identity.ScopeComplianceCheck}})
	if r := c.Do(apitest.Request{Method: "GET", Path: recognitionPath + jobID + "/", Header: map[string]string{"Authorization": "Bearer " + otherKey}}); r.Status != 404 {
		t.Errorf("another client's job: %d", r.Status)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: recognitionPath + "00000000-0000-4000-8000-000000000000/"}); r.Status != 404 {
		t.Errorf("unknown job: %d", r.Status)
	}
	// Garbage bytes cannot be analyzed: the job ends visibly as failed.
	job := pollJob(t, c, jobID, 60*time.Second)
	if job["status"] != "failed" || job["error_code"] == nil || job["detail"] == nil {
		t.Errorf("garbage video: %v", job)
	}
}

// recognizeCompleted submits the video raw (as file name) for
// recognition and returns the job once it has completed, failing the test
// if it is refused or ends otherwise.
func recognizeCompleted(t *testing.T, c *apitest.Client, name string, raw []byte) map[string]any {
	t.Helper()
	ct, body := multipartFile(t, name, raw, nil)
	r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}})
	if r.Status != 201 {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	job := pollJob(t, c, r.Map(t)["job_id"].(string), 120*time.Second)
	if job["status"] != "completed" {
		t.Fatalf("job %v", job)
	}
	return job
}

func pollJob(t *testing.T, c *apitest.Client, id string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r := c.Do(apitest.Request{Method: "GET", Path: recognitionPath + id + "/"})
		if r.Status != 200 {
			t.Fatalf("poll: %d %s", r.Status, r.Body)
		}
		m := r.Map(t)
		if m["status"] == "completed" || m["status"] == "failed" {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %v after %s", id, m, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestRecognitionDailyQuota(t *testing.T) {
	d, _ := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	_, key, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "Q", Plan: identity.PlanCommercial,
		Scopes: []string{identity.ScopeComplianceCheck}, Quotas: identity.Quotas{RecognitionDailyCap: 2}})
	if err != nil {
		t.Fatal(err)
	}
	c.Token = key
	statuses := make(chan *apitest.Response, 5)
	for range 5 {
		go func() {
			ct, body := multipartFile(t, "clip.mp4", []byte("garbage video bytes"), nil)
			statuses <- c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}})
		}()
	}
	created := 0
	for range 5 {
		r := <-statuses
		switch r.Status {
		case 201:
			created++
		case 429:
			m := r.Map(t)
			if m["scope_code"] != "compliance_check" || m["window"] != "daily" || m["cap"] != float64(2) || m["used"] != float64(2) ||
				m["resets_at"] == nil || m["resets_in"] == nil || r.Header.Get("Retry-After") == "" {
				t.Errorf("429 body %s headers %v", r.Body, r.Header)
			}
		default:
			t.Errorf("status %d %s", r.Status, r.Body)
		}
	}
	if created != 2 {
		t.Errorf("%d submits accepted at a cap of 2", created)
	}
	// Rejected submits leave no uploads behind.
	if objs, err := d.Blob.List(context.Background(), "video-recognition/"); err != nil || len(objs) != 2 {
		t.Errorf("uploads kept: %d, %v", len(objs), err)
	}
}

// TestRecognitionEndToEnd ingests real music, makes a re-encoded video of
// a stretch of one track with noise over it, and recognizes it through the API.
func TestRecognitionEndToEnd(t *testing.T) {
	job := recognizeWesnothClips(t, "")[0]
	track, _ := job["track"].(map[string]any)
	if _, ok := track["speed"]; ok {
		t.Errorf("speed on a clip played as recorded: %v", track)
	}
	if track == nil || track["title"] != "Song 1" || track["internal"] != true || track["cleared"] != true || track["isrc"] != "QZTST2400001" {
		t.Errorf("track %v (segments %v)", track, job["segments"])
	}
}

// recognizeWesnothClips ingests three wesnoth songs as Song 0–2 and, for
// each ffmpeg audio filter ("" for none), submits a 15-s video of Song 1
// from 40 s through the filter under pink noise; it returns the completed
// jobs in order.
func recognizeWesnothClips(t *testing.T, filters ...string) []map[string]any {
	t.Helper()
	requireWesnoth(t)
	d, creds := newTestDeps(t)
	dir := t.TempDir()
	tracks := []string{"battle.ogg", "knolls.ogg", "traveling_minstrels.ogg"}
	var manifest strings.Builder
	for i, f := range tracks {
		fmt.Fprintf(&manifest, `{"kind":"track","name":"Song %d","artist":{"name":"Wesnoth","slug":"wesnoth"},"genre_name":"Orchestral","access_tier":"free","isrc":"QZTST240000%d","audio":%q}`+"\n",
			i, i, filepath.Join(wesnothMusic, f))
	}
	mpath := filepath.Join(dir, "manifest.jsonl")
	os.WriteFile(mpath, []byte(manifest.String()), 0o644)
	rep, err := ingest.Run(context.Background(), ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, FFmpegPath: "ffmpeg"}, mpath)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, rep.Errors)
	}
	c := apitest.New(t, d.LocalHandler())
	c.Token = creds.Partner.Key
	var jobs []map[string]any
	for i, filter := range filters {
		video := filepath.Join(dir, fmt.Sprintf("clip%d.mp4", i))
		audio := "[0:a]"
		if filter != "" {
			audio = "[0:a]" + filter + "[f];[f]"
		}
		cmd := exec.Command("ffmpeg", "-v", "error", "-ss", "40", "-t", "17", "-i", filepath.Join(wesnothMusic, tracks[1]),
			"-f", "lavfi", "-t", "15", "-i", "anoisesrc=color=pink:amplitude=0.05",
			"-f", "lavfi", "-t", "15", "-i", "color=c=black:s=160x120:r=10",
			"-filter_complex", audio+"[1:a]amix=inputs=2:duration=shortest[a]", "-map", "[a]", "-map", "2:v",
			"-c:v", "mpeg4", "-c:a", "aac", "-b:a", "128k", video)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v %s", err, out)
		}
		raw, _ := os.ReadFile(video)
		jobs = append(jobs, recognizeCompleted(t, c, "clip.mp4", raw))
	}
	return jobs
}

// requireWesnoth skips a test that decodes real music where the
// wesnoth-1.16-music package is missing, and fails it under CI, which
// installs the package.
func requireWesnoth(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(wesnothMusic); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("wesnoth music missing: %v", err)
		}
		tb.Skip("needs the wesnoth-1.16-music package")
	}
}
