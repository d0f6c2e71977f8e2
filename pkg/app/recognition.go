package app

import (
	"context"
	"encoding/json"
	"log/slog"

	"musiccatalog/infra/statemachines"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/workflow/localworkflow"
)

// startLocalWorkflows runs the state machines in process: the runner
// executes the same ASL documents template.yaml deploys, calling the same
// task code the Lambda functions run.
func (d *Deps) startLocalWorkflows() error {
	// The journal (in the local store) makes executions outlive the
	// process, as Step Functions' do; RecoverJobs resumes them.
	runner := localworkflow.New(localworkflow.WithLogger(d.Log), localworkflow.WithWorkers(2),
		localworkflow.WithJournal(localworkflow.NewJournal(d.Store)))
	if err := runner.Register(recognition.Machine, statemachines.Recognition, recognition.Substitutions); err != nil {
		return err
	}
	if err := d.startZIPBuilds(runner); err != nil {
		return err
	}
	if err := d.startLocalRender(runner); err != nil {
		return err
	}
	if err := d.newRecognition(runner); err != nil || d.Recognition == nil {
		return err
	}
	for _, fn := range recognition.TaskFunctions {
		runner.Handle(fn, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			return d.Recognition.HandleTask(ctx, fn, in)
		})
	}
	d.closers = append(d.closers, closerFunc(func() error { runner.Close(); return nil }))
	d.Workflows = runner
	return nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// RecoverJobs restarts or fails the jobs a stopped or crashed devserver
// left behind: recognition jobs first (their own bookkeeping: a fresh
// stale timer, `interrupted` after recognition.MaxRecoveries, and jobs
// whose execution never started), then every execution of every state
// machine (recognition, render, ZIP build) the runner's journal holds
// unfinished, with its name and input (localworkflow.Runner.Resume).
func (d *Deps) RecoverJobs(ctx context.Context) {
	if d.Recognition != nil {
		if err := d.Recognition.Recover(ctx); err != nil {
			d.Log.Warn("recovering recognition jobs", slog.Any("error", err))
		}
	}
	if d.Workflows != nil {
		n, err := d.Workflows.Resume(ctx)
		if err != nil {
			d.Log.Warn("resuming workflow executions", slog.Any("error", err))
		}
		if n > 0 {
			d.Log.Info("resumed workflow executions", slog.Int("executions", n))
		}
	}
}
