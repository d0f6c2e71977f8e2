package localworkflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"sync"
	"time"

	"musiccatalog/pkg/workflow"
)

var _ workflow.Launcher = (*Runner)(nil)

// Handler serves one Task resource: it gets the state's effective input as
// JSON and returns its result (nil for null).
type Handler func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// Status of an execution.
type Status string

const (
	Queued    Status = "QUEUED"
	Running   Status = "RUNNING"
	Succeeded Status = "SUCCEEDED"
	Failed    Status = "FAILED"
	// Aborted executions were stopped by Close; their tasks' work is left
	// as it was, for the application's recovery to resume.
	Aborted Status = "ABORTED"
)

// Execution describes one execution.
type Execution struct {
	Machine, Name string
	Status        Status
	// Error and Cause are set for Failed executions.
	Error, Cause string
	// Steps lists the states entered, in order, with the attempts of each
	// Task ("Extract", "Extract", "Match", ...).
	Steps   []string
	Started time.Time
	Stopped time.Time
}

// Defaults of a Runner.
const (
	DefaultWorkers    = 2
	DefaultRetryScale = 0.01 // a 2 s production back-off waits 20 ms
	// keepFinished is how long a finished execution's name stays taken.
	keepFinished = 24 * time.Hour
)

// Runner executes registered state machines in process.
type Runner struct {
	workers    int
	retryScale float64
	log        *slog.Logger
	journal    *Journal // nil: executions die with the process

	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	machines map[string]*definition
	handlers map[string]Handler
	execs    map[string]*execution
	queue    []*execution
	wake     *sync.Cond    // signalled when the queue grows or the runner closes
	active   int           // queued + running
	idle     chan struct{} // closed while active == 0
	closed   bool
}

type execution struct {
	Execution
	input    any
	deadline time.Time // the machine's TimeoutSeconds from the run's start; zero: none
}

func (e *execution) timedOut() bool { return !e.deadline.IsZero() && !time.Now().Before(e.deadline) }

// Option configures a Runner.
type Option func(*Runner)

// WithWorkers bounds how many executions run at once (default 2).
func WithWorkers(n int) Option { return func(r *Runner) { r.workers = max(1, n) } }

// WithRetryScale multiplies every Retry delay (default 0.01; 1 keeps the
// definition's delays).
func WithRetryScale(f float64) Option { return func(r *Runner) { r.retryScale = max(0, f) } }

// WithLogger sets where execution failures are logged.
func WithLogger(l *slog.Logger) Option { return func(r *Runner) { r.log = l } }

// New returns a running Runner; Close stops it.
func New(opts ...Option) *Runner {
	r := &Runner{
		workers: DefaultWorkers, retryScale: DefaultRetryScale, log: slog.New(slog.DiscardHandler),
		machines: map[string]*definition{}, handlers: map[string]Handler{}, execs: map[string]*execution{},
		idle: make(chan struct{}),
	}
	for _, o := range opts {
		o(r)
	}
	close(r.idle)
	r.wake = sync.NewCond(&r.mu)
	r.base, r.cancel = context.WithCancel(context.Background())
	for range r.workers {
		r.wg.Go(r.work)
	}
	return r
}

// Register adds the state machine named machine from its ASL definition,
// replacing "${Name}" placeholders from subs first.
func (r *Runner) Register(machine string, definitionJSON []byte, subs map[string]string) error {
	data, err := substitute(definitionJSON, subs)
	if err != nil {
		return fmt.Errorf("localworkflow: %s: %w", machine, err)
	}
	def, err := parseDefinition(data)
	if err != nil {
		return fmt.Errorf("localworkflow: %s: %w", machine, err)
	}
	r.mu.Lock()
	r.machines[machine] = def
	r.mu.Unlock()
	return nil
}

// Handle serves the Task resource (after substitution) with h.
func (r *Runner) Handle(resource string, h Handler) {
	r.mu.Lock()
	r.handlers[resource] = h
	r.mu.Unlock()
}

