package search

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// Pagination limits of the search endpoints (interface.md §4.2, §8).
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Tuning limits (interface.md §8, gaps.md by-url/by-id).
const (
	DefaultBPMRange = 5.0 // bpm_range default
	// ExactBPMRange is what bpm_range=0 means: the same tempo, give or
	// take the rounding of an analyzed BPM. Options.BPMRange 0 stays "not
	// asked for" (the default), so the HTTP layer passes an explicit 0 as
	// this instead of letting it fall back to 5 silently.
	ExactBPMRange = 0.5
	MaxBPMRange   = 100.0 // bpm_range maximum
	MinTimeLimit  = 1.0   // time_limit bounds, seconds
	MaxTimeLimit  = 60.0
)

// Options are the parameters every search shares: who asks, which page,
// the filters, and the tuning a given endpoint accepts (the zero value of
// a tuning field means "not asked for").
type Options struct {
	// Plan is the caller's plan ("" when anonymous): it decides which
	// tracks are visible at all (catalog.Visible).
	Plan string
	// UserID is the signed-in end user ("" for anonymous callers and
	// partner keys), whose playlists fill Result.PlaylistIDs.
	UserID  string
	Filters Filters
	Limit   int // page size, 1..MaxLimit (0 = DefaultLimit)
	Offset  int // index of the first result

	// Highlights fills Hit.Highlights (by-prompt, by-url, by-id, by-video).
	Highlights bool
	// TimeOffset and TimeLimit bound the window highlights are taken from
	// (seconds; TimeLimit 0 = to the end of the track).
	TimeOffset, TimeLimit float64
	// BPMRange is the tempo tolerance in BPM (DefaultBPMRange when 0).
	BPMRange float64
	// PrioritiseBPM ranks tracks within BPMRange of the reference tempo
	// ahead of the others (by-id, by-url).
	PrioritiseBPM bool
	// SuppressVocals leaves out tracks with vocals (by-id, by-url).
	SuppressVocals bool
}

// AudioQuery describes reference audio (a song behind a link, the music in a video).
type AudioQuery struct {
	Features   *features.Features // raw analysis of the reference audio; nil when none
	TempoHint  float64            // BPM suggested by the picture; 0 = none
	EnergyHint float64            // 0..1 suggested by the picture; negative = none
	ExcludeID  string             // a catalog track to leave out; "" = none
}

// Hit is one ranked track.
type Hit struct {
	Track *catalog.Track
	// Score orders the hits (higher is better); only comparable within
	// one result.
	Score float64
	// Highlights are the track's hook regions inside the requested window
	// when Options.Highlights was set; nil otherwise.
	Highlights []catalog.Region
}

// Result is one page of a search.
type Result struct {
	Hits []Hit
	// Total is how many tracks matched (after filters), of which Hits is
	// the page [Offset, Offset+Limit).
	Total int
	// DidYouMean maps a filter parameter whose value looks like a typo to
	// the value it probably meant, written as the parameter takes it
	// ("genre": "Rock", "mood__terms": "Happy__Calm"); nil when none.
	DidYouMean map[string]string
	// PlaylistIDs are the caller's playlists (owned or shared) that hold
	// tracks of the page (by-text, by-prompt); empty when none, for an
	// anonymous caller or a partner key, or without a PlaylistFinder.
	PlaylistIDs []string
}

// PlaylistFinder finds the user's playlists that hold any of the given
// tracks (best first); the playlists domain implements it.
type PlaylistFinder interface {
	PlaylistsHolding(ctx context.Context, userID string, trackIDs []string) ([]string, error)
}

// Errors a search returns besides field errors (errs.Invalid).
var (
	// ErrUnavailable: no catalog snapshot (never published, storage down
	// at cold start) or the index could not be built. The HTTP layer
	// answers the spec's 500 {detail}.
	ErrUnavailable = errors.New("search: ranking backend unavailable")
)

// MsgNotTrackUUID answers a client track_id that is not a UUID (the HTTP
// layer checks it too, with the other parameters, so that one 400 names
// every bad one).
const MsgNotTrackUUID = "Must be a valid track UUID (or pass input_id_type=system for a short id or ISRC)."

// msgUnavailable is the client-visible text of ErrUnavailable (§7.2 Search 500).
const msgUnavailable = "The music search service is temporarily unavailable. Please retry with backoff."

func unavailable(op string, cause error) error {
	// Status 500, not Unavailable's 503: the spec's §7.2 row for search.
	return &errs.Error{Op: op, Kind: errs.Unavailable, Status: 500,
		Detail: msgUnavailable, Err: errors.Join(ErrUnavailable, cause)}
}

// retiredIndexGrace is how long a replaced index stays open for the
// searches still running on it.
const retiredIndexGrace = time.Minute

// Service answers searches over the current catalog snapshot.
type Service struct {
	src       catalog.Source
	playlists PlaylistFinder
	log       *slog.Logger
	prebuilt  blob.Store // where published text indexes are (nil: build them)
	emb       TextEmbedder

	mu  sync.Mutex // held while an index is built
	cur atomic.Pointer[Index]
}

// Option configures a Service.
type Option func(*Service)

// WithPlaylists sets the port that fills Result.PlaylistIDs.
func WithPlaylists(p PlaylistFinder) Option { return func(s *Service) { s.playlists = p } }

// WithLogger sets where index rebuilds and playlist failures are logged.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithPrebuilt loads each version's text index from bs, where ingestion
// published it with the snapshot (TextIndexArtifact), instead of building
// it; a version without one is indexed in memory as before.
func WithPrebuilt(bs blob.Store) Option { return func(s *Service) { s.prebuilt = bs } }

