package recognition

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow"
)

// startLog records workflow starts and starts nothing.
type startLog struct {
	mu     sync.Mutex
	starts []string // machine/name input
}

func (l *startLog) Start(_ context.Context, machine, name string, input any) error {
	b, err := json.Marshal(input)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.starts = append(l.starts, machine+"/"+name+" "+string(b))
	return nil
}

func (l *startLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.starts...)
}

// TestUnstartedJobIsStartedAgainWhenPolled: a process that dies between
// Submit's write and its Start leaves the job queued; before, it stayed
// "queued" until StaleAfter and then failed. A poll past
// workflow.StartGrace starts the same execution again (same name and
// input, so a pipeline that did begin is not run twice), once per grace
// period however many polls come, and the quota unit stays taken once.
// A job whose pipeline began is never restarted.
func TestUnstartedJobIsStartedAgainWhenPolled(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		clk := clock.NewManual(time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC))
		s := testService(t, Config{Store: st, Clock: clk, DefaultDailyCap: 5})
		wf := &startLog{}
		s.wf = wf
		p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
		job, err := s.Submit(ctx, p, SourceRef{Key: UploadPrefix + "c1/u/a.mp4", ETag: "e", Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		first := wf.all()
		if len(first) != 1 {
			t.Fatalf("submit started %v", first)
		}
		// The first start is lost (the crash). Polls within the grace
		// period leave the job alone.
		poll := func() Job {
			t.Helper()
			j, err := s.Get(ctx, "c1", job.ID)
			if err != nil {
				t.Fatal(err)
			}
			return j
		}
		clk.Advance(workflow.StartGrace / 2)
		if j := poll(); j.Status != StatusQueued || len(wf.all()) != 1 {
			t.Fatalf("within the grace period: %s, starts %v", j.Status, wf.all())
		}
		clk.Advance(workflow.StartGrace)
		for range 3 {
			if j := poll(); j.Status != StatusQueued {
				t.Fatalf("after the grace period: %s", j.Status)
			}
		}
		starts := wf.all()
		if len(starts) != 2 || starts[1] != first[0] {
			t.Fatalf("starts after three polls past the grace period: %v; want the first start once more", starts)
		}
		clk.Advance(workflow.StartGrace + time.Second)
		poll()
		if n := len(wf.all()); n != 3 {
			t.Errorf("a poll one more grace period later: %d starts, want 3", n)
		}
		if u, err := s.quota.Peek(ctx, QuotaScope, "c1", quota.Daily, 5); err != nil || u.Used != 1 {
			t.Errorf("quota used %d %v; want 1", u.Used, err)
		}
		// Once the pipeline runs (its first task recorded progress), polls
		// start nothing.
		if ok, err := s.begin(ctx, jobRef{id: job.ID}, ProgressExtracting); !ok || err != nil {
			t.Fatal(ok, err)
		}
		clk.Advance(2 * workflow.StartGrace)
		poll()
		if n := len(wf.all()); n != 3 {
			t.Errorf("a running job was started again: %d starts", n)
		}
	})
}
