package localworkflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// MaxResumes bounds how often Resume starts one execution again: one that
// was interrupted more often (an execution that takes its process down
// with it) is dropped and logged, and its record's own deadline ends it
// (render BuildDeadline, ZIPBuildDeadline, recognition's stale timeout).
const MaxResumes = 2

// Journal makes a Runner's executions outlive its process, as Step
// Functions' do: an execution is written down before it is queued and
// struck out when it ends (succeeded or failed; not when Close aborts
// it), so Resume in the next process starts again every execution the
// last one did not finish, whatever its state machine. Every task of our
// machines is idempotent (it skips the work its record shows done), so
// an execution started again finishes what was left.
type Journal struct {
	st    store.Store
	clock func() time.Time
}

// NewJournal keeps the journal on st's Jobs table.
func NewJournal(st store.Store) *Journal { return &Journal{st: st, clock: time.Now} }

// journalPK is the one partition of the journal (the devserver's store
// only: one process writes it).
const journalPK = "WORKFLOW#RUNS"

const (
	attrMachine = "machine"
	attrName    = "name"
	attrInput   = "input"
	attrStarted = "started_at"
	attrResumes = "resumes"
)

func journalKey(machine, name string) store.Key {
	return store.Key{PK: journalPK, SK: machine + "#" + name}
}

// started writes an execution down; one already written (resumed, or
// started again by the application) keeps its resume count.
func (j *Journal) started(ctx context.Context, machine, name string, input []byte) error {
	err := j.st.Put(ctx, store.Jobs, store.Item{Key: journalKey(machine, name), Attrs: map[string]any{
		attrMachine: machine, attrName: name, attrInput: input, attrStarted: store.UnixNano(j.clock()),
	}}, store.NotExists())
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return fmt.Errorf("localworkflow: journal %s/%s: %w", machine, name, err)
	}
	return nil
}

// finished strikes an execution out.
func (j *Journal) finished(ctx context.Context, machine, name string) error {
	return j.st.Delete(ctx, store.Jobs, journalKey(machine, name), nil)
}

// run is one unfinished execution.
type run struct {
	machine, name string
	input         json.RawMessage
	resumes       int64
}

func (j *Journal) unfinished(ctx context.Context) ([]run, error) {
	var out []run
	cursor := ""
	for {
		page, err := j.st.Query(ctx, store.Jobs, store.Query{PK: journalPK, Cursor: cursor, Limit: 100})
		if err != nil {
			return nil, fmt.Errorf("localworkflow: read journal: %w", err)
		}
		for _, it := range page.Items {
			out = append(out, run{machine: it.Str(attrMachine), name: it.Str(attrName),
				input: it.Bytes(attrInput), resumes: it.Int(attrResumes)})
		}
		if cursor = page.Cursor; cursor == "" {
			return out, nil
		}
	}
}

// WithJournal makes the runner write its executions to j (see Journal).
func WithJournal(j *Journal) Option { return func(r *Runner) { r.journal = j } }

// Resume starts again every execution the journal holds unfinished (a
// process that ran them stopped or crashed), with its name and input, and
// returns how many it started. An execution already resumed MaxResumes
// times is dropped instead. A name the runner has already (the application
// started it again first) is left to that execution. One it cannot start
// (a task without a handler in this build) is reported with the others'
// failures and does not hold up the rest; it counts as resumed, so it is
// dropped after MaxResumes starts. Call it once the machines and handlers
// are registered.
func (r *Runner) Resume(ctx context.Context) (int, error) {
	if r.journal == nil {
		return 0, nil
	}
	runs, err := r.journal.unfinished(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var failed []error
	for _, x := range runs {
		ok, err := r.resume(ctx, x)
		if err != nil {
			failed = append(failed, err)
		}
		if ok {
			n++
		}
	}
	return n, errors.Join(failed...)
}

// resume starts one unfinished execution again; false when it did not
// (dropped, or running already).
func (r *Runner) resume(ctx context.Context, x run) (bool, error) {
	if x.resumes >= MaxResumes {
		r.log.Warn("workflow execution interrupted too often; not resumed",
			"machine", x.machine, "execution", x.name, "resumes", x.resumes)
		return false, r.journal.finished(ctx, x.machine, x.name)
	}
	if _, err := r.journal.st.Update(ctx, store.Jobs, journalKey(x.machine, x.name),
		store.Update{Add: map[string]int64{attrResumes: 1}}, store.Exists()); err != nil {
		return false, fmt.Errorf("localworkflow: resume %s/%s: %w", x.machine, x.name, err)
	}
	err := r.Launch(ctx, x.machine, x.name, x.input)
	switch {
	case errors.Is(err, workflow.ErrAlreadyStarted):
		return false, nil
	case errors.Is(err, workflow.ErrUnknownMachine): // this build has no such machine any more
		r.log.Warn("workflow execution of an unknown machine; not resumed", "machine", x.machine, "execution", x.name)
		return false, r.journal.finished(ctx, x.machine, x.name)
	case err != nil:
		return false, fmt.Errorf("localworkflow: resume %s/%s: %w", x.machine, x.name, err)
	}
	r.log.Info("workflow execution resumed", "machine", x.machine, "execution", x.name)
	return true, nil
}
