package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"musiccatalog/pkg/app"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/search"
)

// DemoTracks is the default size of the demo catalog.
const DemoTracks = 240

func (c *cmd) ingestOptions(replace bool, workers int) (ingest.Options, error) {
	if c.deps.Blob == nil {
		return ingest.Options{}, errors.New("no object storage configured (set BUCKET with --aws)")
	}
	return ingest.Options{Blob: c.deps.Blob, Decoder: decode.Decoder{FFmpegPath: c.deps.Config.FFmpegPath},
		FFmpegPath: c.deps.Config.FFmpegPath, Progress: c.errOut, Workers: workers, Replace: replace,
		Artifacts: []catalog.Artifact{search.TextIndexArtifact}}, nil
}

func (c *cmd) ingest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	replace := fs.Bool("replace", false, "")
	workers := fs.Int("workers", 0, "")
	path, err := parseWithArg(fs, args, "MANIFEST")
	if err != nil {
		return err
	}
	opts, err := c.ingestOptions(*replace, *workers)
	if err != nil {
		return err
	}
	// The same lock catalog-ingest takes: with --aws, an upload's ingest
	// and this one never publish over each other.
	rep, err := app.WithPublishLock(ctx, c.deps, func(ctx context.Context) (ingest.Report, error) { return ingest.Run(ctx, opts, path) })
	if err != nil {
		return err
	}
	fmt.Fprint(c.out, rep.String())
	return nil
}

func (c *cmd) demo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	n := fs.Int("tracks", DemoTracks, "")
	seed := fs.Uint64("seed", 1, "")
	ifEmpty := fs.Bool("if-empty", false, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	opts, err := c.ingestOptions(true, 0)
	if err != nil {
		return err
	}
	if *ifEmpty {
		if p, err := catalog.ReadCurrent(ctx, c.deps.Blob); err == nil {
			fmt.Fprintf(c.out, "catalog %s already present; not generating the demo\n", p.Version)
			return nil
		}
	}
	manifestPath, err := demo.Generate(ctx, filepath.Join(c.deps.Config.DataDir, "demo"), *n, *seed)
	if err != nil {
		return err
	}
	rep, err := app.WithPublishLock(ctx, c.deps, func(ctx context.Context) (ingest.Report, error) { return ingest.Run(ctx, opts, manifestPath) })
	if err != nil {
		return err
	}
	fmt.Fprint(c.out, rep.String())
	return nil
}
