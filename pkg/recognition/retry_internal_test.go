package recognition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// countingRecognizer knows no music and counts the (billed) requests.
type countingRecognizer struct{ calls atomic.Int64 }

func (c *countingRecognizer) Identify(context.Context, []byte) (*outside.Match, error) {
	c.calls.Add(1)
	return nil, nil
}

type noStarts struct{}

func (noStarts) Start(context.Context, string, string, any) error { return nil }

type oneCatalog struct{ c *catalog.Catalog }

func (o oneCatalog) Current(context.Context) (*catalog.Catalog, error) { return o.c, nil }

// testService is a Service on cfg's store (and its other settings) with a
// file blob store, an empty catalog and a workflow that starts nothing.
func testService(t *testing.T, cfg Config) *Service {
	t.Helper()
	bs, err := fileblob.New(t.TempDir(), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(catalog.Contents{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Blob, cfg.Catalog, cfg.Workflow = bs, oneCatalog{cat}, noStarts{}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRetriedExternalStepCallsTheOutsideServiceOnce: Step Functions runs
// a task again when its Lambda timed out or its answer was lost after it
// stored its result (and the devserver's Recover restarts the whole
// pipeline). The outside service bills each request, so a run that finds
// the step's result stored must not ask it again, and must keep the
// stored result that Finish reads.
func TestRetriedExternalStepCallsTheOutsideServiceOnce(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		rec := &countingRecognizer{}
		s := testService(t, Config{Store: st, Outside: rec, DefaultDailyCap: 5})
		src := SourceRef{Key: UploadPrefix + "c1/u/clip.mp4", ETag: "e1", Size: 10, Filename: "clip.mp4"}
		// The prepared audio Extract would have stored: 20 s of music.
		if err := s.putWAV(ctx, workDir(src.Key, src.ETag)+audioFile, audiotest.Tone(11025, 20, 440, 0.3)); err != nil {
			t.Fatal(err)
		}
		job, err := s.Submit(ctx, &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}, src)
		if err != nil {
			t.Fatal(err)
		}
		// Match's result: the whole clip is music the catalog did not explain.
		tl, _ := json.Marshal([]fingerprint.Stretch{{StartMs: 0, EndMs: 20_000}})
		if err := s.updateActive(ctx, job.ID, 0, map[string]any{attrTimeline: tl}); err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(TaskInput{JobID: job.ID})
		if _, err := s.HandleTask(ctx, FnExternal, in); err != nil {
			t.Fatal(err)
		}
		first := rec.calls.Load()
		if first == 0 {
			t.Fatal("the first run asked the outside service nothing; the test proves nothing")
		}
		stored, err := st.Get(ctx, store.Jobs, jobKey(job.ID))
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range []string{FnExternal, FnMatch, FnExternal} { // the retries, and a resumed pipeline
			if _, err := s.HandleTask(ctx, fn, in); err != nil {
				t.Fatalf("%s again: %v", fn, err)
			}
		}
		if n := rec.calls.Load(); n != first {
			t.Errorf("retried External sent %d more billed requests (first run %d)", n-first, first)
		}
		after, err := st.Get(ctx, store.Jobs, jobKey(job.ID))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{attrExternal, attrTimeline} {
			if string(after.Bytes(a)) != string(stored.Bytes(a)) {
				t.Errorf("stored %s changed: %s -> %s", a, stored.Bytes(a), after.Bytes(a))
			}
		}
		// The pipeline still completes from the stored work.
		if _, err := s.HandleTask(ctx, FnFinish, in); err != nil {
			t.Fatal(err)
		}
		if r, err := s.loadJob(ctx, job.ID); err != nil || r.Status != StatusCompleted {
			t.Fatalf("after Finish: %+v %v", r, err)
		}
	})
}

// crashAfterJobWrite is a store whose process "dies" at any write to the
// Quotas table on its own: the write fails and nothing after it runs.
type crashAfterJobWrite struct {
	store.Store
	crashed atomic.Bool
}

func (c *crashAfterJobWrite) Update(ctx context.Context, t store.Table, k store.Key, u store.Update, cond store.Condition) (store.Item, error) {
	if t == store.Quotas {
		c.crashed.Store(true)
		return store.Item{}, errors.New("crash")
	}
	return c.Store.Update(ctx, t, k, u, cond)
}

// TestFailingAJobGivesItsUnitBackInTheSameWrite: the unit of a job that
// fails through our fault comes back with the write that ends the job,
// so a crash right after that write cannot keep it taken (before, the
// give-back was a second write), and repeated Fail calls (a retried
// Catch task) give it back once.
func TestFailingAJobGivesItsUnitBackInTheSameWrite(t *testing.T) {
	twintest.Run(t, func(t *testing.T, inner store.Store) {
		ctx := t.Context()
		st := &crashAfterJobWrite{Store: inner}
		clk := clock.NewManual(time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC))
		s := testService(t, Config{Store: st, Clock: clk, DefaultDailyCap: 5})
		p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
		used := func() int64 {
			u, err := s.quota.Peek(ctx, QuotaScope, "c1", quota.Daily, 5)
			if err != nil {
				t.Fatal(err)
			}
			return u.Used
		}
		var jobs []Job
		for i := range 2 {
			job, err := s.Submit(ctx, p, SourceRef{Key: UploadPrefix + "c1/u/clip" + string(rune('a'+i)) + ".mp4", ETag: "e", Size: 10})
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job)
		}
		if n := used(); n != 2 {
			t.Fatalf("used %d after two submits", n)
		}
		// The Catch path, run twice (a retried task).
		in, _ := json.Marshal(TaskInput{JobID: jobs[0].ID, Failed: true, Error: &CaughtError{Error: "States.TaskFailed"}})
		for range 2 {
			_, _ = s.HandleTask(ctx, FnFinish, in) // the crash, if any, is the process dying here
		}
		if r, err := s.loadJob(ctx, jobs[0].ID); err != nil || r.Status != StatusFailed {
			t.Fatalf("job after Fail: %+v %v", r, err)
		}
		if n := used(); n != 1 || st.crashed.Load() {
			t.Errorf("after failing one job: used %d (crash between the writes: %v), want 1", n, st.crashed.Load())
		}
		// A job that stopped progressing fails when polled, the same way.
		clk.Advance(s.staleAfter + time.Minute)
		for range 2 {
			if j, err := s.Get(ctx, "c1", jobs[1].ID); err != nil || j.Status != StatusFailed {
				t.Fatalf("stale job: %+v %v", j, err)
			}
		}
		if n := used(); n != 0 || st.crashed.Load() {
			t.Errorf("after failing both: used %d (crash between the writes: %v), want 0", n, st.crashed.Load())
		}
	})
}

