package lambdastub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Execution statuses (Step Functions DescribeExecution).
const (
	StatusRunning   = "RUNNING"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
)

// Execution is one run of a state machine.
type Execution struct {
	ARN, Name, MachineARN string
	Input                 string
	Start, Stop           time.Time
	Status                string
	Output                string
	Error, Cause          string

	done chan struct{}
}

// StepFunctions runs the template's state machines with
// aws-local-stepfunctions, one node process per execution (sfn-run.cjs),
// whose Lambda tasks call back into the Invoke API (AWS_ENDPOINT_URL_LAMBDA).
type StepFunctions struct {
	Node        string // node >= 22
	NodeModules string // where aws-local-stepfunctions and asl-validator are installed
	Runner      string // infra/local/sfn-run.cjs
	Env         []string
	Dir         string // where the substituted definitions are written
	Log         func(format string, args ...any)

	mu         sync.Mutex
	machines   map[string]*StateMachine // by ARN
	files      map[string]string        // ARN → definition file
	executions map[string]*Execution    // by execution ARN
	wg         sync.WaitGroup
	cancel     context.CancelFunc
	ctx        context.Context
}

// Errors of StartExecution, named as the Step Functions API names them.
var (
	ErrStateMachineDoesNotExist = errors.New("StateMachineDoesNotExist")
	ErrExecutionAlreadyExists   = errors.New("ExecutionAlreadyExists")
	ErrExecutionDoesNotExist    = errors.New("ExecutionDoesNotExist")
)

// Add registers a state machine after asl-validator accepts its
// substituted definition.
func (s *StepFunctions) Add(sm *StateMachine) error {
	s.mu.Lock()
	if s.machines == nil {
		s.machines, s.files, s.executions = map[string]*StateMachine{}, map[string]string{}, map[string]*Execution{}
		s.ctx, s.cancel = context.WithCancel(context.Background())
	}
	s.mu.Unlock()
	file := filepath.Join(s.Dir, sm.Name+".asl.json")
	if err := os.WriteFile(file, sm.Definition, 0o644); err != nil {
		return err
	}
	validator := filepath.Join(s.NodeModules, "asl-validator", "dist", "bin", "asl-validator.js")
	if out, err := exec.Command(s.Node, validator, "--json-path", file).CombinedOutput(); err != nil {
		return fmt.Errorf("asl-validator rejects %s: %v\n%s", sm.LogicalID, err, out)
	}
	s.mu.Lock()
	s.machines[sm.ARN] = sm
	s.files[sm.ARN] = file
	s.mu.Unlock()
	return nil
}

// Start starts an execution. As for STANDARD machines, a name is used
// once: the same name and input while it runs answers the same execution,
// anything else is ExecutionAlreadyExists.
func (s *StepFunctions) Start(machineARN, name, input string) (*Execution, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sm := s.machines[machineARN]
	if sm == nil {
		return nil, fmt.Errorf("%w: State Machine Does Not Exist: '%s'", ErrStateMachineDoesNotExist, machineARN)
	}
	if input == "" {
		input = "{}"
	}
	arn := strings.Replace(machineARN, ":stateMachine:", ":execution:", 1) + ":" + name
	if ex := s.executions[arn]; ex != nil {
		if ex.Input == input && ex.Status == StatusRunning {
			return ex, nil
		}
		return nil, fmt.Errorf("%w: Execution Already Exists: '%s'", ErrExecutionAlreadyExists, arn)
	}
	ex := &Execution{ARN: arn, Name: name, MachineARN: machineARN, Input: input, Start: time.Now(), Status: StatusRunning, done: make(chan struct{})}
	s.executions[arn] = ex
	s.wg.Add(1)
	go s.run(ex, sm, s.files[machineARN])
	return ex, nil
}

func (s *StepFunctions) run(ex *Execution, sm *StateMachine, file string) {
	defer s.wg.Done()
	contextObj, _ := json.Marshal(map[string]any{
		"Execution":    map[string]any{"Id": ex.ARN, "Name": ex.Name, "Input": json.RawMessage(ex.Input), "StartTime": ex.Start.UTC().Format(time.RFC3339Nano)},
		"StateMachine": map[string]any{"Id": sm.ARN, "Name": sm.Name},
	})
	cmd := exec.CommandContext(s.ctx, s.Node, s.Runner, s.NodeModules, file, ex.Input, string(contextObj))
	cmd.Env = s.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var outcome struct {
		Status, Error, Cause string
		Output               json.RawMessage
	}
	if err == nil {
		err = json.Unmarshal(stdout.Bytes(), &outcome)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ex.Stop = time.Now()
	switch {
	case err != nil:
		ex.Status, ex.Error, ex.Cause = StatusFailed, "States.Runtime", fmt.Sprintf("sfn-run: %v: %s%s", err, stdout.String(), stderr.String())
	case outcome.Status == StatusSucceeded:
		ex.Status, ex.Output = StatusSucceeded, string(outcome.Output)
	default:
		ex.Status, ex.Error, ex.Cause = StatusFailed, outcome.Error, outcome.Cause
	}
	if s.Log != nil {
		s.Log("execution %s: %s %s %s (%.1f s)", ex.Name, ex.Status, ex.Error, ex.Cause, ex.Stop.Sub(ex.Start).Seconds())
	}
	close(ex.done)
}

// Describe returns a copy of the execution.
func (s *StepFunctions) Describe(arn string) (Execution, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ex := s.executions[arn]
	if ex == nil {
		return Execution{}, fmt.Errorf("%w: Execution Does Not Exist: '%s'", ErrExecutionDoesNotExist, arn)
	}
	return *ex, nil
}

// Wait blocks until the execution ends or ctx is done.
func (s *StepFunctions) Wait(ctx context.Context, arn string) (Execution, error) {
	s.mu.Lock()
	ex := s.executions[arn]
	s.mu.Unlock()
	if ex == nil {
		return Execution{}, fmt.Errorf("%w: %s", ErrExecutionDoesNotExist, arn)
	}
	select {
	case <-ex.done:
	case <-ctx.Done():
		return Execution{}, ctx.Err()
	}
	return s.Describe(arn)
}

// Close stops running executions.
func (s *StepFunctions) Close() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
}
