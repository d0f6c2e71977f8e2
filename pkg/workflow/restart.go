package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"musiccatalog/pkg/store"
)

// StartGrace is how long a record written to start an execution may stay
// unstarted (still queued, or building without a result) before a poll
// starts its execution again, and how often after that. A start takes
// well under a second and the first task records its progress at once; a
// record older than this whose execution never began was left by a
// crash between the record's write and the Start call. Starting again is
// harmless when the execution did begin: the name is the same, and Step
// Functions (like the local runner) starts nothing for a name it has.
const StartGrace = time.Minute

// AttrRestarted is the record attribute (unix nanoseconds) of the last
// restart, so that concurrent polls start an execution once per StartGrace.
const AttrRestarted = "workflow_restarted_at"

// Stalled names the execution a record started, to be started again.
type Stalled struct {
	Table store.Table
	Key   store.Key
	// While holds as long as the record still waits for this execution
	// (its status, its build or generation): a record that moved on is
	// not restarted.
	While store.Condition
	// Since is when the record was written (or last made progress).
	Since time.Time
	// Machine, Name and Input are those of the first Start: the same
	// name and input make the second start a no-op for a started one.
	Machine, Name string
	Input         any
}

// Restart starts x's execution again when x.Since is more than StartGrace
// before now and no restart happened within StartGrace: one conditional
// write claims the restart, so of concurrent polls one starts. It reports
// whether it started. The record's other attributes are left alone, so
// its own deadline still counts from its write.
func Restart(ctx context.Context, st store.Store, wf Starter, now time.Time, x Stalled) (bool, error) {
	if now.Sub(x.Since) <= StartGrace {
		return false, nil
	}
	_, err := st.Update(ctx, x.Table, x.Key, store.Update{Set: map[string]any{AttrRestarted: store.UnixNano(now)}},
		store.And(store.Exists(), x.While, store.Or(store.AttrNotExists(AttrRestarted),
			store.LessThan(AttrRestarted, store.UnixNano(now.Add(-StartGrace))))))
	if errors.Is(err, store.ErrConditionFailed) {
		return false, nil // moved on, or restarted by another poll lately
	}
	if err != nil {
		return false, fmt.Errorf("workflow: claim restart of %s/%s: %w", x.Machine, x.Name, err)
	}
	if err := wf.Start(ctx, x.Machine, x.Name, x.Input); err != nil {
		return false, fmt.Errorf("workflow: restart %s/%s: %w", x.Machine, x.Name, err)
	}
	return true, nil
}
