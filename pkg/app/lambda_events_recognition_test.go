package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/outside/acrcloud/acrfake"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/search/similarity"
	"musiccatalog/pkg/workflow"
)

func init() {
	lambdaEvents["api-recognition"] = httpEvents{group: httpapi.GroupRecognition, cases: []eventCase{
		{"poll-unknown-job.json", 404, nil},
		{"submit-multipart.json", 201, func(t *testing.T, b map[string]any) {
			if b["status"] != "queued" || b["job_id"] == nil || b["track"] != nil {
				t.Errorf("submitted %v", b)
			}
		}},
		// An empty upload is refused and deleted (api-recognition needs
		// s3:DeleteObject on the uploads: the permission check sees it).
		{"submit-empty-file.json", 400, func(t *testing.T, b map[string]any) {
			if fmt.Sprint(b["file"]) != "[The submitted file is empty.]" {
				t.Errorf("body %v", b)
			}
		}},
		{"submit-neither.json", 400, func(t *testing.T, b map[string]any) {
			if b["detail"] != "Provide exactly one of `file` or `storage_key`." {
				t.Errorf("body %v", b)
			}
		}},
		{"submit-storage-key-outside-prefix.json", 400, func(t *testing.T, b map[string]any) {
			if b["storage_key"] == nil {
				t.Errorf("body %v", b)
			}
		}},
		{"submit-without-key.json", 401, nil},
		{"upload-url.json", 201, func(t *testing.T, b map[string]any) {
			key, _ := b["storage_key"].(string)
			if !strings.HasPrefix(key, recognition.UploadPrefix) || !strings.HasSuffix(key, ".mov") ||
				b["content_type"] != "video/quicktime" || b["expires_in"] != float64(600) || b["upload_url"] == nil {
				t.Errorf("upload url %v", b)
			}
		}},
	}}
	otherEvents[recognition.FnExtract] = runExtractEvents
	otherEvents[recognition.FnMatch] = runMatchEvents
	otherEvents[recognition.FnExternal] = runExternalEvents
	otherEvents[recognition.FnFinish] = runFinishEvents
	otherEvents[recognition.FnPrepare] = runPrepareEvents
}

// noStart is a workflow starter that starts nothing: the task events
// drive the pipeline themselves, one Lambda invocation at a time.
type noStart struct{}

func (noStart) Start(context.Context, string, string, any) error { return nil }

// taskFixture is a recognition service over the devserver's stores with a
// small synthetic catalog, an outside service holding one more song, and
// an uploaded video: 20 s of catalog song 0, then 15 s of the outside song.
type taskFixture struct {
	d         *Deps
	svc       *recognition.Service
	principal identity.Principal
	videoKey  string
	songIDs   map[string]string // catalog title → id
}

const fixtureRate = 22050

func newTaskFixture(t *testing.T) *taskFixture {
	t.Helper()
	d, creds := newTestDeps(t)
	ctx := context.Background()
	dir := t.TempDir()
	var songs []audio.PCM
	var m strings.Builder
	for i := range 3 {
		song, _ := audiotest.Song(fixtureRate, 8, uint64(i+11))
		songs = append(songs, song)
		if i == 2 {
			continue // the outside song
		}
		name := fmt.Sprintf("song%d.wav", i)
		writeWAVFile(t, filepath.Join(dir, name), song)
		fmt.Fprintf(&m, `{"kind":"track","name":"Fixture %d","artist":{"name":"Synth"},"genre_name":"Pop","access_tier":"free","isrc":"QZFIX260000%d","audio":%q}`+"\n", i, i, name)
	}
	mpath := filepath.Join(dir, "catalog.jsonl")
	os.WriteFile(mpath, []byte(m.String()), 0o644)
	if rep, err := ingest.Run(ctx, ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, FFmpegPath: "ffmpeg"}, mpath); err != nil || len(rep.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, rep)
	}
	cat, err := d.Catalog.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := &taskFixture{d: d, songIDs: map[string]string{}}
	for _, tr := range cat.Tracks() {
		f.songIDs[tr.Name] = tr.ID
	}

	fake, err := acrfake.New([]acrfake.Track{{Title: "Outside Song", Artist: "Elsewhere", Label: "Epidemic Sound", ISRC: "QZOUT2600009", Audio: songs[2]}}, "k", "s")
	if err != nil {
		t.Fatal(err)
	}
	outsideSrv := httptest.NewServer(fake)
	t.Cleanup(outsideSrv.Close)
	out, err := acrcloud.New(outsideSrv.URL, "k", "s")
	if err != nil {
		t.Fatal(err)
	}
	f.svc, err = recognition.New(recognition.Config{Store: d.Store, Blob: d.Blob, Catalog: d.Catalog, Workflow: noStart{},
		Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, Outside: out, Vectorizer: similarity.AudioVectorizer{},
		Log: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if f.principal, err = d.Identity.Authenticate(ctx, creds.Partner.Key); err != nil {
		t.Fatal(err)
	}
	video := audiotest.Concat(songs[0].Window(10, 20), songs[2].Window(12, 15))
	f.videoKey = recognition.UploadPrefix + f.principal.Client.ID + "/clip.mp4"
	f.put(t, f.videoKey, decode.WAVBytes(video))
	return f
}

func writeWAVFile(t *testing.T, path string, p audio.PCM) {
	t.Helper()
	if err := os.WriteFile(path, decode.WAVBytes(p), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *taskFixture) put(t *testing.T, key string, data []byte) {
	t.Helper()
	if err := f.d.Blob.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)), "video/mp4"); err != nil {
		t.Fatal(err)
	}
}

