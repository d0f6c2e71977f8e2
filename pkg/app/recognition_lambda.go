package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/recognition"
)

// errNoRecognition: the function was deployed without object storage.
var errNoRecognition = errors.New("recognition is not configured (BUCKET is unset)")

// RecognitionTask is the task function fn of the recognition state
// machine (recognition.TaskFunctions): what its Lambda function runs.
func (d *Deps) RecognitionTask(fn string) (lambdarun.TaskFunc, error) {
	return d.RecognitionTaskWith(d.Recognition, fn)
}

// RecognitionTaskWith is RecognitionTask on a given service. The task's
// error goes back unwrapped: its type name is what the state machine's
// Retry and Catch match (lambdarun.TaskFunc).
func (d *Deps) RecognitionTaskWith(svc *recognition.Service, fn string) (lambdarun.TaskFunc, error) {
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

// RecognitionPrepare handles one object of the S3 upload trigger: it
// extracts and fingerprints an upload ahead of its submit.
func (d *Deps) RecognitionPrepare() (lambdarun.S3ObjectFunc, error) {
	return d.RecognitionPrepareWith(d.Recognition)
}

// RecognitionPrepareWith is RecognitionPrepare on a given service.
func (d *Deps) RecognitionPrepareWith(svc *recognition.Service) (lambdarun.S3ObjectFunc, error) {
	if svc == nil {
		return nil, errNoRecognition
	}
	return func(ctx context.Context, o lambdarun.S3Object) error {
		if o.Bucket != "" && d.Config.Bucket != "" && o.Bucket != d.Config.Bucket {
			// The queue policy admits only our bucket's notifications;
			// another bucket's object is not ours to read.
			d.Log.Warn("recognition-prepare: object of another bucket ignored", slog.String("bucket", o.Bucket), slog.String("key", o.Key))
			return nil
		}
		return svc.Prepare(ctx, o.Key, o.ETag)
	}, nil
}

// RunRecognitionTaskLambda is the whole main of a recognition task
// function (recognition-extract, -match, -external, -finish).
func RunRecognitionTaskLambda(fn string) {
	d := MustOpenAWS(fn)
	task, err := d.RecognitionTask(fn)
	exitOn(d, err)
	lambdarun.StartTask(task)
}

// RunRecognitionPrepareLambda is the whole main of recognition-prepare,
// fed S3 notifications of uploads through SQS.
func RunRecognitionPrepareLambda() {
	d := MustOpenAWS("recognition-prepare")
	prepare, err := d.RecognitionPrepare()
	exitOn(d, err)
	lambdarun.StartS3Queue(prepare, d.Log)
}

// exitOn ends an init that cannot serve; Lambda reports it as an init error.
func exitOn(d *Deps, err error) {
	if err != nil {
		d.Log.Error("wiring", slog.Any("error", err))
		os.Exit(1)
	}
}
