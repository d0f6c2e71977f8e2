// Package downloadsapp wires the downloads group: the download service on
// the object store (renditions, signed URLs, ZIP archives), the item store
// (counts, ZIP build records) and the ZIP build workflow, for the
// api-downloads endpoints and the build-zip task function. Its handlers
// are package httpapi's.
package downloadsapp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/sfnworkflow"
)

// New wires the download service on a workflow starter for ZIP builds
// (nil without an object store, where there is nothing to download; a
// nil starter leaves ZIP requests answering 501).
func New(c *core.Core, wf workflow.Starter) *downloads.Service {
	if c.Blob == nil {
		return nil
	}
	svc, err := downloads.New(downloads.Config{Store: c.Store, Blob: c.Blob, Catalog: c.CatalogSource(),
		Workflow: wf, Clock: c.Clock, Log: c.Log})
	if err != nil {
		c.Log.Error("downloads service", slog.Any("error", err)) // only missing dependencies, excluded above
		return nil
	}
	return svc
}

// Mount hands the download service to the API.
func Mount(a *httpapi.API, svc *downloads.Service) {
	if svc != nil { // a nil *Service in the interface would not read as "none"
		a.Downloads = svc
	}
}

// StepFunctions starts ZIP builds on the deployed state machine
// (ZIP_STATE_MACHINE_ARN; nil when unset: no ZIP builds).
func StepFunctions(c *core.Core) workflow.Starter {
	arn := os.Getenv("ZIP_STATE_MACHINE_ARN")
	if arn == "" {
		return nil
	}
	return sfnworkflow.New(sfn.NewFromConfig(c.AWS), map[string]string{downloads.Machine: arn})
}

// Wiring is the api-downloads function's.
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	Mount(a, New(c, StepFunctions(c)))
	return nil
}}

// errNoDownloads: the function was deployed without object storage.
var errNoDownloads = errors.New("downloads are not configured (BUCKET is unset)")

// Task is the build-zip task on svc: what its Lambda function runs. The
// task's error goes back unwrapped: its type name is what the state
// machine's Retry and Catch match (lambdarun.TaskFunc).
func Task(svc *downloads.Service) (lambdarun.TaskFunc, error) {
	if svc == nil {
		return nil, errNoDownloads
	}
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return svc.HandleTask(ctx, in)
	}, nil
}

// RunBuildLambda is the whole main of build-zip.
func RunBuildLambda() {
	c := core.MustOpenAWS(downloads.FnBuildZIP, s3blob.Open)
	task, err := Task(New(c, nil))
	c.ExitOn(err)
	lambdarun.StartTask(task)
}
