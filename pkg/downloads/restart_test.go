package downloads_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow"
)

// losesFirstStart drops the first start (the process died between the
// build record's write and its Start) and passes the others on.
type losesFirstStart struct {
	workflow.Starter
	calls atomic.Int64
}

func (l *losesFirstStart) Start(ctx context.Context, m, name string, in any) error {
	if l.calls.Add(1) == 1 {
		return nil
	}
	return l.Starter.Start(ctx, m, name, in)
}

// TestUnstartedZIPBuildIsStartedByAPoll: a build whose execution was
// never started stayed 202 until ZIPBuildDeadline, then failed; now a
// request past workflow.StartGrace starts the same execution again, the
// archive is built once and served. Requests while it runs start nothing
// new (the same execution name).
func TestUnstartedZIPBuildIsStartedByAPoll(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		lost := &losesFirstStart{}
		f := newZIPFixture(t, st, func(f *zipFixture) workflow.Starter { lost.Starter = f.runner; return lost })
		var builds atomic.Int64
		f.gate = make(chan struct{})
		f.runner.Handle(downloads.FnBuildZIP, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			<-f.gate
			builds.Add(1)
			return f.svc.HandleTask(ctx, in)
		})
		req := downloads.Request{Type: "track", Formats: []string{"mp3", "wav"}}
		poll := func() downloads.Link {
			t.Helper()
			l, err := f.svc.Audio(ctx, f.p, f.track.ID, req)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		if l := poll(); !l.Pending {
			t.Fatalf("first request: %+v", l)
		}
		f.clk.Advance(workflow.StartGrace / 2)
		if l := poll(); !l.Pending || lost.calls.Load() != 1 {
			t.Fatalf("within the grace period: %+v, %d starts", l, lost.calls.Load())
		}
		f.clk.Advance(workflow.StartGrace)
		for range 3 {
			if l := poll(); !l.Pending {
				t.Fatalf("past the grace period: %+v", l)
			}
		}
		if n := lost.calls.Load(); n != 2 {
			t.Fatalf("%d starts after three polls past the grace period; want 2", n)
		}
		f.clk.Advance(workflow.StartGrace + time.Second) // while the restarted execution runs
		poll()
		close(f.gate)
		f.wait(t)
		if n := lost.calls.Load(); n != 3 || builds.Load() != 1 {
			t.Fatalf("%d starts, %d builds; want 3 starts of one execution that built once", n, builds.Load())
		}
		if l := poll(); l.Pending || l.URL == "" || l.Format != "zip" {
			t.Fatalf("after the build: %+v", l)
		}
	})
}
