package localworkflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/localworkflow"
)

// pipeline declares its states out of order on purpose: the runner must
// follow StartAt and Next, not the order of the JSON object.
const pipeline = `{
  "StartAt": "A",
  "States": {
    "Fail": {"Type": "Task", "Resource": "${FailArn}", "Parameters": {"id.$": "$.id", "failed": true, "error.$": "$.error"}, "ResultPath": null, "Next": "Failed"},
    "C": {"Type": "Task", "Resource": "${CArn}", "ResultPath": null, "End": true,
          "Retry": [{"ErrorEquals": ["TransientError"], "IntervalSeconds": 1, "MaxAttempts": 2, "BackoffRate": 2}],
          "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Fail"}]},
    "A": {"Type": "Task", "Resource": "${AArn}", "Parameters": {"id.$": "$.id"}, "ResultPath": "$.a", "Next": "B",
          "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Fail"}]},
    "Failed": {"Type": "Fail", "Error": "JobFailed", "Cause": "marked failed"},
    "B": {"Type": "Task", "Resource": "${BArn}", "ResultPath": null, "TimeoutSeconds": 0.2, "Next": "C",
          "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Fail"}]}
  }
}`

var subs = map[string]string{"AArn": "fn-a", "BArn": "fn-b", "CArn": "fn-c", "FailArn": "fn-fail"}

// recorder serves every task and records the calls in order.
type recorder struct {
	mu    sync.Mutex
	calls []string
	input map[string][]json.RawMessage
	// behaviour per resource: returns the error of the n-th call (0-based).
	fail map[string]func(ctx context.Context, n int) error
}

func newRunner(t *testing.T, rec *recorder, opts ...localworkflow.Option) *localworkflow.Runner {
	t.Helper()
	r := localworkflow.New(opts...)
	t.Cleanup(r.Close)
	if err := r.Register("p", []byte(pipeline), subs); err != nil {
		t.Fatal(err)
	}
	rec.input = map[string][]json.RawMessage{}
	for _, res := range subs {
		r.Handle(res, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			rec.mu.Lock()
			n := len(rec.input[res])
			rec.calls = append(rec.calls, res)
			rec.input[res] = append(rec.input[res], in)
			f := rec.fail[res]
			rec.mu.Unlock()
			if f != nil {
				if err := f(ctx, n); err != nil {
					return nil, err
				}
			}
			return json.RawMessage(`{"from":"` + res + `"}`), nil
		})
	}
	return r
}

func run(t *testing.T, r *localworkflow.Runner, name string) localworkflow.Execution {
	t.Helper()
	if err := r.Start(context.Background(), "p", name, map[string]any{"id": name}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	e, ok := r.Get("p", name)
	if !ok {
		t.Fatal("execution not found")
	}
	return e
}

func TestRunsTasksInDefinitionOrder(t *testing.T) {
	rec := &recorder{}
	r := newRunner(t, rec)
	e := run(t, r, "job-1")
	if e.Status != localworkflow.Succeeded {
		t.Fatalf("status %s (%s: %s)", e.Status, e.Error, e.Cause)
	}
	if got := strings.Join(rec.calls, ","); got != "fn-a,fn-b,fn-c" {
		t.Errorf("calls = %s", got)
	}
	tasks, err := r.Tasks("p")
	if err != nil || strings.Join(tasks, ",") != "fn-a,fn-b,fn-c" {
		t.Errorf("Tasks = %v, %v", tasks, err)
	}
	// Parameters shape A's input; ResultPath $.a keeps A's result beside
	// the input; ResultPath null passes B's input on unchanged.
	if got := string(rec.input["fn-a"][0]); got != `{"id":"job-1"}` {
		t.Errorf("A input = %s", got)
	}
	if got := string(rec.input["fn-c"][0]); got != `{"a":{"from":"fn-a"},"id":"job-1"}` {
		t.Errorf("C input = %s", got)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-c": func(_ context.Context, n int) error {
			if n < 2 {
				return workflow.Transient(errors.New("throttled"))
			}
			return nil
		},
	}}
	r := newRunner(t, rec)
	e := run(t, r, "job-2")
	if e.Status != localworkflow.Succeeded {
		t.Fatalf("status %s (%s)", e.Status, e.Error)
	}
	if got := strings.Join(e.Steps, ","); got != "A,B,C,C,C" {
		t.Errorf("steps = %s", got)
	}
	if len(rec.input["fn-fail"]) != 0 {
		t.Error("catch path ran after a successful retry")
	}
}