// Tasks lists the Task resources of machine in the order an execution
// without failures runs them: from StartAt, following Next.
func (r *Runner) Tasks(machine string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	def, ok := r.machines[machine]
	if !ok {
		return nil, fmt.Errorf("%w: %s", workflow.ErrUnknownMachine, machine)
	}
	return def.tasks(), nil
}

func execKey(machine, name string) string { return machine + "\x00" + name }

// Start queues an execution. A name already started (running or finished
// within the last day) starts nothing, like an idempotent StartExecution.
func (r *Runner) Start(ctx context.Context, machine, name string, input any) error {
	if err := r.Launch(ctx, machine, name, input); err != nil && !errors.Is(err, workflow.ErrAlreadyStarted) {
		return err
	}
	return nil
}

// Launch is Start, but a name the runner has is workflow.ErrAlreadyStarted.
func (r *Runner) Launch(ctx context.Context, machine, name string, input any) error {
	if name == "" {
		return errors.New("localworkflow: empty execution name")
	}
	body, err := json.Marshal(input)
	if err != nil {
		return fmt.Errorf("localworkflow: input: %w", err)
	}
	var in any
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("localworkflow: input: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("localworkflow: runner is closed")
	}
	def, ok := r.machines[machine]
	if !ok {
		return fmt.Errorf("%w: %s", workflow.ErrUnknownMachine, machine)
	}
	for _, res := range def.allResources() {
		if r.handlers[res] == nil {
			return fmt.Errorf("localworkflow: %s: no handler for task resource %q", machine, res)
		}
	}
	r.prune()
	key := execKey(machine, name)
	if _, dup := r.execs[key]; dup {
		return fmt.Errorf("localworkflow: %s/%s: %w", machine, name, workflow.ErrAlreadyStarted)
	}
	if r.journal != nil { // written down before it can run, as StartExecution does
		if err := r.journal.started(ctx, machine, name, body); err != nil {
			return err
		}
	}
	e := &execution{Execution: Execution{Machine: machine, Name: name, Status: Queued, Started: time.Now()}, input: in}
	r.execs[key] = e
	r.queue = append(r.queue, e)
	if r.active == 0 {
		r.idle = make(chan struct{})
	}
	r.active++
	r.wake.Signal()
	return nil
}

// prune forgets executions finished long ago, so a long-running process
// does not keep every name forever. Called with r.mu held.
func (r *Runner) prune() {
	for k, e := range r.execs {
		if !e.Stopped.IsZero() && time.Since(e.Stopped) > keepFinished {
			delete(r.execs, k)
		}
	}
}

// Get returns a copy of the execution's state.
func (r *Runner) Get(machine, name string) (Execution, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.execs[execKey(machine, name)]
	if !ok {
		return Execution{}, false
	}
	out := e.Execution
	out.Steps = append([]string(nil), e.Steps...)
	return out, true
}

// Wait blocks until no execution is queued or running.
func (r *Runner) Wait(ctx context.Context) error {
	r.mu.Lock()
	idle := r.idle
	r.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting executions, cancels the running ones (they end as
// Aborted, without their Catch paths) and waits for the workers.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	r.wake.Broadcast()
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.queue {
		r.finish(e, outcome{status: Aborted})
	}
	r.queue = nil
}

// finish records the end of e. Called with r.mu held.
func (r *Runner) finish(e *execution, o outcome) {
	e.Status, e.Error, e.Cause, e.Stopped = o.status, o.errName, o.cause, time.Now()
	r.active--
	if r.active == 0 {
		close(r.idle)
	}
}

func (r *Runner) work() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		for len(r.queue) == 0 && !r.closed {
			r.wake.Wait()
		}
		if r.closed {
			return
		}
		e := r.queue[0]
		r.queue = r.queue[1:]
		def := r.machines[e.Machine]
		e.Status = Running
		r.mu.Unlock()

		o := r.run(def, e)
		if o.status == Failed {
			r.log.Warn("workflow execution failed", "machine", e.Machine, "execution", e.Name, "error", o.errName, "cause", o.cause)
		}
		if r.journal != nil && o.status != Aborted { // an aborted one is resumed by the next process
			if err := r.journal.finished(context.Background(), e.Machine, e.Name); err != nil {
				r.log.Warn("workflow journal", "machine", e.Machine, "execution", e.Name, "error", err)
			}
		}

		r.mu.Lock()
		r.finish(e, o)
	}
}

