// Package recognitionapp wires video recognition (interface.md §4.5): the
// recognition service on the catalog's fingerprints, the outside tier and
// the workflow that runs the pipeline, for the api-recognition endpoints,
// the state machine's task functions and the upload trigger.
package recognitionapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/httpapi/recognitionapi"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/search/similarity"
	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/sfnworkflow"
)

// OutsideRecognizer is the ACRCloud adapter when ACRCLOUD_HOST is set
// (with its key and secret), else nil: the outside tier is off.
func OutsideRecognizer(cfg core.Config) (outside.Recognizer, error) {
	if cfg.ACRCloudHost == "" {
		return nil, nil
	}
	c, err := acrcloud.New(cfg.ACRCloudHost, cfg.ACRCloudAccessKey, cfg.ACRCloudAccessSecret)
	if err != nil {
		return nil, fmt.Errorf("ACRCLOUD_*: %w", err)
	}
	return c, nil
}

// The outside tier's suggestions come from search's similarity.
var _ recognition.Vectorizer = similarity.AudioVectorizer{}

// New builds the recognition service on a workflow starter (nil without
// object storage: recognition is not available there).
func New(c *core.Core, fps *fpindex.Index, wf workflow.Starter) (*recognition.Service, error) {
	if c.Blob == nil || c.Catalog == nil {
		return nil, nil
	}
	out, err := OutsideRecognizer(c.Config)
	if err != nil {
		return nil, err
	}
	return recognition.New(recognition.Config{
		Store: c.Store, Blob: c.Blob, Catalog: c.Catalog, Workflow: wf, Clock: c.Clock, Log: c.Log,
		Decoder: decode.Decoder{FFmpegPath: c.Config.FFmpegPath}, Outside: out,
		DefaultDailyCap: int64(c.Config.RecognitionDailyCap), Fingerprints: fps,
		Vectorizer: similarity.AudioVectorizer{}, OutsideSamples: c.Config.RecognitionOutsideSamples,
	})
}

// StepFunctions starts executions of the deployed state machines.
func StepFunctions(c *core.Core) workflow.Starter {
	return sfnworkflow.New(sfn.NewFromConfig(c.AWS), map[string]string{
		recognition.Machine: os.Getenv("RECOGNITION_STATE_MACHINE_ARN"),
	})
}

// OpenAWS is the recognition service of a recognition function on AWS,
// with the ACRCloud secret read from SSM (ResolveSecrets).
func OpenAWS(c *core.Core) (*recognition.Service, error) {
	if err := ResolveSecrets(context.Background(), &c.Config, ssm.NewFromConfig(c.AWS)); err != nil {
		return nil, err
	}
	return New(c, &fpindex.Index{Blob: c.Blob}, StepFunctions(c))
}

// Mount adds the recognition endpoints over svc.
func Mount(a *httpapi.API, svc *recognition.Service) {
	h := &recognitionapi.API{API: a}
	if svc != nil { // a nil *Service in the interface would not read as "none"
		h.Recognition = svc
	}
	a.Mounts[httpapi.GroupRecognition] = h.Mount
}

// Wiring is the api-recognition function's.
var Wiring = core.Wiring{Blob: s3blob.Open, Mount: func(c *core.Core, a *httpapi.API) error {
	svc, err := OpenAWS(c)
	Mount(a, svc)
	return err
}}

// errNoRecognition: the function was deployed without object storage.
var errNoRecognition = errors.New("recognition is not configured (BUCKET is unset)")

// Task is the task function fn of the recognition state machine
// (recognition.TaskFunctions) on svc: what its Lambda function runs. The
// task's error goes back unwrapped: its type name is what the state
// machine's Retry and Catch match (lambdarun.TaskFunc).
func Task(svc *recognition.Service, fn string) (lambdarun.TaskFunc, error) {
	if svc == nil {
		return nil, errNoRecognition
	}
	if !slices.Contains(recognition.TaskFunctions, fn) {
		return nil, fmt.Errorf("%q is not a recognition task", fn)
	}
	return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return svc.HandleTask(ctx, fn, in)
	}, nil
}

// Prepare handles one object of the S3 upload trigger on svc: it
// extracts and fingerprints an upload ahead of its submit.
func Prepare(c *core.Core, svc *recognition.Service) (lambdarun.S3ObjectFunc, error) {
	if svc == nil {
		return nil, errNoRecognition
	}
	return func(ctx context.Context, o lambdarun.S3Object) error {
		if o.Bucket != "" && c.Config.Bucket != "" && o.Bucket != c.Config.Bucket {
			// The queue policy admits only our bucket's notifications;
			// another bucket's object is not ours to read.
			c.Log.Warn("recognition-prepare: object of another bucket ignored", slog.String("bucket", o.Bucket), slog.String("key", o.Key))
			return nil
		}
		return svc.Prepare(ctx, o.Key, o.ETag)
	}, nil
}

// RunTaskLambda is the whole main of a recognition task function
// (recognition-extract, -match, -external, -finish).
func RunTaskLambda(fn string) {
	c := core.MustOpenAWS(fn, s3blob.Open)
	svc, err := OpenAWS(c)
	c.ExitOn(err)
	task, err := Task(svc, fn)
	c.ExitOn(err)
	lambdarun.StartTask(task)
}

// RunPrepareLambda is the whole main of recognition-prepare, fed S3
// notifications of uploads through SQS.
func RunPrepareLambda() {
	c := core.MustOpenAWS("recognition-prepare", s3blob.Open)
	svc, err := OpenAWS(c)
	c.ExitOn(err)
	prepare, err := Prepare(c, svc)
	c.ExitOn(err)
	lambdarun.StartS3Queue(prepare, c.Log)
}
