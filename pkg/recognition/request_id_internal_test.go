package recognition

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// failingStarts fails workflow starts while down is set.
type failingStarts struct {
	startLog
	down atomic.Bool
}

func (f *failingStarts) Start(ctx context.Context, machine, name string, input any) error {
	if f.down.Load() {
		return errors.New("states: service unavailable")
	}
	return f.startLog.Start(ctx, machine, name, input)
}

// TestSubmitWithARequestIDRunsOnce: a submit run again under the same
// RequestID (a retry whose first run wrote the job and lost its answer)
// returns the first job, with its source, and takes no second quota unit;
// before, it created a second job and took a second unit. A job of the
// request whose pipeline never started (start_failed, unit given back) is
// submitted again in place with the retry's source and one unit. Another
// request, or another client, gets a job of its own.
func TestSubmitWithARequestIDRunsOnce(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		s := testService(t, Config{Store: st, DefaultDailyCap: 5})
		wf := &failingStarts{}
		s.wf = wf
		p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
		used := func(client string) int64 {
			t.Helper()
			u, err := s.quota.Peek(t.Context(), QuotaScope, client, quota.Daily, 5)
			if err != nil {
				t.Fatal(err)
			}
			return u.Used
		}
		src := func(name string) SourceRef {
			return SourceRef{Key: UploadPrefix + "c1/" + name + "/a.mp4", ETag: "e-" + name, Size: 10, Filename: "a.mp4"}
		}
		ctx := idempotency.WithRequestID(t.Context(), ids.NewUUID())
		first, err := s.Submit(ctx, p, src("one"))
		if err != nil {
			t.Fatal(err)
		}
		if first.ID != idempotency.RequestIDFrom(ctx) {
			t.Errorf("job id %s, want the RequestID", first.ID)
		}
		again, err := s.Submit(ctx, p, src("two"))
		if err != nil || again.ID != first.ID || again.Status != StatusQueued || again.Source.Key != src("one").Key {
			t.Fatalf("run again: %+v %v; want job %s with the first source", again, err, first.ID)
		}
		if n := used("c1"); n != 1 {
			t.Errorf("%d quota units taken; want 1", n)
		}
		// The retry starts the still queued job's execution again (the
		// first run may have died before its Start): the same name and
		// input, which a workflow runs once.
		if starts := wf.all(); len(starts) != 2 || starts[0] != starts[1] || !strings.Contains(starts[0], first.ID) {
			t.Errorf("starts %v; want the job's execution twice", starts)
		}

		// A run whose pipeline did not start answers 503 and gives the
		// unit back; its retry makes the job anew, under the same id.
		ctx = idempotency.WithRequestID(t.Context(), ids.NewUUID())
		wf.down.Store(true)
		if _, err := s.Submit(ctx, p, src("three")); !errs.Is(err, errs.Unavailable) {
			t.Fatalf("submit whose start failed: %v", err)
		}
		if n := used("c1"); n != 1 {
			t.Fatalf("after the failed start %d units; want 1", n)
		}
		wf.down.Store(false)
		redo, err := s.Submit(ctx, p, src("four"))
		if err != nil || redo.ID != idempotency.RequestIDFrom(ctx) || redo.Status != StatusQueued || redo.Source.Key != src("four").Key {
			t.Fatalf("retry of the unstarted job: %+v %v", redo, err)
		}
		if got, err := s.Get(t.Context(), "c1", redo.ID); err != nil || got.Status != StatusQueued || got.ErrorCode != "" || got.Source.Key != src("four").Key {
			t.Fatalf("the job after its retry: %+v %v", got, err)
		}
		if n := used("c1"); n != 2 {
			t.Errorf("%d units; want 2", n)
		}

		// The same RequestID for another client (it cannot be: the id
		// names the principal; a record not the caller's is never given).
		other := &identity.Principal{Client: identity.Client{ID: "c2", Plan: identity.PlanEnterprise}}
		theirs, err := s.Submit(idempotency.WithRequestID(t.Context(), first.ID), other, src("five"))
		if err != nil || theirs.ID == first.ID || theirs.ClientID != "c2" {
			t.Fatalf("another client's submit: %+v %v", theirs, err)
		}
		if n := used("c2"); n != 1 {
			t.Errorf("c2: %d units; want 1", n)
		}
		// Without a RequestID every submit is a new job.
		a, err1 := s.Submit(t.Context(), p, src("six"))
		b, err2 := s.Submit(t.Context(), p, src("six"))
		if err1 != nil || err2 != nil || a.ID == b.ID {
			t.Errorf("two submits without a key: %s %s %v %v", a.ID, b.ID, err1, err2)
		}
	})
}
