package localworkflow_test

import (
	"context"
	"testing"

	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow/localworkflow"
)

// TestResumeGoesOnPastAnExecutionItCannotStart: the journal holds an
// unfinished execution this build can no longer start (its machine has
// no handler for a task now: a service not configured this time) ahead of
// one it can. Resume starts the one it can and reports the other; before,
// it stopped at the first and left every execution after it waiting for
// later restarts.
func TestResumeGoesOnPastAnExecutionItCannotStart(t *testing.T) {
	ctx := context.Background()
	j := localworkflow.NewJournal(twintest.Bolt(t))
	started := make(chan struct{}, 2)
	first := newRunner(t, blockingA(0, started), localworkflow.WithJournal(j))
	if err := first.Register("a-unserved", []byte(pipeline), subs); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"a-unserved", "p"} {
		if err := first.Start(ctx, m, "left", map[string]any{"id": m}); err != nil {
			t.Fatal(err)
		}
		<-started
	}
	first.Close()

	second := newRunner(t, &recorder{}, localworkflow.WithJournal(j))
	unserved := map[string]string{"AArn": "fn-gone", "BArn": "fn-b", "CArn": "fn-c", "FailArn": "fn-fail"}
	if err := second.Register("a-unserved", []byte(pipeline), unserved); err != nil {
		t.Fatal(err)
	}
	n, err := second.Resume(ctx)
	if n != 1 {
		t.Fatalf("Resume = %d, %v; want the execution it can start started", n, err)
	}
	if err == nil {
		t.Errorf("Resume did not report the execution it could not start")
	}
	waitIdle(t, second)
	if e, ok := second.Get("p", "left"); !ok || e.Status != localworkflow.Succeeded {
		t.Errorf("p/left after Resume: %+v", e)
	}
}
