package app

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/ingestapp"
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/recognition"
)

// Config is every setting of the service (package core reads it).
type Config = core.Config

// FromEnv reads the configuration, applying the documented defaults.
func FromEnv() (Config, error) { return core.FromEnv() }

// NewLogger returns the JSON logger of DESIGN.md §9 at the configured level.
func NewLogger(cfg Config, w io.Writer, function string) *slog.Logger {
	return core.NewLogger(cfg, w, function)
}

// ManifestPrefix is where an uploaded catalog manifest starts an ingest.
const ManifestPrefix = ingestapp.ManifestPrefix

// PublishLock is the lock every catalog publisher of this deployment takes.
func (d *Deps) PublishLock() catalog.PublishLock { return ingestapp.PublishLock(d.Core) }

// WithPublishLock runs an ingestion holding the publish lock (ingestapp.WithPublishLock).
func WithPublishLock(ctx context.Context, d *Deps, run func(context.Context) (ingest.Report, error)) (ingest.Report, error) {
	return ingestapp.WithPublishLock(ctx, d.Core, run)
}

// CatalogIngestHandler is the catalog-ingest function's handler on these services.
func (d *Deps) CatalogIngestHandler() func(context.Context, events.S3Event) error {
	return ingestapp.Handler(d.Core)
}

// RecognitionTask is the task function fn of the recognition state
// machine, as its Lambda function runs it (recognitionapp.Task).
func (d *Deps) RecognitionTask(fn string) (lambdarun.TaskFunc, error) {
	return recognitionapp.Task(d.Recognition, fn)
}

// RecognitionTaskWith is RecognitionTask on a given service.
func (d *Deps) RecognitionTaskWith(svc *recognition.Service, fn string) (lambdarun.TaskFunc, error) {
	return recognitionapp.Task(svc, fn)
}

// RecognitionPrepare handles one object of the S3 upload trigger
// (recognitionapp.Prepare).
func (d *Deps) RecognitionPrepare() (lambdarun.S3ObjectFunc, error) {
	return recognitionapp.Prepare(d.Core, d.Recognition)
}

// RecognitionPrepareWith is RecognitionPrepare on a given service.
func (d *Deps) RecognitionPrepareWith(svc *recognition.Service) (lambdarun.S3ObjectFunc, error) {
	return recognitionapp.Prepare(d.Core, svc)
}
