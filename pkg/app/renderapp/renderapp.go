// Package renderapp wires the soundtrack render (interface.md §4.1 render,
// §3.2, §6): the render service on the soundtrack videos, the catalog, the
// render state machine and the mail queue, for api-soundtrack, the
// build-render task and the mailer.
package renderapp

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/soundtrackapp"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/queue/sqsqueue"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/sfnworkflow"
)

// New builds the render service (nil without object storage or a
// catalog: renders answer 501 there).
func New(c *core.Core, videos *soundtrack.Service, wf workflow.Starter, q render.MailQueue) *render.Service {
	if c.Blob == nil || c.Catalog == nil || videos == nil {
		return nil
	}
	svc, err := render.New(render.Config{
		Store: c.Store, Blob: c.Blob, Catalog: c.CatalogSource(), Videos: videos, Workflow: wf, Mail: q,
		Mixer: render.Mixer{FFmpegPath: c.Config.FFmpegPath}, Clock: c.Clock, Log: c.Log,
	})
	if err != nil {
		c.Log.Error("render service", "error", err)
		return nil
	}
	return svc
}

// StepFunctions starts executions of the deployed render state machine.
func StepFunctions(c *core.Core) workflow.Starter {
	return sfnworkflow.New(sfn.NewFromConfig(c.AWS), map[string]string{
		render.Machine: os.Getenv("RENDER_STATE_MACHINE_ARN"),
	})
}

// MailQueue is the SQS queue the mailer consumes.
func MailQueue(c *core.Core) render.MailQueue {
	return &sqsqueue.Queue{Client: sqs.NewFromConfig(c.AWS), URL: os.Getenv("MAIL_QUEUE_URL")}
}

// Wiring is the api-soundtrack function's: the soundtrack endpoints and
// the render, which starts the state machine.
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	videos := soundtrackapp.New(c, &fpindex.Index{Blob: c.Blob}, soundtrackapp.VideoFetcher(c.Config))
	soundtrackapp.MountWithRender(a, videos, New(c, videos, StepFunctions(c), nil), c.Config.SoundtrackDirectUploadMax)
	return nil
}}

var errNoRender = errors.New("render is not configured (BUCKET is unset)")

// Task is the build-render task function on svc.
func Task(svc *render.Service) (lambdarun.TaskFunc, error) {
	if svc == nil {
		return nil, errNoRender
	}
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return svc.HandleTask(ctx, in)
	}, nil
}

// RunBuildLambda is the whole main of build-render.
func RunBuildLambda() {
	c := core.MustOpenAWS(render.FnBuild, s3blob.Open)
	videos := soundtrackapp.New(c, &fpindex.Index{Blob: c.Blob}, nil) // it only reads videos
	task, err := Task(New(c, videos, nil, MailQueue(c)))
	c.ExitOn(err)
	lambdarun.StartTask(task)
}