func TestCatchAfterRetriesRunsTheFailTask(t *testing.T) {
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-c": func(context.Context, int) error { return workflow.Transient(errors.New("still down")) },
	}}
	r := newRunner(t, rec)
	e := run(t, r, "job-3")
	if e.Status != localworkflow.Failed || e.Error != "JobFailed" {
		t.Fatalf("execution = %+v", e)
	}
	if got := strings.Join(e.Steps, ","); got != "A,B,C,C,C,Fail,Failed" {
		t.Errorf("steps = %s", got)
	}
	var in struct {
		ID     string `json:"id"`
		Failed bool   `json:"failed"`
		Error  struct{ Error, Cause string }
	}
	if err := json.Unmarshal(rec.input["fn-fail"][0], &in); err != nil {
		t.Fatal(err)
	}
	var cause struct{ ErrorMessage, ErrorType string }
	json.Unmarshal([]byte(in.Error.Cause), &cause)
	if in.ID != "job-3" || !in.Failed || in.Error.Error != "TransientError" ||
		cause.ErrorMessage != "still down" || cause.ErrorType != "TransientError" {
		t.Errorf("fail task input = %s", rec.input["fn-fail"][0])
	}
}

type permanentError struct{}

func (permanentError) Error() string { return "bad input" }

func TestUnretriedErrorsGoStraightToCatch(t *testing.T) {
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-c": func(context.Context, int) error { return permanentError{} },
	}}
	e := run(t, newRunner(t, rec), "job-4")
	if got := strings.Join(e.Steps, ","); got != "A,B,C,Fail,Failed" {
		t.Errorf("steps = %s", got)
	}
	if !strings.Contains(string(rec.input["fn-fail"][0]), `"Error":"permanentError"`) {
		t.Errorf("fail input = %s", rec.input["fn-fail"][0])
	}
}

func TestTimeoutAndPanicAreCaught(t *testing.T) {
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-b": func(ctx context.Context, _ int) error { <-ctx.Done(); return ctx.Err() },
	}}
	r := newRunner(t, rec)
	run(t, r, "slow")
	if got := string(rec.input["fn-fail"][0]); !strings.Contains(got, `"Error":"States.Timeout"`) {
		t.Errorf("timeout: fail input = %s", got)
	}
	rec.fail = map[string]func(context.Context, int) error{
		"fn-a": func(context.Context, int) error { panic("boom") },
	}
	run(t, r, "panics")
	if got := string(rec.input["fn-fail"][1]); !strings.Contains(got, `"Error":"PanicError"`) {
		t.Errorf("panic: fail input = %s", got)
	}
}