// outcome is how an execution, or a Task state that ends it, came out.
type outcome struct {
	status         Status
	errName, cause string
}

func failed(errName, cause string) *outcome {
	return &outcome{status: Failed, errName: errName, cause: cause}
}

var aborted = &outcome{status: Aborted}

func (r *Runner) step(e *execution, name string) {
	r.mu.Lock()
	e.Steps = append(e.Steps, name)
	r.mu.Unlock()
}

// run interprets def from StartAt until a terminal state.
func (r *Runner) run(def *definition, e *execution) outcome {
	data := e.input
	if def.Timeout > 0 {
		// A resumed execution (the journal) gets the whole timeout again.
		e.deadline = time.Now().Add(def.Timeout)
	}
	for name := def.StartAt; ; {
		if r.base.Err() != nil {
			return *aborted
		}
		if e.timedOut() {
			return *failed("States.Timeout", "Execution timed out.")
		}
		st := def.States[name]
		next := st.Next
		switch st.Type {
		case "Succeed":
			r.step(e, name)
			return outcome{status: Succeeded}
		case "Fail":
			r.step(e, name)
			return *failed(st.Error, st.Cause)
		case "Pass":
			r.step(e, name)
			var err error
			if data, err = r.pass(st, data); err != nil {
				return *failed("States.Runtime", err.Error())
			}
		case "Task":
			var caught string
			var end *outcome
			if data, caught, end = r.task(e, name, st, data); end != nil {
				return *end
			}
			if caught != "" {
				name = caught
				continue
			}
		}
		if st.End {
			return outcome{status: Succeeded}
		}
		name = next
	}
}

func (r *Runner) pass(st *state, data any) (any, error) {
	result := data
	var err error
	switch {
	case st.Result != nil:
		result = st.Result
	case st.Parameters != nil:
		if result, err = render(st.Parameters, data); err != nil {
			return nil, err
		}
	}
	return applyResultPath(data, st.ResultPath, result)
}

func applyResultPath(data any, path *string, result any) (any, error) {
	if path == nil {
		return data, nil
	}
	return set(data, *path, result)
}

// task runs a Task state with its retries. It returns the new data and,
// when a catcher took the error, the catcher's Next; or the outcome that
// ends the execution.
func (r *Runner) task(e *execution, name string, st *state, data any) (any, string, *outcome) {
	input := data
	if st.Parameters != nil {
		var err error
		if input, err = render(st.Parameters, data); err != nil {
			return nil, "", failed("States.Runtime", err.Error())
		}
	}
	body, err := json.Marshal(input)
	if err != nil {
		return nil, "", failed("States.Runtime", err.Error())
	}
	r.mu.Lock()
	h := r.handlers[st.Resource]
	r.mu.Unlock()

	attempts := make([]int, len(st.Retry))
	for {
		r.step(e, name)
		out, errName, cause := r.invoke(h, st, body, e.deadline)
		if r.base.Err() != nil {
			return nil, "", aborted
		}
		if e.timedOut() { // the execution's own timeout: no retry, no catch
			return nil, "", failed("States.Timeout", "Execution timed out.")
		}
		if errName == "" {
			var result any
			if len(out) > 0 {
				if err := json.Unmarshal(out, &result); err != nil {
					return nil, "", failed("States.Runtime", "task result is not JSON: "+err.Error())
				}
			}
			data, err := applyResultPath(data, st.ResultPath, result)
			if err != nil {
				return nil, "", failed("States.Runtime", err.Error())
			}
			return data, "", nil
		}
		if delay, ok := r.retryDelay(st.Retry, attempts, errName); ok {
			if !e.deadline.IsZero() {
				delay = min(delay, max(0, time.Until(e.deadline)))
			}
			select {
			case <-time.After(delay):
			case <-r.base.Done():
				return nil, "", aborted
			}
			if e.timedOut() { // no new attempt after the execution's timeout
				return nil, "", failed("States.Timeout", "Execution timed out.")
			}
			continue
		}
		for _, c := range st.Catch {
			if matches(c.ErrorEquals, errName) {
				data, err := applyResultPath(data, c.ResultPath, map[string]any{"Error": errName, "Cause": cause})
				if err != nil {
					return nil, "", failed("States.Runtime", err.Error())
				}
				return data, c.Next, nil
			}
		}
		return nil, "", failed(errName, cause)
	}
}

