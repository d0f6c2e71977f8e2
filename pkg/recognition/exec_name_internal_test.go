package recognition

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow"
)

// namedStarts starts executions as Step Functions (Standard) does: a name
// once used never starts again, and Start of it answers success (the
// adapters treat ExecutionAlreadyExists as already started). With lost
// set, a start creates its execution and then answers an error (a client
// timeout after the creation).
type namedStarts struct {
	mu    sync.Mutex
	names map[string]bool
	runs  []string    // the executions created, by name
	lost  atomic.Bool // starts create their execution, then fail
	down  atomic.Bool // starts fail and create nothing
	onErr func()      // called by a start that fails while down
}

func (n *namedStarts) Start(ctx context.Context, machine, name string, input any) error {
	err := n.Launch(ctx, machine, name, input)
	if errors.Is(err, workflow.ErrAlreadyStarted) {
		return nil
	}
	return err
}

func (n *namedStarts) Launch(_ context.Context, _, name string, _ any) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.down.Load() {
		if n.onErr != nil {
			n.onErr()
		}
		return errors.New("states: service unavailable")
	}
	if n.names[name] {
		return workflow.ErrAlreadyStarted
	}
	if n.names == nil {
		n.names = map[string]bool{}
	}
	n.names[name] = true
	n.runs = append(n.runs, name)
	if n.lost.Load() {
		return errors.New("states: timeout")
	}
	return nil
}

func (n *namedStarts) executions() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.runs...)
}

// TestRewrittenJobGetsAnExecutionOfItsOwn: a submit whose Start created
// the execution but answered an error fails the job (start_failed); its
// retry writes the job anew and must start a new execution. Before, it
// reused the job id as the name: the start "succeeded" with nothing run
// and the job stayed queued.
func TestRewrittenJobGetsAnExecutionOfItsOwn(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		s, wf, p, src, ctx := keyedSubmits(t, st)
		for i := range 3 { // fail twice, then succeed: three writings, three names
			wf.lost.Store(i < 2)
			job, err := s.Submit(ctx, p, src)
			if i < 2 {
				if !errs.Is(err, errs.Unavailable) {
					t.Fatalf("run %d: %v; want unavailable", i, err)
				}
				continue
			}
			if err != nil || job.Status != StatusQueued {
				t.Fatalf("retry: %+v %v", job, err)
			}
		}
		runs := wf.executions()
		if len(runs) != 3 || runs[0] == runs[1] || runs[1] == runs[2] || runs[0] == runs[2] {
			t.Fatalf("executions %v; want three of distinct names", runs)
		}
		if runs[0] != idempotency.RequestIDFrom(ctx) {
			t.Errorf("first execution %s; want the job id", runs[0])
		}
	})
}

// failingJobWrites fails every Jobs transaction while down is set.
type failingJobWrites struct {
	store.Store
	down atomic.Bool
}

func (f *failingJobWrites) Transact(ctx context.Context, ops []store.TxOp) error {
	if f.down.Load() {
		return errors.New("store: unavailable")
	}
	return f.Store.Transact(ctx, ops)
}

// TestStartAndFailBothFailingKeepsTheJobUsable: when the start fails and
// so does failing the job, the job stays queued with its unit and its
// source: Submit must answer an internal error (the handler keeps the
// upload then), not unavailable (which deletes it, leaving the job's
// file gone for the retry). The retry gets that job and starts it. The
// job here was written anew (its first run's start created an execution
// and the job was failed): the polls' restart, like the retry, starts the
// rewritten job's own execution, not the first one's name.
func TestStartAndFailBothFailingKeepsTheJobUsable(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		clk := clock.NewManual(time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC))
		fst := &failingJobWrites{Store: st}
		s := testService(t, Config{Store: fst, Clock: clk, DefaultDailyCap: 5})
		wf := &namedStarts{}
		s.wf = wf
		p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
		src := SourceRef{Key: UploadPrefix + "c1/x/a.mp4", ETag: "e", Size: 10, Filename: "a.mp4"}
		ctx := idempotency.WithRequestID(t.Context(), ids.NewUUID())
		wf.lost.Store(true)
		if _, err := s.Submit(ctx, p, SourceRef{Key: UploadPrefix + "c1/w/a.mp4", ETag: "d", Size: 10}); !errs.Is(err, errs.Unavailable) {
			t.Fatalf("first run: %v; want unavailable", err)
		}
		wf.lost.Store(false)
		wf.down.Store(true)
		wf.onErr = func() { fst.down.Store(true) }
		_, err := s.Submit(ctx, p, src)
		if !errs.Is(err, errs.Internal) || errs.Is(err, errs.Unavailable) {
			t.Fatalf("start and fail both failed: %v; want an internal error", err)
		}
		fst.down.Store(false)
		wf.down.Store(false)
		wf.onErr = nil
		// A poll past the grace period starts the rewritten job.
		clk.Advance(2 * workflow.StartGrace)
		id := idempotency.RequestIDFrom(ctx)
		if j, err := s.Get(t.Context(), "c1", id); err != nil || j.Status != StatusQueued || j.Source.Key != src.Key {
			t.Fatalf("poll: %+v %v", j, err)
		}
		if runs := wf.executions(); len(runs) != 2 || runs[1] != execName(id, 2) {
			t.Fatalf("executions %v; want the first run's and %s", runs, execName(id, 2))
		}
		job, err := s.Submit(ctx, p, SourceRef{Key: UploadPrefix + "c1/y/b.mp4", ETag: "f", Size: 10, Filename: "b.mp4"})
		if err != nil || job.Status != StatusQueued || job.Source.Key != src.Key {
			t.Fatalf("retry: %+v %v; want the queued job with its source", job, err)
		}
	})
}

