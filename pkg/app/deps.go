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

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/licensing"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/search"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/store/dynamostore"
	"musiccatalog/pkg/workflow/localworkflow"
)

// Deps are the wired services of one process.
type Deps struct {
	Config    Config
	Log       *slog.Logger
	Clock     clock.Clock
	Store     store.Store
	Blob      blob.Store
	Identity  *identity.Service
	Allowlist *allowlist.Service
	// Catalog serves the current catalog snapshot (nil without a blob store).
	Catalog *catalog.Loader
	// Fingerprints is the catalog's fingerprint index, one copy in memory
	// for recognition and soundtrack identification.
	Fingerprints *catalog.FingerprintIndex
	// Recognition runs recognition jobs (nil without a blob store).
	Recognition *recognition.Service
	// Search ranks tracks over the current catalog snapshot, re-indexing
	// when the loader picks up a new version.
	Search *search.Service
	// Soundtrack stores and analyzes soundtrack videos (nil without a blob store).
	Soundtrack *soundtrack.Service
	// Licensing issues and reads licenses.
	Licensing *licensing.Service
	// Playlists keeps end users' playlists (§4.7).
	Playlists *playlists.Service
	// Workflows is the in-process workflow runner (local only).
	Workflows *localworkflow.Runner

	// BlobHandler serves local signed URLs (nil on AWS, where S3 does).
	BlobHandler http.Handler
	closers     []io.Closer
}

// NewLogger returns the JSON logger of DESIGN.md §9 at the configured level.
func NewLogger(cfg Config, w io.Writer, function string) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl})).With(slog.String("function", function))
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
	d := newDeps(cfg, log, st, fb)
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

// OpenAWS wires DynamoDB and S3 from the standard AWS environment
// (credentials, region, AWS_ENDPOINT_URL_* overrides).
func OpenAWS(ctx context.Context, cfg Config, log *slog.Logger) (*Deps, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	st := dynamostore.New(dynamodb.NewFromConfig(awsCfg), cfg.Tables)
	var bs blob.Store
	if cfg.Bucket != "" {
		bs = s3blob.New(s3.NewFromConfig(awsCfg), cfg.Bucket)
	}
	d := newDeps(cfg, log, st, bs)
	if err := d.awsWorkflows(sfn.NewFromConfig(awsCfg)); err != nil {
		return nil, err
	}
	return d, nil
}

func newDeps(cfg Config, log *slog.Logger, st store.Store, bs blob.Store) *Deps {
	c := clock.Real{}
	d := &Deps{
		Config: cfg, Log: log, Clock: c, Store: st, Blob: bs,
		Identity:  identity.New(st, c, ids.Random{}, cfg.TokenCacheTTL),
		Allowlist: allowlist.New(st, c),
	}
	if bs != nil {
		d.Catalog = catalog.NewLoader(bs, catalog.WithLoaderLogger(log))
		d.Fingerprints = &catalog.FingerprintIndex{Blob: bs}
	}
	d.newPlaylists()
	d.Search = search.NewService(currentCatalog{d}, search.WithLogger(log), d.searchPlaylists())
	d.newSoundtrack(videoFetcher(cfg))
	d.newLicensing()
	return d
}

// API returns the HTTP API over these services.
func (d *Deps) API() *httpapi.API {
	a := &httpapi.API{
		Auth:   d.Identity,
		Limits: httpapi.RateLimits{AnonymousPerMinute: d.Config.RateAnonymous, AuthenticatedPerMinute: d.Config.RateAuth},
		Clock:  d.Clock, Log: d.Log,
		Allowlist: d.Allowlist, Blob: d.Blob, SiteURL: d.Config.SiteURL,
		Idempotency: idempotency.New(d.Store, d.Clock),
	}
	a.Limits.AnalysesPerMinute = d.Config.RateAnalyses
	if d.Recognition != nil {
		a.Recognition = d.Recognition
	}
	if d.Catalog != nil { // a nil *Loader in the interface would not read as "no catalog"
		a.Catalog = d.Catalog
	}
	if d.Search != nil {
		a.Search = d.Search
	}
	if d.Soundtrack != nil {
		a.Soundtrack = d.Soundtrack
	}
	a.SoundtrackDirectUploadMax = d.Config.SoundtrackDirectUploadMax
	d.licensesAPI(a)
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

// currentCatalog is the catalog source of search: whatever loader d holds
// at the time of the call (tests swap it), and no snapshot without one.
type currentCatalog struct{ d *Deps }

var errNoCatalogSource = errors.New("no catalog store configured")

func (c currentCatalog) Current(ctx context.Context) (*catalog.Catalog, error) {
	if c.d.Catalog == nil {
		return nil, errNoCatalogSource
	}
	return c.d.Catalog.Current(ctx)
}