// TestConcurrentSubmitsTakeExactlyTheCap: submits racing for the last
// units of the daily cap on one counter; exactly cap of them make jobs,
// every other one is told the quota is used up (never another error),
// and the counter ends at the cap.
func TestConcurrentSubmitsTakeExactlyTheCap(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		const capacity, callers = 8, 24
		s := testService(t, Config{Store: st, DefaultDailyCap: capacity})
		p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
		var made, refused atomic.Int64
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.Submit(ctx, p, SourceRef{Key: fmt.Sprintf("%sc1/u/%d.mp4", UploadPrefix, i), ETag: "e", Size: 10})
				switch {
				case err == nil:
					made.Add(1)
				case errors.Is(err, quota.ErrExceeded):
					refused.Add(1)
				default:
					t.Errorf("submit %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		u, err := s.quota.Peek(ctx, QuotaScope, "c1", quota.Daily, capacity)
		if err != nil {
			t.Fatal(err)
		}
		if made.Load() != capacity || refused.Load() != callers-capacity || u.Used != capacity {
			t.Errorf("made %d, refused %d, counter %d; want %d, %d, %d", made.Load(), refused.Load(), u.Used, capacity, callers-capacity, capacity)
		}
	})
}

// TestContendedSubmitIsRetried: a submit whose transaction kept colliding
// with others on the client's counter wrote nothing; it tries again
// instead of answering 500, and takes one unit.
func TestContendedSubmitIsRetried(t *testing.T) {
	st := &twintest.Contended{Store: twintest.Bolt(t)}
	s := testService(t, Config{Store: st, DefaultDailyCap: 5})
	st.N.Store(2)
	p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
	if _, err := s.Submit(t.Context(), p, SourceRef{Key: UploadPrefix + "c1/u/a.mp4", ETag: "e", Size: 10}); err != nil {
		t.Fatalf("submit after two contended attempts: %v", err)
	}
	if u, err := s.quota.Peek(t.Context(), QuotaScope, "c1", quota.Daily, 5); err != nil || u.Used != 1 {
		t.Errorf("counter %d %v; want 1", u.Used, err)
	}
}
