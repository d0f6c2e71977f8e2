package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"musiccatalog/infra/statemachines"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/search"
	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/localworkflow"
	"musiccatalog/pkg/workflow/sfnworkflow"
)

// outsideRecognizer is the ACRCloud adapter when ACRCLOUD_HOST is set
// (with its key and secret), else nil: the outside tier is off.
func outsideRecognizer(cfg Config) (outside.Recognizer, error) {
	if cfg.ACRCloudHost == "" {
		return nil, nil
	}
	c, err := acrcloud.New(cfg.ACRCloudHost, cfg.ACRCloudAccessKey, cfg.ACRCloudAccessSecret)
	if err != nil {
		return nil, fmt.Errorf("ACRCLOUD_*: %w", err)
	}
	return c, nil
}

// newRecognition builds the recognition service on a workflow starter.
func (d *Deps) newRecognition(wf workflow.Starter) error {
	if d.Blob == nil || d.Catalog == nil {
		return nil // no object storage: recognition is not available here
	}
	wf = instrumentWorkflow(wf)
	out, err := outsideRecognizer(d.Config)
	if err != nil {
		return err
	}
	d.Recognition, err = recognition.New(recognition.Config{
		Store: d.Store, Blob: d.Blob, Catalog: d.Catalog, Workflow: wf, Clock: d.Clock, Log: d.Log,
		Decoder: decode.Decoder{FFmpegPath: d.Config.FFmpegPath}, Outside: out,
		DefaultDailyCap: int64(d.Config.RecognitionDailyCap), Fingerprints: d.Fingerprints,
		Vectorizer: search.AudioVectorizer{},
	})
	return err
}

// startLocalWorkflows runs the state machines in process: the runner
// executes the same ASL documents template.yaml deploys, calling the same
// task code the Lambda functions run.
func (d *Deps) startLocalWorkflows() error {
	runner := localworkflow.New(localworkflow.WithLogger(d.Log), localworkflow.WithWorkers(2))
	if err := runner.Register(recognition.Machine, statemachines.Recognition, recognition.Substitutions); err != nil {
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

// awsWorkflows starts Step Functions executions of the deployed machines.
func (d *Deps) awsWorkflows(client *sfn.Client) error {
	return d.newRecognition(sfnworkflow.New(client, map[string]string{
		recognition.Machine: os.Getenv("RECOGNITION_STATE_MACHINE_ARN"),
	}))
}

// The outside tier's suggestions come from search's similarity.
var _ recognition.Vectorizer = search.AudioVectorizer{}