func TestStartIsIdempotentByName(t *testing.T) {
	release := make(chan struct{})
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-a": func(context.Context, int) error { <-release; return nil },
	}}
	r := newRunner(t, rec)
	for range 3 {
		if err := r.Start(context.Background(), "p", "same", map[string]any{"id": "same"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Launch(context.Background(), "p", "same", nil); !errors.Is(err, workflow.ErrAlreadyStarted) {
		t.Errorf("launch of a running name: %v; want ErrAlreadyStarted", err)
	}
	close(release)
	e := run(t, r, "same") // a fourth start, after the others finished
	if e.Status != localworkflow.Succeeded || len(rec.input["fn-a"]) != 1 {
		t.Fatalf("status %s, A ran %d times", e.Status, len(rec.input["fn-a"]))
	}
	if err := r.Start(context.Background(), "nope", "x", nil); !errors.Is(err, workflow.ErrUnknownMachine) {
		t.Errorf("unknown machine: %v", err)
	}
}

func TestWorkerPoolBoundsConcurrency(t *testing.T) {
	var running, peak atomic.Int32
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-a": func(context.Context, int) error {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			running.Add(-1)
			return nil
		},
	}}
	r := newRunner(t, rec, localworkflow.WithWorkers(2))
	for i := range 8 {
		name := string(rune('a' + i))
		if err := r.Start(context.Background(), "p", name, map[string]any{"id": name}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 2 || len(rec.input["fn-c"]) != 8 {
		t.Errorf("peak concurrency %d (want 2), %d executions finished", peak.Load(), len(rec.input["fn-c"]))
	}
}

func TestCloseAbortsWithoutCatch(t *testing.T) {
	started := make(chan struct{})
	rec := &recorder{fail: map[string]func(context.Context, int) error{
		"fn-b": func(ctx context.Context, _ int) error { close(started); <-ctx.Done(); return ctx.Err() },
	}}
	r := newRunner(t, rec)
	if err := r.Start(context.Background(), "p", "crash", map[string]any{"id": "crash"}); err != nil {
		t.Fatal(err)
	}
	<-started
	r.Close()
	e, _ := r.Get("p", "crash")
	if e.Status != localworkflow.Aborted || len(rec.input["fn-fail"]) != 0 {
		t.Errorf("after Close: %s, fail task ran %d times", e.Status, len(rec.input["fn-fail"]))
	}
	if err := r.Start(context.Background(), "p", "late", map[string]any{"id": "late"}); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestRegisterRefusesWhatItCannotRun(t *testing.T) {
	r := localworkflow.New()
	t.Cleanup(r.Close)
	bad := map[string]string{
		"missing next":   `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","Next":"B"}}}`,
		"missing start":  `{"StartAt":"Z","States":{"A":{"Type":"Succeed"}}}`,
		"catch target":   `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","End":true,"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Q"}]}}}`,
		"unknown type":   `{"StartAt":"A","States":{"A":{"Type":"Map","End":true}}}`,
		"unknown field":  `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","End":true,"HeartbeatSeconds":5}}}`,
		"complex path":   `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","End":true,"Parameters":{"a.$":"$.list[0]"}}}}`,
		"next and end":   `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","End":true,"Next":"A"}}}`,
		"all not last":   `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","End":true,"Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}]}}}`,
		"placeholder":    `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"${Nope}","End":true}}}`,
		"not json":       `{"StartAt":`,
		"negative tries": `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"x","End":true,"Retry":[{"ErrorEquals":["X"],"MaxAttempts":-1}]}}}`,
		"machine field":  `{"StartAt":"A","QueryLanguage":"JSONata","States":{"A":{"Type":"Succeed"}}}`,
		"negative limit": `{"StartAt":"A","TimeoutSeconds":-1,"States":{"A":{"Type":"Succeed"}}}`,
	}
	for name, def := range bad {
		if err := r.Register("m", []byte(def), nil); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

// TestDeployedDefinitionsAreRunnable registers every state machine the
// SAM template deploys, with each placeholder standing for a function
// name: they must parse, every Next must exist, and only what this runner
// executes may be used.
func TestDeployedDefinitionsAreRunnable(t *testing.T) {
	files, err := filepath.Glob("../../../infra/statemachines/*.asl.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no definitions found: %v", err)
	}
	r := localworkflow.New()
	t.Cleanup(r.Close)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		subs := map[string]string{}
		for _, m := range regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`).FindAllStringSubmatch(string(data), -1) {
			subs[m[1]] = m[1]
		}
		if err := r.Register(filepath.Base(f), data, subs); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestMachineTimeoutEndsTheExecution: the machine's TimeoutSeconds bounds
// the whole execution, as in Step Functions: a task still running then is
// abandoned and the execution fails with States.Timeout, which no Catch
// takes (before, the local runner ignored the field).
func TestMachineTimeoutEndsTheExecution(t *testing.T) {
	const def = `{"StartAt":"A","TimeoutSeconds":0.3,"States":{
	  "A":{"Type":"Task","Resource":"slow","TimeoutSeconds":30,"End":true,
	       "Catch":[{"ErrorEquals":["States.ALL"],"ResultPath":"$.error","Next":"Caught"}]},
	  "Caught":{"Type":"Succeed"}}}`
	r := localworkflow.New()
	t.Cleanup(r.Close)
	if err := r.Register("p", []byte(def), nil); err != nil {
		t.Fatal(err)
	}
	r.Handle("slow", func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	e := run(t, r, "late")
	if e.Status != localworkflow.Failed || e.Error != "States.Timeout" || strings.Join(e.Steps, ",") != "A" {
		t.Fatalf("%+v; want failed States.Timeout after A only", e)
	}
}

// TestRecognitionTakesInputsOfEitherShape: the recognition machine passes
// its input whole, so an execution started with {job_id} alone (by an API
// deployed before generations; a journal from before them) runs as one
// with {job_id, generation}; with a path to "$.generation" it failed at
// its first state, uncaught. The catch path hands the finish function the
// same input with the caught error.
func TestRecognitionTakesInputsOfEitherShape(t *testing.T) {
	data, err := os.ReadFile("../../../infra/statemachines/recognition.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string]string{}
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`).FindAllStringSubmatch(string(data), -1) {
		subs[m[1]] = m[1]
	}
	for _, c := range []struct {
		input     map[string]any
		failMatch bool
		want      string // the inputs seen, in order
	}{
		{map[string]any{"id": "old", "job_id": "j"}, false, `RecognitionExtractFunctionArn {"id":"old","job_id":"j"}|RecognitionMatchFunctionArn {"id":"old","job_id":"j"}|RecognitionExternalFunctionArn {"id":"old","job_id":"j"}|RecognitionFinishFunctionArn {"id":"old","job_id":"j"}`},
		{map[string]any{"id": "new", "job_id": "j", "generation": 2}, true, `RecognitionExtractFunctionArn {"generation":2,"id":"new","job_id":"j"}|RecognitionMatchFunctionArn {"generation":2,"id":"new","job_id":"j"}|RecognitionFinishFunctionArn {"error":{"Cause":"{\"errorMessage\":\"boom\",\"errorType\":\"JobError\"}","Error":"JobError"},"generation":2,"id":"new","job_id":"j"}`},
	} {
		r := localworkflow.New()
		if err := r.Register("p", data, subs); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var seen []string
		for res := range subs {
			r.Handle(res, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				mu.Lock()
				seen = append(seen, res+" "+string(in))
				mu.Unlock()
				if c.failMatch && res == "RecognitionMatchFunctionArn" {
					return nil, JobError("boom")
				}
				return nil, nil
			})
		}
		name := c.input["id"].(string)
		if err := r.Start(context.Background(), "p", name, c.input); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := r.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		e, _ := r.Get("p", name)
		r.Close()
		wantStatus := localworkflow.Succeeded
		if c.failMatch { // MarkFailed, then the machine's own Fail state
			wantStatus = localworkflow.Failed
		}
		if got := strings.Join(seen, "|"); got != c.want || e.Status != wantStatus {
			t.Errorf("%s: %s (%s %s)\n got %s\nwant %s", name, e.Status, e.Error, e.Cause, got, c.want)
		}
	}
}

// JobError is named as recognition's own input errors are.
type JobError string

func (e JobError) Error() string { return string(e) }

// TestMachineTimeoutCutsARetryBackOff: a back-off running past the
// machine's timeout ends the execution at the timeout, with no new attempt.
func TestMachineTimeoutCutsARetryBackOff(t *testing.T) {
	const def = `{"StartAt":"A","TimeoutSeconds":0.3,"States":{
	  "A":{"Type":"Task","Resource":"flaky","End":true,
	       "Retry":[{"ErrorEquals":["States.ALL"],"IntervalSeconds":5,"MaxAttempts":3}]}}}`
	r := localworkflow.New(localworkflow.WithRetryScale(1))
	t.Cleanup(r.Close)
	if err := r.Register("p", []byte(def), nil); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	r.Handle("flaky", func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		calls.Add(1)
		return nil, errors.New("flaky")
	})
	e := run(t, r, "backoff")
	if e.Status != localworkflow.Failed || e.Error != "States.Timeout" || calls.Load() != 1 {
		t.Fatalf("%+v after %d calls; want failed States.Timeout after one call, at the timeout", e, calls.Load())
	}
}
