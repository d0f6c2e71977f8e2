package app

import (
	"context"
	"encoding/json"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"musiccatalog/pkg/app/mailapp"
	"musiccatalog/pkg/app/renderapp"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/mail"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/store"
)

func init() {
	sampleValues["RENDER_KEY"] = "6a1f0c2e9b8d7a6f5e4d3c2b1a0f9e8d"
	sampleValues["RENDER_BUILD_ID"] = "2b7e4c1d-9a3f-4e8b-8c6d-5f4a3b2c1d0e"
	otherEvents[render.FnBuild] = runBuildRenderEvents
	otherEvents[mailapp.FnMailer] = runMailerEvents
}

// The permissions of the queue and of SES, named as in template.yaml
// (symbolicResource).
var (
	mailQueueSend = access{"queue:mail", "sqs:SendMessage"}
	sesSend       = access{"ses:sender", "ses:SendEmail"}
)

// recordingQueue records sqs:SendMessage and keeps the bodies.
type recordingQueue struct{ bodies [][]byte }

func (q *recordingQueue) Send(ctx context.Context, body []byte) error {
	record(ctx, mailQueueSend)
	q.bodies = append(q.bodies, body)
	return nil
}

// recordingSender records ses:SendEmail and counts the messages.
type recordingSender struct{ sent atomic.Int32 }

func (s *recordingSender) Send(ctx context.Context, m mail.Message) error {
	record(ctx, sesSend)
	if _, err := m.MIME("Music Catalog <no-reply@example.com>", time.Now()); err != nil {
		return err
	}
	s.sent.Add(1)
	return nil
}

// runBuildRenderEvents feeds the task input and the catch path through
// build-render's Lambda handler: a render of an uploaded video is built
// (an MP4 stored, the record built, its email queued once even when the
// task runs again) and a caught BuildError ends a build failed.
func runBuildRenderEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "task-input.json", "mark-failed.json")
	f := newRenderFixture(t)
	ctx := context.Background()
	q := &recordingQueue{}
	svc, err := render.New(render.Config{Store: f.d.Store, Blob: f.d.Blob, Catalog: f.d.CatalogSource(), Videos: f.d.Soundtrack,
		Workflow: noStart{}, Mail: q, Log: f.d.Log})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.d.Identity.Authenticate(ctx, f.user)
	if err != nil {
		t.Fatal(err)
	}
	task, err := renderapp.Task(svc)
	if err != nil {
		t.Fatal(err)
	}
	handler := lambdarun.NewTaskHandler(task)
	invoke := func(file string, params render.Params) (store.Item, error) {
		res, err := svc.Render(ctx, &p, f.videoID, render.Request{Params: params, SendEmail: true}, "https://api.example.com")
		if err != nil || res.Ready || !res.SendEmail {
			t.Fatalf("render request: %+v %v", res, err)
		}
		key := render.Key(f.videoID, params)
		rk := store.Key{PK: "RENDER#" + key, SK: "BUILD"}
		it, err := f.d.Store.Get(ctx, store.Jobs, rk)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		raw = withSample(withSample(raw, "RENDER_KEY", key), "RENDER_BUILD_ID", it.Str("build_id"))
		for range 2 { // a retry runs the task again
			if out, err := handler.Invoke(eventContext(), raw); err != nil || string(out) != "null" {
				return store.Item{}, err
			}
		}
		return f.d.Store.Get(ctx, store.Jobs, rk)
	}
	it, err := invoke(files["task-input.json"], render.Params{TrackID: f.tracks[0].ID, VideoVolume: 1, TrackVolume: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	if it.Str("status") != render.StatusBuilt || len(q.bodies) != 1 {
		t.Fatalf("after the task: %v, %d mails queued", it.Attrs, len(q.bodies))
	}
	var m mail.Message
	if err := json.Unmarshal(q.bodies[0], &m); err != nil || m.To != "ana@example.com" || m.Validate() != nil {
		t.Errorf("queued mail %s: %v", q.bodies[0], err)
	}
	if _, err := f.d.Blob.Head(ctx, it.Str("output_key")); err != nil {
		t.Errorf("render output: %v", err)
	}
	it, err = invoke(files["mark-failed.json"], render.Params{TrackID: f.tracks[0].ID, VideoVolume: 1, TrackVolume: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if it.Str("status") != render.StatusFailed || it.Str("error_code") != render.CodeCorrupt || it.Str("reason") != "The uploaded video cannot be read." {
		t.Errorf("after mark-failed: %v", it.Attrs)
	}
}

// runMailerEvents: a batch holding one message twice (a redelivery) and
// a malformed one sends one email and asks for no redelivery.
func runMailerEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "render-ready-batch.json")
	d, _ := newTestDeps(t)
	sender := &recordingSender{}
	h := lambda.NewHandler(mailapp.Handler(&mail.Mailer{Store: d.Store, Sender: sender, Log: d.Log}, d.Log))
	raw, err := os.ReadFile(files["render-ready-batch.json"])
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the whole batch delivered again
		out, err := h.Invoke(eventContext(), raw)
		if err != nil {
			t.Fatal(err)
		}
		var resp lambdarun.SQSBatchResponse
		if err := json.Unmarshal(out, &resp); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Errorf("batch response %s", out)
		}
	}
	if n := sender.sent.Load(); n != 1 {
		t.Errorf("%d emails sent; want 1", n)
	}
}
