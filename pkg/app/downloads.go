package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"musiccatalog/infra/statemachines"
	"musiccatalog/pkg/app/downloadsapp"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/workflow/localworkflow"
)

// newDownloads wires the download service (downloadsapp.New) without ZIP
// builds; startZIPBuilds adds them where a workflow runner exists.
func (d *Deps) newDownloads() { d.Downloads = downloadsapp.New(d.Core, nil) }

// downloadsAPI hands the download service to the API.
func (d *Deps) downloadsAPI(a *httpapi.API) { downloadsapp.Mount(a, d.Downloads) }

// zipSweepEvery is how often the devserver deletes expired archives, as
// the bucket's lifecycle rule does on AWS.
const zipSweepEvery = time.Hour

// startZIPBuilds runs ZIP builds on the in-process runner: the zip state
// machine from the ASL template.yaml deploys, its build-zip task served by
// the same code the Lambda function runs, and a sweeper that expires
// archives after downloads.ZIPRetention like the lifecycle rule.
func (d *Deps) startZIPBuilds(runner *localworkflow.Runner) error {
	if err := runner.Register(downloads.Machine, statemachines.ZIP, downloads.Substitutions); err != nil {
		return err
	}
	svc := downloadsapp.New(d.Core, instrumentWorkflow(runner))
	if svc == nil {
		return nil
	}
	d.Downloads = svc
	// The runner abandons a task it closes on (as Lambda would); this
	// closer, which runs after the runner's, waits for such a task to see
	// its cancelled context and stop, so nothing writes after Close.
	var inflight sync.WaitGroup
	runner.Handle(downloads.FnBuildZIP, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		inflight.Add(1)
		defer inflight.Done()
		return svc.HandleTask(ctx, in)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d.closers = append(d.closers, closerFunc(func() error { cancel(); <-done; inflight.Wait(); return nil }))
	go func() {
		defer close(done)
		t := time.NewTicker(zipSweepEvery)
		defer t.Stop()
		for {
			if n, err := svc.SweepExpiredZIPs(ctx); err != nil && ctx.Err() == nil {
				d.Log.Warn("sweeping expired ZIP archives", slog.Any("error", err))
			} else if n > 0 {
				d.Log.Info("expired ZIP archives deleted", slog.Int("count", n))
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}