// submit creates a queued job for key (nothing runs it).
func (f *taskFixture) submit(t *testing.T, key string) string {
	t.Helper()
	attrs, err := f.d.Blob.Head(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	job, err := f.svc.Submit(context.Background(), &f.principal, recognition.SourceRef{Key: key, ETag: attrs.ETag, Size: attrs.Size})
	if err != nil {
		t.Fatal(err)
	}
	return job.ID
}

func (f *taskFixture) job(t *testing.T, id string) recognition.Job {
	t.Helper()
	j, err := f.svc.Get(context.Background(), f.principal.Client.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// invoke feeds an event file, with the job id filled in, through the
// Lambda handler the function's main starts.
func (f *taskFixture) invoke(t *testing.T, fn, file, jobID string) error {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.d.RecognitionTaskWith(f.svc, fn)
	if err != nil {
		t.Fatal(err)
	}
	out, err := lambdarun.NewTaskHandler(task).Invoke(eventContext(), withSample(raw, "JOB_ID", jobID))
	if err == nil && string(out) != "null" {
		t.Errorf("%s returned %s", fn, out)
	}
	return err
}

// eventFiles lists a function's sample events and fails on any the
// runner does not know.
func eventFiles(t *testing.T, dir string, known ...string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := map[string]string{}
	for _, f := range files {
		name := filepath.Base(f)
		if !slices.Contains(known, name) {
			t.Errorf("%s has no test case", f)
		}
		out[name] = f
	}
	for _, k := range known {
		if out[k] == "" {
			t.Fatalf("%s/%s is missing", dir, k)
		}
	}
	return out
}

func runExtractEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "task-input.json")
	f := newTaskFixture(t)
	id := f.submit(t, f.videoKey)
	for range 2 { // a retried task redoes nothing harmful
		if err := f.invoke(t, recognition.FnExtract, files["task-input.json"], id); err != nil {
			t.Fatalf("extract: %v", err)
		}
	}
	if j := f.job(t, id); j.Status != recognition.StatusProcessing || j.Progress == nil || *j.Progress != recognition.ProgressExtracting {
		t.Errorf("after extract: %+v", j)
	}
	// A video that cannot be decoded fails as the input's fault: the error
	// is named JobError, which the state machine does not retry.
	bad := recognition.UploadPrefix + f.principal.Client.ID + "/garbage.mp4"
	f.put(t, bad, []byte("this is not a video at all, only some text"))
	err := f.invoke(t, recognition.FnExtract, files["task-input.json"], f.submit(t, bad))
	if err == nil || workflow.ErrorName(err) != "JobError" || !strings.HasPrefix(err.Error(), recognition.CodeCorruptMedia+": ") {
		t.Errorf("garbage video: %v (%s)", err, workflow.ErrorName(err))
	}
	// A one-second clip is too short to say anything about, rather than
	// a video without music.
	short := recognition.UploadPrefix + f.principal.Client.ID + "/short.wav"
	f.put(t, short, decode.WAVBytes(audiotest.Tone(22050, 1, 440, 0.3)))
	err = f.invoke(t, recognition.FnExtract, files["task-input.json"], f.submit(t, short))
	if err == nil || workflow.ErrorName(err) != "JobError" || !strings.HasPrefix(err.Error(), recognition.CodeTooShort+": ") {
		t.Errorf("one-second clip: %v (%s)", err, workflow.ErrorName(err))
	}
}

func runMatchEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "task-input.json")
	f := newTaskFixture(t)
	id := f.submit(t, f.videoKey)
	ctx := context.Background()
	if err := f.svc.Extract(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := f.invoke(t, recognition.FnMatch, files["task-input.json"], id); err != nil {
		t.Fatalf("match: %v", err)
	}
	if j := f.job(t, id); j.Progress == nil || *j.Progress != recognition.ProgressMatching {
		t.Errorf("after match: %+v", j)
	}
	// Finishing now (no outside step) names the catalog song only.
	if err := f.svc.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	j := f.job(t, id)
	if j.Track == nil || j.Track.ID == nil || *j.Track.ID != f.songIDs["Fixture 0"] {
		t.Errorf("track %+v, segments %+v", j.Track, j.Segments)
	}
}

func runExternalEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "task-input.json")
	f := newTaskFixture(t)
	id := f.submit(t, f.videoKey)
	ctx := context.Background()
	if err := f.svc.Extract(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Match(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := f.invoke(t, recognition.FnExternal, files["task-input.json"], id); err != nil {
		t.Fatalf("external: %v", err)
	}
	if err := f.svc.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	j := f.job(t, id)
	found := false
	for _, s := range j.Segments {
		if s.Internal != nil && !*s.Internal && s.ExternalLabel != nil && *s.ExternalLabel == "Epidemic Sound" && s.ID == nil && *s.Cleared == false {
			found = true
			// Outside music is not cleared: catalog tracks that sound
			// like it are suggested instead.
			if len(s.Suggestions) == 0 {
				t.Errorf("outside segment without suggestions: %+v", s)
			}
		}
	}
	if !found {
		t.Errorf("no outside segment in %+v", j.Segments)
	}
}

func runFinishEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "task-input.json", "mark-failed.json")
	f := newTaskFixture(t)
	ctx := context.Background()
	id := f.submit(t, f.videoKey)
	for _, step := range []func(context.Context, string) error{f.svc.Extract, f.svc.Match, f.svc.External} {
		if err := step(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.invoke(t, recognition.FnFinish, files["task-input.json"], id); err != nil {
		t.Fatalf("finish: %v", err)
	}
	if j := f.job(t, id); j.Status != recognition.StatusCompleted || len(j.Segments) < 2 || j.Track == nil {
		t.Errorf("after finish: %+v", j)
	}
	// The Catch path: the caught JobError's code and detail reach the job.
	failing := f.submit(t, f.videoKey)
	if err := f.invoke(t, recognition.FnFinish, files["mark-failed.json"], failing); err != nil {
		t.Fatalf("mark failed: %v", err)
	}
	j := f.job(t, failing)
	if j.Status != recognition.StatusFailed || j.ErrorCode != recognition.CodeCorruptMedia || j.Detail != "The file is not a readable video." {
		t.Errorf("after mark-failed: %+v", j)
	}
	// A completed job is not failed by a late catch.
	if err := f.invoke(t, recognition.FnFinish, files["mark-failed.json"], id); err != nil {
		t.Fatal(err)
	}
	if j := f.job(t, id); j.Status != recognition.StatusCompleted {
		t.Errorf("a late catch changed a completed job: %+v", j)
	}
}

// runPrepareEvents feeds an SQS batch of S3 notifications through the
// prepare function's handler: the upload is prepared (and its job later
// reuses the work), S3's test event is skipped, an upload that is not a
// video is left for its job to report, and only the malformed message is
// reported for redelivery.
func runPrepareEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "upload-batch.json")
	f := newTaskFixture(t)
	ctx := context.Background()
	key := "video-recognition/c1/Holiday Vlog(2).mp4" // the event's key, URL-decoded
	raw, _, err := f.d.Blob.Get(ctx, f.videoKey)
	if err != nil {
		t.Fatal(err)
	}
	video, _ := io.ReadAll(raw)
	raw.Close()
	f.put(t, key, video)
	f.put(t, "video-recognition/c1/not-a-video.mp4", []byte("hello"))
	attrs, err := f.d.Blob.Head(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	event, err := os.ReadFile(files["upload-batch.json"])
	if err != nil {
		t.Fatal(err)
	}
	event = withSample(event, "ETAG", strings.Trim(attrs.ETag, `"`))

	prepare, err := f.d.RecognitionPrepareWith(f.svc)
	if err != nil {
		t.Fatal(err)
	}
	handler := lambda.NewHandler(lambdarun.NewS3QueueHandler(prepare, f.d.Log))
	out, err := handler.Invoke(eventContext(), event)
	if err != nil {
		t.Fatal(err)
	}
	var resp lambdarun.SQSBatchResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %s: %v", out, err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "4c6e8a0b-1d3f-4b5c-9e7a-2f4b6d8e0a04" {
		t.Errorf("batch failures %s", out)
	}
	work, err := f.d.Blob.List(ctx, "recognition-work/")
	if err != nil || len(work) != 2 { // audio and analysis of the one video
		t.Fatalf("prepared work: %v %v", work, err)
	}
	// The job of that upload reuses the prepared work instead of redoing it.
	id := f.submit(t, key)
	if err := f.svc.Extract(ctx, id); err != nil {
		t.Fatal(err)
	}
	again, _ := f.d.Blob.List(ctx, "recognition-work/")
	if len(again) != 2 || !again[0].ModTime.Equal(work[0].ModTime) || !again[1].ModTime.Equal(work[1].ModTime) {
		t.Errorf("extract redid prepared work: %v → %v", work, again)
	}
}
