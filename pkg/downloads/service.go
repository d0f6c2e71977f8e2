package downloads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// URLTTL is how long a download URL stays valid: "a few minutes"
// (interface.md §8, signed download URL lifetime).
const URLTTL = 5 * time.Minute

// Texts of the 403/404 answers.
const (
	msgFreePlan       = "Your plan does not include downloads; free accounts can stream but not download."
	msgNoDownloads    = "Downloads are not enabled for this account."
	msgEnterpriseOnly = "This asset is available to enterprise plans only."
	msgNoSFX          = "Sound effects are not enabled for this account."
	msgNotFound       = "Not found."
	msgNoRendition    = "This asset is not downloadable as %s."
	msgNoStems        = "This track has no stems; leave include_stems out or send false."
)

// Blob is what downloads need of the object store.
type Blob interface {
	Head(ctx context.Context, key string) (blob.Attrs, error)
	PresignGet(ctx context.Context, key string, ttl time.Duration, filename string) (string, error)
}

var _ Blob = blob.Store(nil)

// Config holds a Service's dependencies; Clock and Log are optional.
// Without Workflow, ZIP requests answer 501 (no builds in this
// environment); with it, Blob must be a blob.Store, which the builder
// reads the renditions from and streams the archive into.
type Config struct {
	Store    store.Store
	Blob     Blob
	Catalog  catalog.Source
	Workflow workflow.Starter
	Clock    clock.Clock
	Log      *slog.Logger
}

// Service answers download requests and keeps the download counts.
type Service struct {
	st      store.Store
	blob    Blob
	catalog catalog.Source
	wf      workflow.Starter
	clock   clock.Clock
	log     *slog.Logger
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Blob == nil || cfg.Catalog == nil {
		return nil, errors.New("downloads: Store, Blob and Catalog are required")
	}
	if _, ok := cfg.Blob.(blob.Store); cfg.Workflow != nil && !ok {
		return nil, errors.New("downloads: ZIP builds need a full blob.Store")
	}
	s := &Service{st: cfg.Store, blob: cfg.Blob, catalog: cfg.Catalog, wf: cfg.Workflow, clock: cfg.Clock, log: cfg.Log}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Link is a download ready to fetch, or a ZIP still being built.
type Link struct {
	URL         string // signed, valid for URLTTL
	Filename    string // what it saves as
	ContentType string // the rendition's stored type (audio/mpeg, audio/wav, application/zip)
	Format      string // mp3, wav or zip
	// Pending is set while a ZIP builds (202 {detail}); URL is empty.
	Pending bool
	Detail  string
}

// Audio answers one download request of asset id by p: the checks of
// §4.4/§5/§7.2 in the order 400 (the request itself), 403 (the plan
// cannot download at all), 404 (no such asset of that type), 403 (the
// plan cannot download this asset), 400 (stems asked of a track without
// any); then both formats or stems go to the
// ZIP flow (zipAudio), one format to its stored rendition (404 when there
// is none), and the download is counted and its URL signed.
func (s *Service) Audio(ctx context.Context, p *identity.Principal, id string, req Request) (Link, error) {
	const op = "downloads.Audio"
	req, err := req.normalized()
	if err != nil {
		return Link{}, err
	}
	switch {
	case p.Client.Plan == identity.PlanFree:
		return Link{}, errs.E(op, errs.Forbidden, msgFreePlan)
	case p.Client.Plan == identity.PlanEnterprise && !p.Client.CanDownload:
		return Link{}, errs.E(op, errs.Forbidden, msgNoDownloads)
	}
	cat, err := s.catalog.Current(ctx)
	if err != nil {
		return Link{}, &errs.Error{Op: op, Kind: errs.Unavailable, Status: 500,
			Detail: "The catalog is temporarily unavailable. Please retry later.", Err: err}
	}
	as, ok := cat.Asset(req.Type, id)
	if !ok {
		return Link{}, errs.E(op, errs.NotFound, msgNotFound)
	}
	if err := allowed(p, as); err != nil {
		return Link{}, err
	}
	if req.IncludeStems && as.Track != nil && len(as.Track.Stems) == 0 {
		// Not an archive named "(stems)" holding none: the caller asked
		// for something this track does not have (has_stems is false).
		return Link{}, errs.Field(op, "include_stems", msgNoStems)
	}
	if req.zip() {
		return s.zipAudio(ctx, p, as, req)
	}
	format := req.Formats[0]
	key := as.Audio.MP3Key
	if format == FormatWAV {
		key = as.Audio.WAVKey
	}
	if key == "" {
		return Link{}, errs.E(op, errs.NotFound, fmt.Sprintf(msgNoRendition, format))
	}
	attrs, err := s.blob.Head(ctx, key)
	if errors.Is(err, blob.ErrNotFound) { // removed since the snapshot was published
		return Link{}, errs.E(op, errs.NotFound, fmt.Sprintf(msgNoRendition, format))
	}
	if err != nil {
		return Link{}, errs.Wrap(op, err)
	}
	name := Filename(as, format)
	u, err := s.blob.PresignGet(ctx, key, URLTTL, name)
	if err != nil {
		return Link{}, errs.Wrap(op, err)
	}
	// Counted before the URL is handed out: a download the partner is
	// billed for never goes unreported (a failed count is a 500 and no URL).
	if req.Probe {
		return Link{URL: u, Filename: name, ContentType: attrs.ContentType, Format: format}, nil
	}
	if err := s.count(ctx, p.Client.ID, as, req); err != nil {
		return Link{}, errs.Wrap(op, err)
	}
	s.logDownload(ctx, p, as, req)
	return Link{URL: u, Filename: name, ContentType: attrs.ContentType, Format: format}, nil
}

func (s *Service) logDownload(ctx context.Context, p *identity.Principal, as catalog.Asset, req Request) {
	s.log.InfoContext(ctx, "download", slog.String("client_id", p.Client.ID), slog.String("user_id", userID(p)),
		slog.String("asset_type", as.Kind), slog.String("asset_id", as.ID), slog.String("format", strings.Join(req.Formats, ",")),
		slog.Bool("zip", req.zip()), slog.Bool("include_stems", req.IncludeStems),
		slog.Bool("confirm_personal_use", req.ConfirmPersonalUse))
}

// allowed applies the per-asset plan rules of §5: subscriber and
// commercial plans cannot download enterprise-only tracks (nor their
// stems); sound effects need an account with them enabled.
func allowed(p *identity.Principal, as catalog.Asset) error {
	const op = "downloads.allowed"
	if as.Track != nil && !catalog.Covers(string(p.Client.Plan), as.Track) {
		return errs.E(op, errs.Forbidden, msgEnterpriseOnly)
	}
	if as.Kind == catalog.KindSoundFX && !p.Client.SFXEnabled {
		return errs.E(op, errs.Forbidden, msgNoSFX)
	}
	return nil
}

func userID(p *identity.Principal) string {
	if p.User == nil {
		return ""
	}
	return p.User.ID
}
