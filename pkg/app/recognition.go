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
	runner := localworkflow.New(localworkflow.WithLogger(d.Log), localworkflow.WithWorkers(2))
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

// RecoverJobs restarts or fails the jobs a crash left behind.
func (d *Deps) RecoverJobs(ctx context.Context) {
	if d.Recognition == nil {
		return
	}
	if err := d.Recognition.Recover(ctx); err != nil {
		d.Log.Warn("recovering recognition jobs", slog.Any("error", err))
	}
}
