package workflow_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow"
)

type countStarts struct{ n atomic.Int64 }

func (c *countStarts) Start(context.Context, string, string, any) error { c.n.Add(1); return nil }

// TestConcurrentPollsRestartOnce: polls racing past the grace period
// start the execution once; a record that moved on (While fails) or one
// younger than the grace period is not restarted.
func TestConcurrentPollsRestartOnce(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		written := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		key := store.Key{PK: "BUILD#1", SK: "BUILD"}
		if err := st.Put(ctx, store.Jobs, store.Item{Key: key, Attrs: map[string]any{"status": "building"}}, nil); err != nil {
			t.Fatal(err)
		}
		x := workflow.Stalled{Table: store.Jobs, Key: key, While: store.Equals("status", "building"), Since: written,
			Machine: "m", Name: "exec-1", Input: map[string]string{"id": "1"}}
		wf := &countStarts{}
		if ok, err := workflow.Restart(ctx, st, wf, written.Add(workflow.StartGrace), x); ok || err != nil || wf.n.Load() != 0 {
			t.Fatalf("within the grace period: %v %v, %d starts", ok, err, wf.n.Load())
		}
		now := written.Add(workflow.StartGrace + time.Second)
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				if _, err := workflow.Restart(ctx, st, wf, now, x); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := wf.n.Load(); n != 1 {
			t.Fatalf("16 concurrent polls started %d times; want 1", n)
		}
		x.While = store.Equals("status", "built")
		if ok, err := workflow.Restart(ctx, st, wf, now.Add(2*workflow.StartGrace), x); ok || err != nil || wf.n.Load() != 1 {
			t.Errorf("a record that moved on: %v %v, %d starts", ok, err, wf.n.Load())
		}
	})
}
