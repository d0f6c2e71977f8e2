package app

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/app/searchapp"
	"musiccatalog/pkg/app/soundtrackapp"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/licensing"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/search"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/localworkflow"
)

// Deps are the wired services of one process: the core every function
// shares and every group's services (the devserver, the admin CLI and the
// tests; a Lambda function wires only its own group, see package core).
type Deps struct {
	*core.Core
	// Fingerprints is the catalog's fingerprint index, one copy in memory
	// for recognition and soundtrack identification.
	Fingerprints *fpindex.Index
	// Recognition runs recognition jobs (nil without a blob store).
	Recognition *recognition.Service
	// Search ranks tracks over the current catalog snapshot, re-indexing
	// when the loader picks up a new version.
	Search *search.Service
	// Soundtrack stores and analyzes soundtrack videos (nil without a blob store).
	Soundtrack *soundtrack.Service
	// Render mixes tracks into soundtrack videos (local runner only).
	Render *render.Service
	// Licensing issues and reads licenses.
	Licensing *licensing.Service
	// Downloads hands out audio downloads and counts them (nil without a blob store).
	Downloads *downloads.Service
	// Playlists keeps end users' playlists (§4.7).
	Playlists *playlists.Service
	// Workflows is the in-process workflow runner (local only).
	Workflows *localworkflow.Runner

	// BlobHandler serves local signed URLs (nil on AWS, where S3 does).
	BlobHandler http.Handler
	closers     []io.Closer
}

// ErrDataDirLocked means another process (usually the devserver) holds the local store.
var ErrDataDirLocked = errors.New("the data directory is in use by another process (is the devserver running?)")

// OpenLocal wires the embedded twins under cfg.DataDir.
func OpenLocal(cfg Config, log *slog.Logger) (*Deps, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	st, err := boltstore.Open(filepath.Join(cfg.DataDir, "store.db"))
	if err != nil {
		if errors.Is(err, boltstore.ErrLocked) {
			return nil, fmt.Errorf("%s: %w", cfg.DataDir, ErrDataDirLocked)
		}
		return nil, err
	}
	if cfg.PublicBaseURL == "" {
		cfg.PublicBaseURL = "http://" + cmp.Or(cfg.Addr, "127.0.0.1:8080")
	}
	secret, err := blobSecret(cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	fb, err := fileblob.New(filepath.Join(cfg.DataDir, "blobs"), cfg.PublicBaseURL, secret)
	if err != nil {
		st.Close()
		return nil, err
	}
	ist, ibs := instrumentPorts(st, fb)
	d := newDeps(core.New(cfg, log, ist, ibs))
	d.BlobHandler = d.localUploadTrigger(fb.Handler())
	d.closers = append(d.closers, st)
	if err := d.startLocalWorkflows(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// blobSecret returns the configured signing key, or one generated once and
// kept in the data dir so signed URLs survive restarts.
func blobSecret(cfg Config) ([]byte, error) {
	if cfg.BlobSecret != "" {
		return []byte(cfg.BlobSecret), nil
	}
	path := filepath.Join(cfg.DataDir, "blob-signing-secret")
	if b, err := os.ReadFile(path); err == nil {
		return []byte(strings.TrimSpace(string(b))), nil
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	secret := hex.EncodeToString(raw[:])
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write blob secret: %w", err)
	}
	return []byte(secret), nil
}

// OpenAWS wires every group on DynamoDB and S3 from the standard AWS
// environment (credentials, region, AWS_ENDPOINT_URL_* overrides): the
// admin CLI's view of a deployed stack.
func OpenAWS(ctx context.Context, cfg Config, log *slog.Logger) (*Deps, error) {
	c, err := core.OpenAWS(ctx, cfg, log, s3blob.Open)
	if err != nil {
		return nil, err
	}
	if err := resolveSecrets(ctx, &c.Config, ssm.NewFromConfig(c.AWS)); err != nil {
		return nil, err
	}
	st, bs := instrumentPorts(c.Store, c.Blob)
	aws := c.AWS
	c = core.New(c.Config, log, st, bs)
	c.AWS = aws
	d := newDeps(c)
	if err := d.newRecognition(recognitionapp.StepFunctions(c)); err != nil {
		return nil, err
	}
	return d, nil
}

// newDeps wires every group on the core (whose ports instrumentPorts
// already decorated).
func newDeps(c *core.Core) *Deps {
	d := &Deps{Core: c}
	if c.Blob != nil {
		d.Fingerprints = &fpindex.Index{Blob: c.Blob}
	}
	d.newPlaylists()
	d.Search = searchapp.New(c, d.Playlists)
	d.newSoundtrack(soundtrackapp.VideoFetcher(c.Config))
	d.newLicensing()
	d.newDownloads()
	return d
}

// newSoundtrack wires the soundtrack service on link fetcher f.
func (d *Deps) newSoundtrack(f soundtrack.VideoFetcher) {
	d.Soundtrack = soundtrackapp.New(d.Core, d.Fingerprints, f)
}

// newRecognition builds the recognition service on a workflow starter.
func (d *Deps) newRecognition(wf workflow.Starter) (err error) {
	d.Recognition, err = recognitionapp.New(d.Core, d.Fingerprints, instrumentWorkflow(wf))
	return err
}

// API returns the HTTP API of every group over these services.
func (d *Deps) API() *httpapi.API {
	a := d.Core.API()
	searchapp.Mount(a, d.Search, d.Soundtrack)
	recognitionapp.Mount(a, d.Recognition)
	soundtrackapp.MountWithRender(a, d.Soundtrack, d.Render, d.Config.SoundtrackDirectUploadMax)
	d.licensesAPI(a)
	d.downloadsAPI(a)
	d.playlistsAPI(a)
	if d.BlobHandler != nil { // local: the configured base; on AWS, API Gateway's domain
		a.PublicBaseURL = d.Config.PublicBaseURL
	}
	return a
}

// Close releases local resources.
func (d *Deps) Close() error {
	var errs []error
	for i := len(d.closers) - 1; i >= 0; i-- { // the runner stops before the store closes
		c := d.closers[i]
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