// NewService returns a Service over src.
func NewService(src catalog.Source, opts ...Option) *Service {
	s := &Service{src: src, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(s)
	}
	if s.emb == nil {
		s.emb = DefaultEmbedder()
	}
	return s
}

// Index returns the index of the current snapshot, building it when the
// snapshot version changed. While a new version is being indexed, other
// callers keep searching the previous index; only the very first build
// makes callers wait.
func (s *Service) Index(ctx context.Context) (*Index, error) {
	const op = "search.Index"
	if s == nil || s.src == nil {
		return nil, unavailable(op, errors.New("no catalog source configured"))
	}
	cat, err := s.src.Current(ctx)
	if err != nil {
		return nil, unavailable(op, err)
	}
	if ix := s.cur.Load(); ix != nil && ix.cat.Version() == cat.Version() {
		return ix, nil
	}
	if ix := s.cur.Load(); ix != nil {
		if !s.mu.TryLock() {
			return ix, nil // someone is building the new version
		}
	} else {
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if ix := s.cur.Load(); ix != nil && ix.cat.Version() == cat.Version() {
		return ix, nil
	}
	ix, err := s.newIndex(ctx, cat)
	if err != nil {
		if old := s.cur.Load(); old != nil {
			s.log.Error("search index build failed; serving the previous version", "version", cat.Version(), "err", err)
			return old, nil
		}
		return nil, unavailable(op, err)
	}
	s.log.Info("search index built", "version", cat.Version(), "tracks", len(cat.Tracks()))
	if old := s.cur.Swap(ix); old != nil {
		// Searches that picked the old index up a moment ago may still be
		// running; a search takes milliseconds, so a minute is plenty.
		time.AfterFunc(retiredIndexGrace, func() { _ = old.Close() })
	}
	return ix, nil
}

// newIndex loads the snapshot's published text index, or builds one.
func (s *Service) newIndex(ctx context.Context, cat *catalog.Catalog) (*Index, error) {
	if s.prebuilt != nil {
		ix, err := newIndex(cat, s.emb, func() (*textIndex, error) { return loadTextIndex(ctx, s.prebuilt, cat) })
		if err == nil {
			return ix, nil
		}
		if !errors.Is(err, blob.ErrNotFound) {
			s.log.Warn("published text index unusable; building it", "version", cat.Version(), "err", err)
		}
	}
	return newIndex(cat, s.emb, func() (*textIndex, error) { return newTextIndex(cat.Tracks()) })
}

// ByText ranks tracks for a natural-language description (by-text and,
// with Options.Highlights and the time window, by-prompt).
func (s *Service) ByText(ctx context.Context, text string, opts Options) (Result, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return Result{}, err
	}
	res, err := ix.ByText(ctx, text, opts)
	if err != nil {
		return Result{}, err
	}
	s.addPlaylists(ctx, opts.UserID, &res)
	return res, nil
}

// ByID ranks tracks similar to the catalog track id (by-id): our UUID, or
// with system set the track's short id or ISRC (gaps.md input_id_type).
// The seed is never in its results. An id that is not a catalog track
// visible to the caller is errs.NotFound.
func (s *Service) ByID(ctx context.Context, id string, system bool, opts Options) (Result, error) {
	const op = "search.ByID"
	if !system && !IsTrackUUID(strings.TrimSpace(id)) {
		return Result{}, errs.Field(op, "track_id", MsgNotTrackUUID)
	}
	ix, err := s.Index(ctx)
	if err != nil {
		return Result{}, err
	}
	// Filters before the lookup: a bad filter value is the caller's 400
	// whatever the id.
	if err := opts.Filters.checkKnown(op, ix.known, false); err != nil {
		return Result{}, err
	}
	seed, ok := ix.Lookup(id, opts.Plan, system)
	if !ok {
		return Result{}, errs.E(op, errs.NotFound, "Track not found.")
	}
	return ix.SimilarTo(seed, opts)
}

// CheckFilterValues reports the genre, subgenre and mood values of f the
// catalog does not have, as the searches do: with suggest (by-text and
// by-prompt, whose response has did_you_mean) a near miss is no error.
// The search endpoints call it when other parameters are bad, so that one
// 400 names every bad parameter; a catalog that cannot be loaded reports
// nothing here.
func (s *Service) CheckFilterValues(ctx context.Context, f Filters, suggest bool) error {
	ix, err := s.Index(ctx)
	if err != nil {
		return nil
	}
	return f.checkKnown("search.CheckFilterValues", ix.known, suggest)
}

// ByAudio ranks tracks similar to reference audio (by-url, by-video).
func (s *Service) ByAudio(ctx context.Context, q AudioQuery, opts Options) (Result, error) {
	ix, err := s.Index(ctx)
	if err != nil {
		return Result{}, err
	}
	return ix.ByAudio(q, opts)
}

// addPlaylists fills PlaylistIDs from the port; a failing port costs the
// caller the playlists, not the search.
func (s *Service) addPlaylists(ctx context.Context, userID string, res *Result) {
	res.PlaylistIDs = []string{}
	if s.playlists == nil || userID == "" || len(res.Hits) == 0 {
		return
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.Track.ID
	}
	found, err := s.playlists.PlaylistsHolding(ctx, userID, ids)
	if err != nil {
		s.log.Warn("playlist overlap lookup failed", "err", err)
		return
	}
	if found != nil {
		res.PlaylistIDs = found
	}
}
