package lambdarun_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/workflow"
)

type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func TestTaskHandlerKeepsErrorNames(t *testing.T) {
	h := lambdarun.NewTaskHandler(func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		var v struct{ Mode string }
		json.Unmarshal(in, &v)
		switch v.Mode {
		case "transient":
			return nil, workflow.Transient(errors.New("throttled"))
		case "input":
			return nil, &inputError{"bad input"}
		case "echo":
			return in, nil
		}
		return nil, nil
	})
	out, err := h.Invoke(context.Background(), []byte(`{"Mode":"echo","job_id":"j"}`))
	if err != nil || string(out) != `{"Mode":"echo","job_id":"j"}` {
		t.Errorf("echo: %s %v", out, err)
	}
	if out, err := h.Invoke(context.Background(), []byte(`{}`)); err != nil || string(out) != "null" {
		t.Errorf("no result: %s %v", out, err)
	}
	for mode, name := range map[string]string{"transient": "TransientError", "input": "inputError"} {
		_, err := h.Invoke(context.Background(), []byte(`{"Mode":"`+mode+`"}`))
		if err == nil || workflow.ErrorName(err) != name {
			t.Errorf("%s: error %v named %q, want %q", mode, err, workflow.ErrorName(err), name)
		}
	}
}

func s3Body(t *testing.T, eventName, key, etag string) string {
	t.Helper()
	b, err := json.Marshal(events.S3Event{Records: []events.S3EventRecord{{
		EventSource: "aws:s3", EventName: eventName,
		S3: events.S3Entity{Bucket: events.S3Bucket{Name: "media"}, Object: events.S3Object{Key: key, ETag: etag, Size: 42}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestS3QueueHandler(t *testing.T) {
	var seen []lambdarun.S3Object
	h := lambdarun.NewS3QueueHandler(func(ctx context.Context, o lambdarun.S3Object) error {
		seen = append(seen, o)
		if o.Key == "video-recognition/fails.mp4" {
			return errors.New("storage unavailable")
		}
		return nil
	}, nil)
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "ok", Body: s3Body(t, "ObjectCreated:Put", "video-recognition/c1/My+Clip%282%29.mp4", `"abc"`)},
		{MessageId: "test-event", Body: `{"Service":"Amazon S3","Event":"s3:TestEvent","Time":"2026-01-01T00:00:00.000Z","Bucket":"media","RequestId":"r","HostId":"h"}`},
		{MessageId: "removed", Body: s3Body(t, "ObjectRemoved:Delete", "video-recognition/gone.mp4", "")},
		{MessageId: "fails", Body: s3Body(t, "ObjectCreated:CompleteMultipartUpload", "video-recognition/fails.mp4", "e-2")},
		{MessageId: "garbage", Body: "not json"},
		{MessageId: "other-json", Body: `{"hello":"world"}`},
	}}
	resp, err := h(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	if !slices.Equal(failed, []string{"fails", "garbage", "other-json"}) {
		t.Errorf("failed messages %v", failed)
	}
	want := []lambdarun.S3Object{
		{Bucket: "media", Key: "video-recognition/c1/My Clip(2).mp4", ETag: "abc", Size: 42},
		{Bucket: "media", Key: "video-recognition/fails.mp4", ETag: "e-2", Size: 42},
	}
	if !slices.Equal(seen, want) {
		t.Errorf("objects %+v, want %+v", seen, want)
	}
	// An all-good batch answers an empty list, not null: Lambda reads a
	// null batchItemFailures as success too, but the shape stays explicit.
	resp, _ = h(context.Background(), events.SQSEvent{Records: ev.Records[:1]})
	if b, _ := json.Marshal(resp); string(b) != `{"batchItemFailures":[]}` {
		t.Errorf("all good: %s", b)
	}
}