// retryDelay finds the first retrier matching errName and, if it has
// attempts left, counts one and returns its scaled delay.
func (r *Runner) retryDelay(rs []retrier, attempts []int, errName string) (time.Duration, bool) {
	for i, rt := range rs {
		if !matches(rt.ErrorEquals, errName) {
			continue
		}
		maxAttempts := defaultMaxAttempts
		if rt.MaxAttempts != nil {
			maxAttempts = *rt.MaxAttempts
		}
		if attempts[i] >= maxAttempts {
			return 0, false
		}
		interval, backoff := defaultInterval, defaultBackoff
		if rt.IntervalSeconds != nil {
			interval = *rt.IntervalSeconds
		}
		if rt.BackoffRate != nil {
			backoff = *rt.BackoffRate
		}
		secs := interval * math.Pow(backoff, float64(attempts[i]))
		if rt.MaxDelaySeconds != nil {
			secs = min(secs, *rt.MaxDelaySeconds)
		}
		attempts[i]++
		return time.Duration(secs * r.retryScale * float64(time.Second)), true
	}
	return 0, false
}

// invoke calls the handler like Lambda would: a panic is an error, an
// error is named by its type and its Cause is the Lambda error JSON, and a
// task past TimeoutSeconds is abandoned with States.Timeout.
func (r *Runner) invoke(h Handler, st *state, input []byte, deadline time.Time) (json.RawMessage, string, string) {
	if st.TimeoutSeconds > 0 {
		if d := time.Now().Add(time.Duration(st.TimeoutSeconds * float64(time.Second))); deadline.IsZero() || d.Before(deadline) {
			deadline = d
		}
	}
	ctx := r.base
	cancel := context.CancelFunc(func() {})
	if !deadline.IsZero() {
		ctx, cancel = context.WithDeadline(ctx, deadline)
	}
	defer cancel()
	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: &PanicError{Value: p, Stack: string(debug.Stack())}}
			}
		}()
		out, err := h(ctx, input)
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		if res.err == nil {
			return res.out, "", ""
		}
		if ctx.Err() == context.DeadlineExceeded && r.base.Err() == nil {
			return nil, "States.Timeout", "Task timed out."
		}
		return nil, workflow.ErrorName(res.err), lambdaCause(res.err)
	case <-ctx.Done():
		if r.base.Err() != nil {
			return nil, "States.Runtime", "runner closed"
		}
		return nil, "States.Timeout", "Task timed out."
	}
}

// lambdaCause is the Cause Step Functions reports for a Lambda function
// error: the function's error response as JSON.
func lambdaCause(err error) string {
	b, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}{err.Error(), workflow.ErrorName(err)})
	return string(b)
}

// PanicError is a task handler's panic, reported as a task failure.
type PanicError struct {
	Value any
	Stack string
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// allResources lists every Task resource of the machine, catch paths
// included.
func (d *definition) allResources() []string {
	var out []string
	for _, st := range d.States {
		if st.Type == "Task" {
			out = append(out, st.Resource)
		}
	}
	return out
}
