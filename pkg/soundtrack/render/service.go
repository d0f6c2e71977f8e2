package render

import (
	"context"
	"crypto/subtle"
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
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/mail"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// Machine is the render state machine's name for workflow.Starter.
const Machine = "render"

// Videos reads SoundtrackVideos; *soundtrack.Service implements it.
type Videos interface {
	Get(ctx context.Context, id string) (soundtrack.Video, error)
}

// MailQueue queues one mail.Message (JSON) for the mailer.
type MailQueue interface {
	Send(ctx context.Context, body []byte) error
}

var _ Videos = (*soundtrack.Service)(nil)

// Config holds a Service's dependencies; Clock, IDs, Log, TempDir are
// optional. Workflow is needed to start renders, Mail to email them.
type Config struct {
	Store    store.Store
	Blob     blob.Store
	Catalog  catalog.Source
	Videos   Videos
	Workflow workflow.Starter
	Mail     MailQueue
	Mixer    Mixer
	Clock    clock.Clock
	IDs      ids.Source
	Log      *slog.Logger
	TempDir  string
}

// Service answers render requests and runs the build-render task.
type Service struct {
	cfg Config
	log *slog.Logger
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Blob == nil || cfg.Catalog == nil || cfg.Videos == nil {
		return nil, errors.New("render: Store, Blob, Catalog and Videos are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.IDs == nil {
		cfg.IDs = ids.Random{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, log: cfg.Log}, nil
}

// Result is the answer to a render request: Ready with URL (200), or
// building (202) with SendEmail saying whether an email will follow.
type Result struct {
	Ready     bool
	URL       string
	SendEmail bool
}

// Record attributes in the Jobs table (one item per cache key).
const (
	attrStatus     = "status"
	attrBuild      = "build_id"
	attrVideo      = "video_id"
	attrTrack      = "track_id"
	attrVideoVol   = "video_volume"
	attrTrackVol   = "track_volume"
	attrStart      = "track_start"
	attrStarted    = "started_at"
	attrOutput     = "output_key"
	attrEmailTo    = "email_to"
	attrLinkBase   = "link_base"
	attrMailQueued = "mail_queued"
	attrReason     = "reason"
	attrCode       = "error_code"
)

func recordKey(key string) store.Key { return store.Key{PK: "RENDER#" + key, SK: "BUILD"} }

// Render answers one request of p for a render of video videoID. base is
// the API's public base URL, for the link an email carries.
func (s *Service) Render(ctx context.Context, p *identity.Principal, videoID string, req Request, base string) (Result, error) {
	const op = "render.Render"
	if p == nil || p.User == nil {
		return Result{}, errs.E(op, errs.Unauthenticated, "Authentication credentials were not provided.")
	}
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	req.Params = req.Normalized()
	v, err := s.cfg.Videos.Get(ctx, videoID)
	if err != nil {
		return Result{}, err // 404: missing or expired (3-day retention), even with a render cached
	}
	if !v.ReadableBy(p) {
		return Result{}, errs.E(op, errs.Forbidden, MsgPrivate)
	}
	if v.SourceType != soundtrack.SourceFile || v.FileKey == "" {
		return Result{}, errs.E(op, errs.Invalid, MsgLinkSourced)
	}
	cat, err := s.cfg.Catalog.Current(ctx)
	if err != nil {
		return Result{}, &errs.Error{Op: op, Kind: errs.Unavailable, Status: 500,
			Detail: "The catalog is temporarily unavailable. Please retry later.", Err: err}
	}
	t, ok := cat.Track(req.TrackID)
	if !ok || !catalog.Visible(string(p.Client.Plan), t) || t.Audio.WAVKey == "" {
		return Result{}, errs.E(op, errs.NotFound, MsgTrackMissing)
	}
	if t.Length > 0 && req.TrackStart >= float64(t.Length) {
		return Result{}, errs.Field(op, "track_start", fmt.Sprintf("Must be inside the track: less than its length, %d seconds.", t.Length))
	}
	emailTo := ""
	if req.SendEmail {
		if emailTo = userAddress(p.User); emailTo == "" {
			return Result{}, errs.Field(op, "send_email", msgNoAddress)
		}
	}
	key := Key(v.ID, req.Params)
	for range 3 { // a lost race re-reads the record
		res, err := s.answer(ctx, key, v, req.Params, emailTo, base)
		if !errors.Is(err, errRaced) {
			return res, err
		}
	}
	return Result{}, errs.E(op, errs.Conflict, "The render changed while answering; send the request again.")
}

// userAddress is where a user's emails go: the username when it is an
// email address (users have no other address field).
func userAddress(u *identity.User) string {
	if mail.IsAddress(u.Username) {
		return u.Username
	}
	return ""
}

var errRaced = errors.New("render: record changed")

// answer reads the build record of key and answers from it, starting a
// build when there is none.
func (s *Service) answer(ctx context.Context, key string, v soundtrack.Video, params Params, emailTo, base string) (Result, error) {
	const op = "render.answer"
	it, err := s.cfg.Store.Get(ctx, store.Jobs, recordKey(key))
	if errors.Is(err, store.ErrNotFound) {
		return s.start(ctx, key, v, params, emailTo, base)
	}
	if err != nil {
		return Result{}, errs.Wrap(op, err)
	}
	build := it.Str(attrBuild)
	switch it.Str(attrStatus) {
	case StatusBuilt:
		_, err := s.cfg.Blob.Head(ctx, it.Str(attrOutput))
		if errors.Is(err, blob.ErrNotFound) { // the output is gone: build again
			if err := s.drop(ctx, key, build); err != nil {
				return Result{}, err
			}
			return Result{}, errRaced
		}
		if err != nil {
			return Result{}, errs.Wrap(op, err)
		}
		// §4.1: same parameters give the same URL. A signed URL changes
		// with every signature (and with the credentials on AWS), so the
		// answer is the render's own link, the one its email carries,
		// which answers 302 to a fresh signed URL while the video lives.
		return Result{Ready: true, URL: linkURL(base, v.ID, key, build)}, nil
	case StatusBuilding:
		if s.cfg.Clock.Now().Sub(it.Time(attrStarted)) > BuildDeadline {
			if err := s.fail(ctx, key, build, CodeTimeout, "The render took too long and was stopped."); err != nil {
				return Result{}, err
			}
			return Result{}, errRaced // now failed: answered below
		}
		s.restartUnstarted(ctx, key, build, it.Time(attrStarted))
		sending := it.Str(attrEmailTo) != ""
		if emailTo != "" && !sending {
			_, err := s.cfg.Store.Update(ctx, store.Jobs, recordKey(key), store.Update{
				Set: map[string]any{attrEmailTo: emailTo, attrLinkBase: base}},
				store.And(store.Equals(attrStatus, StatusBuilding), store.Equals(attrBuild, build), store.AttrNotExists(attrEmailTo)))
			if errors.Is(err, store.ErrConditionFailed) {
				return Result{}, errRaced
			}
			if err != nil {
				return Result{}, errs.Wrap(op, err)
			}
			sending = true
		}
		return Result{SendEmail: sending}, nil
	case StatusFailed:
		// Answered once: the record goes, so the next request builds afresh.
		if err := s.drop(ctx, key, build); err != nil {
			return Result{}, err
		}
		return Result{}, &errs.Error{Op: op, Kind: errs.Unavailable, Code: it.Str(attrCode), Status: 500,
			Detail: "The render failed: " + it.Str(attrReason) + " Send the same request again to start a new render."}
	}
	return Result{}, errs.Wrap(op, fmt.Errorf("render %s: unknown status %q", key, it.Str(attrStatus)))
}

// start creates the build record (conditional: one build per key however
// many requests race) and starts the state machine.
func (s *Service) start(ctx context.Context, key string, v soundtrack.Video, params Params, emailTo, base string) (Result, error) {
	const op = "render.start"
	if s.cfg.Workflow == nil {
		return Result{}, errs.E(op, errs.NotImplemented, "Rendering is not available in this environment.")
	}
	build := s.cfg.IDs.UUID()
	attrs := map[string]any{
		attrStatus: StatusBuilding, attrBuild: build, attrVideo: v.ID, attrTrack: params.TrackID,
		attrVideoVol: params.VideoVolume, attrTrackVol: params.TrackVolume, attrStart: params.TrackStart,
		attrStarted: store.UnixNano(s.cfg.Clock.Now()),
	}
	if emailTo != "" {
		attrs[attrEmailTo], attrs[attrLinkBase] = emailTo, base
	}
	// The record lives as long as the video: a render of an expired
	// upload is gone with it.
	err := s.cfg.Store.Put(ctx, store.Jobs, store.Item{Key: recordKey(key), Attrs: attrs, ExpiresAt: v.ExpiresAt}, store.NotExists())
	if errors.Is(err, store.ErrConditionFailed) {
		return Result{}, errRaced
	}
	if err != nil {
		return Result{}, errs.Wrap(op, err)
	}
	if err := s.cfg.Workflow.Start(ctx, Machine, build, TaskInput{Key: key, BuildID: build}); err != nil {
		// Not started: the record goes so the next request tries again.
		if derr := s.drop(context.WithoutCancel(ctx), key, build); derr != nil {
			s.log.Error("render: dropping an unstarted build", slog.String("key", key), slog.Any("error", derr))
		}
		return Result{}, errs.Wrap(op, err)
	}
	s.log.Info("render started", slog.String("key", key), slog.String("build", build), slog.String("video", v.ID))
	return Result{SendEmail: emailTo != ""}, nil
}

// restartUnstarted starts the execution of a build still building past
// workflow.StartGrace again: a crash between start's write and its Start
// left it without one. The execution name is the build id and the input
// the first start's, so a running or finished execution is not run again
// (Build is a no-op for a build no longer building, and mails once). A
// failure is logged; BuildDeadline still ends a build that never runs.
func (s *Service) restartUnstarted(ctx context.Context, key, build string, started time.Time) {
	if s.cfg.Workflow == nil {
		return
	}
	ok, err := workflow.Restart(ctx, s.cfg.Store, s.cfg.Workflow, s.cfg.Clock.Now(), workflow.Stalled{
		Table: store.Jobs, Key: recordKey(key),
		While: store.And(store.Equals(attrStatus, StatusBuilding), store.Equals(attrBuild, build)), Since: started,
		Machine: Machine, Name: build, Input: TaskInput{Key: key, BuildID: build},
	})
	if err != nil {
		s.log.Error("render: restarting a build", slog.String("key", key), slog.Any("error", err))
	} else if ok {
		s.log.Warn("render: build was not running; started its execution again", slog.String("key", key), slog.String("build", build))
	}
}

// drop deletes the record of build (not a newer one).
func (s *Service) drop(ctx context.Context, key, build string) error {
	err := s.cfg.Store.Delete(ctx, store.Jobs, recordKey(key), store.Equals(attrBuild, build))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return errs.Wrap("render.drop", err)
	}
	return nil
}

// fail ends build as failed (only while it is building).
func (s *Service) fail(ctx context.Context, key, build, code, reason string) error {
	_, err := s.cfg.Store.Update(ctx, store.Jobs, recordKey(key), store.Update{
		Set: map[string]any{attrStatus: StatusFailed, attrCode: code, attrReason: reason}},
		store.And(store.Equals(attrStatus, StatusBuilding), store.Equals(attrBuild, build)))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return errs.Wrap("render.fail", err)
	}
	return nil
}

// signedURL signs the built render's output for URLTTL, saved under the
// video's name with an .mp4 extension.
func (s *Service) signedURL(ctx context.Context, it store.Item, v soundtrack.Video) (string, error) {
	out := it.Str(attrOutput)
	if _, err := s.cfg.Blob.Head(ctx, out); err != nil {
		return "", err
	}
	return s.cfg.Blob.PresignGet(ctx, out, URLTTL, outputName(v.SourceTitle))
}

// outputName is the download's file name: the upload's name with the
// render's extension.
func outputName(title string) string {
	name := blob.BaseName(title)
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if name == "" {
		name = "video"
	}
	return name + "-soundtrack" + outputExt
}

// Link answers the link of a render's email: a fresh signed URL of the
// built render named by link (its key and its build's token, linkPath)
// for video videoID; NotFound when the video expired, the render is not
// built or the token is not its build's.
func (s *Service) Link(ctx context.Context, videoID, link string) (string, error) {
	const op = "render.Link"
	notFound := errs.E(op, errs.NotFound, "This render does not exist or has expired.")
	key, token := link[:min(len(link), 32)], link[min(len(link), 32):]
	if !IsKey(key) || !IsKey(token) {
		return "", notFound
	}
	v, err := s.cfg.Videos.Get(ctx, videoID)
	if err != nil {
		return "", err
	}
	it, err := s.cfg.Store.Get(ctx, store.Jobs, recordKey(key))
	if errors.Is(err, store.ErrNotFound) || err == nil && (it.Str(attrStatus) != StatusBuilt || it.Str(attrVideo) != v.ID) {
		return "", notFound
	}
	if err != nil {
		return "", errs.Wrap(op, err)
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(linkToken(it.Str(attrBuild)))) != 1 {
		return "", notFound
	}
	u, err := s.signedURL(ctx, it, v)
	if errors.Is(err, blob.ErrNotFound) {
		return "", notFound
	}
	return u, errs.Wrap(op, err)
}

// linkPath is the path of a render's link under the API's base: the
// render's key and its build's token. The key alone is no secret (a hash
// of the video id and the parameters, the track and volumes a guess
// away), and the link is served without credentials; the token, derived
// from the build's random id, is what makes the link a capability. It is
// the same for the same parameters while the build lives.
func linkPath(videoID, key, build string) string {
	return "/api/v4/soundtrack/video/" + videoID + "/download/" + key + linkToken(build) + "/"
}

// linkURL is the render's link under base, the API's public base URL.
func linkURL(base, videoID, key, build string) string {
	return strings.TrimRight(base, "/") + linkPath(videoID, key, build)
}
