package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/dynamostore"
)

// Core are the services every function shares.
type Core struct {
	Config   Config
	Log      *slog.Logger
	Clock    clock.Clock
	Store    store.Store
	Blob     blob.Store // nil without object storage
	Identity *identity.Service
	// Allowlist is the channel allowlist (the allowlist group's domain,
	// small enough to share).
	Allowlist *allowlist.Service
	// Catalog serves the current catalog snapshot (nil without a blob store).
	Catalog *catalog.Loader
	// AWS is the SDK configuration on AWS (zero locally), from which a
	// group makes the clients it needs.
	AWS aws.Config
}

// New wires the shared services on a store and an optional blob store.
func New(cfg Config, log *slog.Logger, st store.Store, bs blob.Store) *Core {
	c := clock.Real{}
	core := &Core{
		Config: cfg, Log: log, Clock: c, Store: st, Blob: bs,
		Identity:  identity.New(st, c, ids.Random{}, cfg.TokenCacheTTL),
		Allowlist: allowlist.New(st, c),
	}
	if bs != nil {
		core.Catalog = catalog.NewLoader(bs, catalog.WithLoaderLogger(log))
	}
	return core
}

// NewLogger returns the JSON logger of DESIGN.md §9 at the configured level.
func NewLogger(cfg Config, w io.Writer, function string) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl})).With(slog.String("function", function))
}

// BlobOpener makes the object store of a function from the AWS
// configuration and the bucket (s3blob.Open); groups that use no object
// storage pass none, and do not link the S3 client.
type BlobOpener func(cfg aws.Config, bucket string) blob.Store

// OpenAWS wires DynamoDB from the standard AWS environment (credentials,
// region, AWS_ENDPOINT_URL_* overrides) and, when openBlob is given and
// BUCKET is set, the object store.
func OpenAWS(ctx context.Context, cfg Config, log *slog.Logger, openBlob BlobOpener) (*Core, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	st := dynamostore.New(dynamodb.NewFromConfig(awsCfg), cfg.Tables)
	var bs blob.Store
	if openBlob != nil && cfg.Bucket != "" {
		bs = openBlob(awsCfg, cfg.Bucket)
	}
	c := New(cfg, log, st, bs)
	c.AWS = awsCfg
	return c, nil
}

// MustOpenAWS is the start of every Lambda main: configuration from the
// environment, a logger naming the function, the AWS adapters. It exits
// on error, which Lambda reports as an init failure.
func MustOpenAWS(function string, openBlob BlobOpener) *Core {
	cfg, err := FromEnv()
	log := NewLogger(cfg, os.Stdout, function)
	if err != nil {
		log.Error("configuration", slog.Any("error", err))
		os.Exit(1)
	}
	if limit, ok := tuneGC(); ok {
		log.Debug("collector set to the function's memory", slog.Int64("gomemlimit", limit))
	}
	c, err := OpenAWS(context.Background(), cfg, log, openBlob)
	if err != nil {
		log.Error("wiring", slog.Any("error", err))
		os.Exit(1)
	}
	return c
}

// ExitOn ends an init that cannot serve; Lambda reports it as an init error.
func (c *Core) ExitOn(err error) {
	if err != nil {
		c.Log.Error("wiring", slog.Any("error", err))
		os.Exit(1)
	}
}

// API is the HTTP API of the groups written in package httpapi
// (allowlist, tracks, the search filters); a group of its own adds its
// routes to API.Mounts.
func (c *Core) API() *httpapi.API {
	a := &httpapi.API{
		Auth:   c.Identity,
		Limits: httpapi.RateLimits{AnonymousPerMinute: c.Config.RateAnonymous, AuthenticatedPerMinute: c.Config.RateAuth},
		Clock:  c.Clock, Log: c.Log,
		Allowlist: c.Allowlist, Blob: c.Blob, SiteURL: c.Config.SiteURL,
		Mounts:      map[httpapi.Group]httpapi.MountFunc{},
		Idempotency: idempotency.New(c.Store, c.Clock),
	}
	a.Limits.AnalysesPerMinute = c.Config.RateAnalyses
	if c.Catalog != nil { // a nil *Loader in the interface would not read as "no catalog"
		a.Catalog = c.Catalog
	}
	return a
}

// Wiring is what a function adds to the core for its group.
type Wiring struct {
	// Blob opens the object store (s3blob.Open); nil: the group uses none.
	Blob BlobOpener
	// Mount adds the group's services and routes to a (nil: the group's
	// routes are all in package httpapi).
	Mount func(c *Core, a *httpapi.API) error
}

// RunHTTPLambda is the whole main of an API function: the core, the
// group's own wiring, its handlers behind the API Gateway adapter.
func RunHTTPLambda(group httpapi.Group, w Wiring) {
	c := MustOpenAWS("api-"+string(group), w.Blob)
	a := c.API()
	if w.Mount != nil {
		c.ExitOn(w.Mount(c, a))
	}
	lambdarun.StartHTTP(a.Handler(group))
}

// CatalogSource is the catalog of c at the time of each call (tests swap
// the loader), and no snapshot without one.
func (c *Core) CatalogSource() catalog.Source { return catalogSource{c} }

type catalogSource struct{ c *Core }

var errNoCatalogSource = errors.New("no catalog store configured")

func (s catalogSource) Current(ctx context.Context) (*catalog.Catalog, error) {
	if s.c.Catalog == nil {
		return nil, errNoCatalogSource
	}
	return s.c.Catalog.Current(ctx)
}
