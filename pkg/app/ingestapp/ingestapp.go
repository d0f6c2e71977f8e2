// Package ingestapp wires the catalog-ingest function: an S3 upload of a
// catalog manifest runs ingestion and publishes the new catalog version
// (with its search text index) under the publish lock.
package ingestapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/catalog/manifest"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/search"
)

// ManifestPrefix is where an uploaded catalog manifest starts an ingest
// (the catalog-ingest function's S3 trigger filters on it and on ".jsonl").
const ManifestPrefix = manifest.UploadPrefix

// The publish lock (catalog.PublishLock) every ingestion holds. The holder
// renews the lease while it runs, so a crashed one blocks the others for
// at most the lease. A busy lock is waited for a while, after which a
// catalog-ingest invocation fails and Lambda retries it (twice, then the
// manifest lands in CatalogIngestDLQ, which has an alarm).
const (
	ingestLockLease = 2 * time.Minute
	ingestLockWait  = 2 * time.Minute
	ingestLockPoll  = 5 * time.Second
)

// PublishLock is the lock every catalog publisher of this deployment takes.
func PublishLock(d *core.Core) catalog.PublishLock {
	return catalog.PublishLock{Store: d.Store, Clock: d.Clock, Lease: ingestLockLease, Wait: ingestLockWait, Poll: ingestLockPoll}
}

// Handler ingests every manifest an S3 event names. Ingest is
// idempotent (the same manifest publishes the same version), and an older
// manifest run again after a newer one leaves the assets the newer one set
// alone (ingest.LedgerKey), so S3's at-least-once delivery and Lambda's
// retries of a failed invocation are safe; publishing is serialized by the publish lock, as catalog.Publish
// requires (reserved concurrency is optional on top).
func Handler(d *core.Core) func(context.Context, events.S3Event) error {
	return func(ctx context.Context, ev events.S3Event) error {
		if d.Blob == nil {
			return fmt.Errorf("catalog-ingest: no bucket configured (BUCKET)")
		}
		opts := ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: d.Config.FFmpegPath}, FFmpegPath: d.Config.FFmpegPath,
			Artifacts: []catalog.Artifact{search.TextIndexArtifact}}
		for _, rec := range ev.Records {
			// S3 event keys are URL-encoded with '+' for spaces.
			key, err := url.QueryUnescape(rec.S3.Object.Key)
			if err != nil {
				d.Log.Error("catalog-ingest: undecodable key", slog.String("key", rec.S3.Object.Key))
				continue
			}
			if !strings.HasPrefix(key, ManifestPrefix) || !strings.HasSuffix(key, ".jsonl") {
				d.Log.Info("catalog-ingest: not a manifest; ignored", slog.String("key", key))
				continue
			}
			rep, err := WithPublishLock(ctx, d, func(ctx context.Context) (ingest.Report, error) { return ingest.RunBlob(ctx, opts, key) })
			if err != nil {
				return fmt.Errorf("catalog-ingest %s: %w", key, err)
			}
			d.Log.Info("catalog-ingest: done", slog.String("manifest", key), slog.String("version", rep.Version),
				slog.Bool("published", rep.Published), slog.Int("added", rep.Added), slog.Int("updated", rep.Updated),
				slog.Int("unchanged", rep.Unchanged), slog.Int("superseded", rep.Superseded), slog.Int("skipped", len(rep.Errors)), slog.Int("warnings", len(rep.Warnings)))
			for _, p := range rep.Errors {
				d.Log.Warn("catalog-ingest: record skipped", slog.String("manifest", key), slog.String("problem", p.Error()))
			}
		}
		return nil
	}
}

// WithPublishLock runs an ingestion holding the publish lock; the run's
// context ends if the lock is lost, so it stops before publishing.
func WithPublishLock(ctx context.Context, d *core.Core, run func(context.Context) (ingest.Report, error)) (ingest.Report, error) {
	held, release, err := PublishLock(d).Acquire(ctx, ids.NewUUID())
	if err != nil {
		return ingest.Report{}, err
	}
	defer func() {
		if err := release(context.WithoutCancel(ctx)); err != nil {
			d.Log.Warn("releasing the catalog publish lock", slog.Any("error", err)) // it expires after its lease
		}
	}()
	rep, err := run(held)
	if cause := context.Cause(held); err != nil && errors.Is(cause, catalog.ErrPublishLockLost) {
		err = cause
	}
	return rep, err
}

// RunLambda is the whole main of the catalog-ingest function.
func RunLambda() { lambda.Start(Handler(core.MustOpenAWS("catalog-ingest", s3blob.Open))) }
