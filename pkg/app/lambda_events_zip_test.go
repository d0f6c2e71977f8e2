package app

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/app/downloadsapp"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/lambdarun"
)

func init() { otherEvents[downloads.FnBuildZIP] = runBuildZIPEvents }

// capturingStarter starts nothing and keeps the inputs it was given: the
// sample events then drive build-zip themselves, as Step Functions would.
type capturingStarter struct {
	mu     sync.Mutex
	inputs []downloads.BuildInput
}

func (c *capturingStarter) Start(_ context.Context, _, _ string, in any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputs = append(c.inputs, in.(downloads.BuildInput))
	return nil
}

// runBuildZIPEvents feeds build-zip's sample events through its Lambda
// task handler: the task input builds the archive a request started (the
// next request gets its URL), and the Catch path's input ends a build
// failed with the BuildError's reason (the next request answers 500 once).
func runBuildZIPEvents(t *testing.T, dir string) {
	files := eventFiles(t, dir, "task-input.json", "mark-failed.json")
	d, _ := newTestDeps(t)
	ctx := context.Background()
	tr := publishTestCatalog(t, d).Tracks()[0]
	if err := d.Blob.Put(ctx, tr.Audio.WAVKey, strings.NewReader("RIFF fake wav"), -1, "audio/wav"); err != nil {
		t.Fatal(err)
	}
	starter := &capturingStarter{}
	svc := downloadsapp.New(d.Core, starter)
	task, err := downloadsapp.Task(svc)
	if err != nil {
		t.Fatal(err)
	}
	p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise, CanDownload: true, Status: identity.StatusActive}}
	invoke := func(file string, in downloads.BuildInput) {
		t.Helper()
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := lambdarun.NewTaskHandler(task).Invoke(eventContext(), withSample(raw, "BUILD_ID", in.BuildID))
		if err != nil || string(out) != "null" {
			t.Fatalf("%s: %s %v", file, out, err)
		}
	}
	both := downloads.Request{Type: "track", Formats: []string{"mp3", "wav"}}
	if l, err := svc.Audio(ctx, p, tr.ID, both); err != nil || !l.Pending || len(starter.inputs) != 1 {
		t.Fatalf("request: %+v %v", l, err)
	}
	invoke(files["task-input.json"], starter.inputs[0])
	if l, err := svc.Audio(ctx, p, tr.ID, both); err != nil || l.URL == "" {
		t.Fatalf("after the task: %+v %v", l, err)
	}
	stems := downloads.Request{Type: "track", IncludeStems: true}
	if l, err := svc.Audio(ctx, p, tr.ID, stems); err != nil || !l.Pending || len(starter.inputs) != 2 {
		t.Fatalf("second request: %+v %v", l, err)
	}
	invoke(files["mark-failed.json"], starter.inputs[1])
	var e *errs.Error
	if _, err := svc.Audio(ctx, p, tr.ID, stems); !errors.As(err, &e) || e.Status != 500 || !strings.Contains(e.Detail, "Drums.wav") {
		t.Fatalf("after mark-failed: %v", err)
	}
	// A late catch does not fail a build that succeeded.
	invoke(files["mark-failed.json"], starter.inputs[0])
	if l, err := svc.Audio(ctx, p, tr.ID, both); err != nil || l.URL == "" {
		t.Errorf("a late catch changed a built archive: %+v %v", l, err)
	}
}
