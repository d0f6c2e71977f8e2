package app

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/workflow"
)

// lostFirstStart records every start and loses the first (the process
// died between the build record's write and its Start).
type lostFirstStart struct {
	mu     sync.Mutex
	inputs []json.RawMessage
	names  []string
}

func (l *lostFirstStart) Start(_ context.Context, _, name string, in any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names, l.inputs = append(l.names, name), append(l.inputs, b)
	return nil
}

// TestUnstartedRenderIsStartedByAPoll: a render whose execution was never
// started answered 202 until BuildDeadline and then failed; now a request
// past workflow.StartGrace starts the same execution (name and input)
// again, once per grace period, and that execution builds the render.
func TestUnstartedRenderIsStartedByAPoll(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	starts := &lostFirstStart{}
	clk := clock.NewManual(time.Now())
	svc, err := render.New(render.Config{Store: f.d.Store, Blob: f.d.Blob, Catalog: f.d.CatalogSource(), Videos: f.d.Soundtrack,
		Workflow: starts, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.d.Identity.Authenticate(ctx, f.user)
	if err != nil {
		t.Fatal(err)
	}
	req := render.Request{Params: render.Params{TrackID: f.tracks[0].ID, VideoVolume: 1, TrackVolume: 0.25}}
	poll := func() render.Result {
		t.Helper()
		res, err := svc.Render(ctx, &p, f.videoID, req, "http://x")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := poll(); res.Ready || len(starts.names) != 1 {
		t.Fatalf("first request: %+v, %d starts", res, len(starts.names))
	}
	clk.Advance(workflow.StartGrace / 2)
	poll()
	clk.Advance(workflow.StartGrace)
	for range 3 {
		if res := poll(); res.Ready {
			t.Fatal("ready without a build")
		}
	}
	if len(starts.names) != 2 || starts.names[1] != starts.names[0] || string(starts.inputs[1]) != string(starts.inputs[0]) {
		t.Fatalf("starts %v %s; want the first start once more", starts.names, starts.inputs)
	}
	// The restarted execution runs the task and builds the render.
	if _, err := svc.HandleTask(ctx, starts.inputs[1]); err != nil {
		t.Fatal(err)
	}
	if res := poll(); !res.Ready || res.URL == "" {
		t.Fatalf("after the restarted build: %+v", res)
	}
}