// TestEarlierExecutionLeavesTheRewrittenJobAlone: the first run's Start
// created its execution and answered an error; the job was failed
// (start_failed) and a retry wrote it anew, with an execution of its own.
// The first execution is still running: its tasks, including its failure
// path, must leave the rewritten job alone (before, they worked on it as
// on their own: a MarkFailed about the first run's deleted upload failed
// the retry's job). An input without a generation (an execution started
// before generations were passed) still works on the job.
func TestEarlierExecutionLeavesTheRewrittenJobAlone(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		s, wf, p, src, ctx := keyedSubmits(t, st)
		wf.lost.Store(true)
		if _, err := s.Submit(ctx, p, src); !errs.Is(err, errs.Unavailable) {
			t.Fatalf("first run: %v; want unavailable", err)
		}
		wf.lost.Store(false)
		job, err := s.Submit(ctx, p, src)
		if err != nil || job.Status != StatusQueued {
			t.Fatalf("retry: %+v %v", job, err)
		}
		task := func(fn string, in TaskInput) {
			t.Helper()
			raw, _ := json.Marshal(in)
			if _, err := s.HandleTask(t.Context(), fn, raw); err != nil {
				t.Fatalf("%s %+v: %v", fn, in, err)
			}
		}
		// The first execution fails its source (deleted with the refused
		// upload) and its catch path ends the job.
		cause, _ := json.Marshal(map[string]string{"errorMessage": CodeSourceMissing + ": gone"})
		task(FnFinish, TaskInput{JobID: job.ID, Generation: 1, Failed: true, Error: &CaughtError{Error: "JobError", Cause: string(cause)}})
		task(FnFinish, TaskInput{JobID: job.ID, Generation: 1})
		r, err := s.loadJob(t.Context(), job.ID)
		if err != nil || r.Status != StatusQueued || r.Progress != nil || r.generation != 2 {
			t.Fatalf("after the first execution's tasks: %+v %v; want the job queued, untouched", r, err)
		}
		// The rewritten job's own execution works on it.
		if ok, err := s.begin(t.Context(), jobRef{id: job.ID, gen: 2}, ProgressExtracting); !ok || err != nil {
			t.Fatalf("the job's own generation: %v %v", ok, err)
		}
		if ok, err := s.begin(t.Context(), jobRef{id: job.ID}, ProgressMatching); !ok || err != nil {
			t.Fatalf("no generation: %v %v", ok, err)
		}
	})
}

// keyedSubmits is a service on st whose executions are namedStarts, an
// enterprise client's principal, an upload and a context carrying one
// request id (an Idempotency-Key's retries).
func keyedSubmits(t *testing.T, st store.Store) (*Service, *namedStarts, *identity.Principal, SourceRef, context.Context) {
	s := testService(t, Config{Store: st, DefaultDailyCap: 5})
	wf := &namedStarts{}
	s.wf = wf
	p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}
	src := SourceRef{Key: UploadPrefix + "c1/x/a.mp4", ETag: "e", Size: 10, Filename: "a.mp4"}
	return s, wf, p, src, idempotency.WithRequestID(t.Context(), ids.NewUUID())
}
