package workflow

import (
	"context"
	"errors"
	"reflect"
)

// Starter starts a workflow execution.
type Starter interface {
	// Start begins an execution of the state machine named machine with
	// input (marshalled as JSON). Starting a name that was already started
	// is not an error and starts nothing.
	Start(ctx context.Context, machine, executionName string, input any) error
}

// ErrAlreadyStarted is returned (wrapped) by Launcher.Launch for an
// execution name that was already started: nothing was started.
var ErrAlreadyStarted = errors.New("workflow: execution already started")

// Launcher is a Starter that tells a start that began an execution from
// one that found the name taken. Both adapters implement it; Restart uses
// it so that a restart of a running execution is not reported as one.
type Launcher interface {
	Starter
	// Launch is Start, except that a name already started is
	// ErrAlreadyStarted (wrapped) instead of success.
	Launch(ctx context.Context, machine, executionName string, input any) error
}

// ErrUnknownMachine is returned by Start for a machine the starter was not
// configured with.
var ErrUnknownMachine = errors.New("workflow: unknown state machine")

// TransientError marks a task failure that may succeed when the task runs
// again (a throttled or unreachable dependency). Definitions retry the
// error name "TransientError".
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// Transient wraps err as a TransientError (nil stays nil).
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &TransientError{Err: err}
}

// ErrorName is the name Step Functions sees for an error a Go Lambda
// returned: the runtime reports the dynamic type's name, without the
// pointer. Retry and Catch rules match it.
func ErrorName(err error) string {
	t := reflect.TypeOf(err)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
