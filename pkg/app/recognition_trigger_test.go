package app

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/httpapi/apitest"
)

// TestLocalUploadTriggerPreparesUploads: on the devserver, a PUT through
// the upload URL prepares the video before it is submitted (as S3 → SQS →
// recognition-prepare does on AWS), and the submitted job completes on
// that work.
func TestLocalUploadTriggerPreparesUploads(t *testing.T) {
	d, _, c := partnerClient(t)
	ctx := context.Background()

	song, _ := audiotest.Song(22050, 6, 5)
	dir := t.TempDir()
	writeWAVFile(t, filepath.Join(dir, "song.wav"), song)
	manifest := `{"kind":"track","name":"Trigger Song","artist":{"name":"Synth"},"genre_name":"Pop","access_tier":"free","audio":"song.wav"}` + "\n"
	os.WriteFile(filepath.Join(dir, "catalog.jsonl"), []byte(manifest), 0o644)
	if rep, err := ingest.Run(ctx, ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, FFmpegPath: "ffmpeg"}, filepath.Join(dir, "catalog.jsonl")); err != nil || len(rep.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, rep)
	}
	var video bytes.Buffer
	if err := decode.WriteWAV(&video, song.Window(8, 20)); err != nil {
		t.Fatal(err)
	}
	r := c.Do(apitest.Request{Method: "POST", Path: uploadURLPath, JSON: map[string]any{"filename": "clip.mp4", "content_length": video.Len()}})
	if r.Status != 201 {
		t.Fatalf("upload-url: %d %s", r.Status, r.Body)
	}
	m := r.Map(t)
	u, _ := url.Parse(m["upload_url"].(string))
	srv, _ := url.Parse(c.Server.URL)
	u.Host = srv.Host
	req, _ := http.NewRequest("PUT", u.String(), bytes.NewReader(video.Bytes()))
	req.Header.Set("Content-Type", "video/mp4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("PUT: %d", resp.StatusCode)
	}
	deadline := time.Now().Add(60 * time.Second)
	var work []blob.Attrs
	for {
		work, err = d.Blob.List(ctx, "recognition-work/")
		if err != nil {
			t.Fatal(err)
		}
		if len(work) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upload was not prepared: %v", work)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r = c.Do(apitest.Request{Method: "POST", Path: recognitionPath, JSON: map[string]any{"storage_key": m["storage_key"]}})
	if r.Status != 201 {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	job := pollJob(t, c, r.Map(t)["job_id"].(string), 60*time.Second)
	if track, _ := job["track"].(map[string]any); job["status"] != "completed" || track == nil || track["title"] != "Trigger Song" {
		t.Errorf("job %v", job)
	}
	// The job reused the prepared work instead of writing it again.
	if again, _ := d.Blob.List(ctx, "recognition-work/"); len(again) != 2 ||
		!again[0].ModTime.Equal(work[0].ModTime) || !again[1].ModTime.Equal(work[1].ModTime) {
		t.Errorf("work %v → %v", work, again)
	}
}
