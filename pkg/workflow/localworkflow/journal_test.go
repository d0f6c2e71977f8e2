package localworkflow_test

import (
	"context"
	"testing"
	"time"

	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow/localworkflow"
)

// blockingA makes task A of every execution after the first n wait for
// the runner to close (a process stopped or crashed mid-execution).
func blockingA(n int, started chan<- struct{}) *recorder {
	return &recorder{fail: map[string]func(context.Context, int) error{
		"fn-a": func(ctx context.Context, call int) error {
			if call < n {
				return nil
			}
			started <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		},
	}}
}

func waitIdle(t *testing.T, r *localworkflow.Runner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestJournalResumesWhatTheLastProcessLeft: an execution running when its
// runner closed (the devserver stopped or crashed) is started again by
// Resume in the next runner on the same journal, with its name and input,
// and runs to its end; a finished execution is not; after it the journal
// is empty.
func TestJournalResumesWhatTheLastProcessLeft(t *testing.T) {
	for _, tw := range twintest.Twins() {
		t.Run(tw.Name, func(t *testing.T) {
			ctx := context.Background()
			j := localworkflow.NewJournal(tw.Open(t))
			started := make(chan struct{}, 1)
			first := newRunner(t, blockingA(1, started), localworkflow.WithJournal(j))
			if e := run(t, first, "done-1"); e.Status != localworkflow.Succeeded {
				t.Fatalf("done-1: %s", e.Status)
			}
			if err := first.Start(ctx, "p", "left-1", map[string]any{"id": "left-1"}); err != nil {
				t.Fatal(err)
			}
			<-started
			first.Close()
			if e, _ := first.Get("p", "left-1"); e.Status != localworkflow.Aborted {
				t.Fatalf("left-1 after Close: %s", e.Status)
			}

			rec := &recorder{}
			second := newRunner(t, rec, localworkflow.WithJournal(j))
			n, err := second.Resume(ctx)
			if err != nil || n != 1 {
				t.Fatalf("Resume = %d, %v; want 1", n, err)
			}
			waitIdle(t, second)
			if e, ok := second.Get("p", "left-1"); !ok || e.Status != localworkflow.Succeeded {
				t.Fatalf("resumed left-1: %+v", e)
			}
			if _, ok := second.Get("p", "done-1"); ok || len(rec.input["fn-a"]) != 1 || string(rec.input["fn-a"][0]) != `{"id":"left-1"}` {
				t.Errorf("the second runner ran %v; want left-1 only, with its input", rec.input["fn-a"])
			}
			third := newRunner(t, &recorder{}, localworkflow.WithJournal(j))
			if n, err := third.Resume(ctx); err != nil || n != 0 {
				t.Errorf("Resume after everything finished = %d, %v; want 0", n, err)
			}
		})
	}
}

// TestJournalDropsAnExecutionInterruptedTooOften: an execution that never
// gets to finish is started again at most MaxResumes times.
func TestJournalDropsAnExecutionInterruptedTooOften(t *testing.T) {
	ctx := context.Background()
	j := localworkflow.NewJournal(twintest.Bolt(t))
	runs := 0
	for i := 0; ; i++ {
		started := make(chan struct{}, 1)
		r := newRunner(t, blockingA(0, started), localworkflow.WithJournal(j))
		if i == 0 {
			if err := r.Start(ctx, "p", "poison", map[string]any{"id": "poison"}); err != nil {
				t.Fatal(err)
			}
		} else if n, err := r.Resume(ctx); err != nil {
			t.Fatal(err)
		} else if n == 0 {
			break
		}
		runs++
		<-started
		r.Close()
	}
	if runs != 1+localworkflow.MaxResumes {
		t.Errorf("the execution ran %d times; want 1 + MaxResumes = %d", runs, 1+localworkflow.MaxResumes)
	}
}
