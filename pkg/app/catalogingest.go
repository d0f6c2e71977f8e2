package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/catalog/manifest"
)

// ManifestPrefix is where an uploaded catalog manifest starts an ingest
// (the catalog-ingest function's S3 trigger filters on it and on ".jsonl").
const ManifestPrefix = manifest.UploadPrefix

// CatalogIngestHandler ingests every manifest an S3 event names. Ingest is
// idempotent (the same manifest publishes the same version), so S3's
// at-least-once delivery and Lambda's retries of a failed invocation are
// safe; publishing is serialized by the function's reserved concurrency of
// one (template.yaml), as catalog.Publish requires.
func (d *Deps) CatalogIngestHandler() func(context.Context, events.S3Event) error {
	return func(ctx context.Context, ev events.S3Event) error {
		if d.Blob == nil {
			return fmt.Errorf("catalog-ingest: no bucket configured (BUCKET)")
		}
		opts := ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: d.Config.FFmpegPath}, FFmpegPath: d.Config.FFmpegPath}
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
			rep, err := ingest.RunBlob(ctx, opts, key)
			if err != nil {
				return fmt.Errorf("catalog-ingest %s: %w", key, err)
			}
			d.Log.Info("catalog-ingest: done", slog.String("manifest", key), slog.String("version", rep.Version),
				slog.Bool("published", rep.Published), slog.Int("added", rep.Added), slog.Int("updated", rep.Updated),
				slog.Int("unchanged", rep.Unchanged), slog.Int("skipped", len(rep.Errors)), slog.Int("warnings", len(rep.Warnings)))
			for _, p := range rep.Errors {
				d.Log.Warn("catalog-ingest: record skipped", slog.String("manifest", key), slog.String("problem", p.Error()))
			}
		}
		return nil
	}
}

// RunCatalogIngestLambda is the whole main of the catalog-ingest function.
func RunCatalogIngestLambda() { lambda.Start(MustOpenAWS("catalog-ingest").CatalogIngestHandler()) }
