package soundtrack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"regexp"
	"strings"
	"time"

	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
)

// Blob key layout under UploadPrefix.
const (
	// UploadsPrefix holds presigned uploads: UploadsPrefix + client id +
	// "/" + uuid + "/" + file name.
	UploadsPrefix = UploadPrefix + "uploads/"
	// mediaPrefix holds files sent in the create call, by content hash,
	// so the same file is stored once.
	mediaPrefix = UploadPrefix + "media/"
)

// Config holds a Service's dependencies; zero optional fields take defaults.
type Config struct {
	Store    store.Store
	Blob     blob.Store
	Analyzer Analyzer
	// Fetcher fetches links; nil means links cannot be analyzed here
	// (creating a video from a URL and searching by link answer 501).
	Fetcher VideoFetcher
	Clock   clock.Clock // default clock.Real
	IDs     ids.Source  // default ids.Random
	Log     *slog.Logger
	// TempDir holds uploads and fetched media while they are analyzed
	// (default os.TempDir(), /tmp in Lambda).
	TempDir string
	// Parallel bounds the analyses running at once in this process
	// (default 2: each runs two ffmpeg processes).
	Parallel int
}

// Service creates and reads SoundtrackVideos and keeps one analysis per
// source value.
type Service struct {
	st       store.Store
	blob     blob.Store
	analyzer Analyzer
	fetcher  VideoFetcher
	clock    clock.Clock
	ids      ids.Source
	log      *slog.Logger
	tempDir  string
	slots    chan struct{}
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Blob == nil || cfg.Analyzer == nil {
		return nil, errors.New("soundtrack: Store, Blob and Analyzer are required")
	}
	s := &Service{st: cfg.Store, blob: cfg.Blob, analyzer: cfg.Analyzer, fetcher: cfg.Fetcher,
		clock: cfg.Clock, ids: cfg.IDs, log: cfg.Log, tempDir: cfg.TempDir}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.ids == nil {
		s.ids = ids.Random{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	n := cfg.Parallel
	if n <= 0 {
		n = 2
	}
	s.slots = make(chan struct{}, n)
	return s, nil
}

// CanFetchLinks reports whether a VideoFetcher is configured.
func (s *Service) CanFetchLinks() bool { return s.fetcher != nil }

// Upload is a file received for analysis, spooled to local disk and
// hashed on the way.
type Upload struct {
	path        string
	Name        string // the client's file name
	ContentType string
	Size        int64
	// Hash is the source_value: the first 128 bits of the SHA-256 of the
	// content, in hex, so the same file always gives the same value.
	Hash string
}

// Close removes the spooled file.
func (u *Upload) Close() error {
	if u == nil || u.path == "" {
		return nil
	}
	return os.Remove(u.path)
}

// Spool reads a file of at most MaxFileSize bytes to local disk. Too
// large and empty files are field errors on `file`.
func (s *Service) Spool(r io.Reader, name, contentType string) (*Upload, error) {
	const op = "soundtrack.Spool"
	f, err := os.CreateTemp(s.tempDir, "soundtrack-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, MaxFileSize+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	u := &Upload{path: f.Name(), Name: name, ContentType: contentType, Size: n, Hash: hex.EncodeToString(h.Sum(nil)[:16])}
	switch {
	case err != nil:
		u.Close()
		return nil, err // the HTTP layer turns a too-large body into its own error
	case n > MaxFileSize:
		u.Close()
		return nil, errs.Field(op, "file", MsgFileSize)
	case n == 0:
		u.Close()
		return nil, errs.Field(op, "file", MsgEmptyFile)
	}
	return u, nil
}

// CreateInput is one create call: exactly one of File, StorageKey and URL.
type CreateInput struct {
	File       *Upload
	StorageKey *string
	URL        *string
	Public     bool
	// RequestID, when set, names this create the same way for every
	// retry of it (idempotency.Claim.RequestID, from the request's
	// Idempotency-Key): it becomes the video's id, so a retry whose first
	// run stored the video but lost its answer returns that video instead
	// of analyzing and storing a second one.
	RequestID string
}

// Create analyzes the video and stores a SoundtrackVideo of it. A video
// that cannot be analyzed is a 422 (errs.Unprocessable with the decoder's
// error_code) and nothing is stored.
func (s *Service) Create(ctx context.Context, p *identity.Principal, in CreateInput) (Video, error) {
	const op = "soundtrack.Create"
	if p == nil {
		return Video{}, errs.E(op, errs.Unauthenticated, "Authentication credentials were not provided.")
	}
	hasFile := in.File != nil || in.StorageKey != nil
	switch {
	case in.File != nil && in.StorageKey != nil:
		return Video{}, errs.E(op, errs.Invalid, MsgBothUpload)
	case hasFile && in.URL != nil:
		return Video{}, errs.E(op, errs.Invalid, MsgBoth)
	case !hasFile && in.URL == nil:
		return Video{}, errs.E(op, errs.Invalid, MsgNeither)
	}
	now := s.clock.Now()
	id, prior, err := s.createID(ctx, p, in.RequestID, now)
	if err != nil {
		return Video{}, errs.Wrap(op, err)
	}
	if prior != nil {
		s.log.Info("soundtrack create retried; returning the video it created", "video", prior.ID)
		return *prior, nil
	}
	v := Video{ID: id, CreatedBy: p.ID(), ClientID: p.Client.ID, Public: in.Public,
		CreatedAt: now, ExpiresAt: now.Add(Retention)}
	switch {
	case in.URL != nil:
		err = s.fromLink(ctx, &v, *in.URL)
	case in.StorageKey != nil:
		err = s.fromStorageKey(ctx, &v, p.Client.ID, *in.StorageKey)
	default:
		err = s.fromUpload(ctx, &v, in.File, mediaKey(in.File.Hash, path.Ext(in.File.Name)))
	}
	if err != nil {
		return Video{}, err
	}
	ops := append([]store.TxOp{store.TxPut(store.Jobs, videoItem(v), store.NotExists())}, grantOps(v)...)
	if err := s.st.Transact(ctx, ops); err != nil {
		if errors.Is(err, store.ErrConditionFailed) && v.ID == in.RequestID {
			// Another run of this very request stored it meanwhile.
			if _, prior, perr := s.createID(ctx, p, in.RequestID, now); perr == nil && prior != nil {
				return *prior, nil
			}
		}
		return Video{}, errs.Wrap(op, err)
	}
	s.log.Info("soundtrack video created", "video", v.ID, "source_type", v.SourceType)
	return v, nil
}

// createID is idempotency.CreateID over the caller's videos.
func (s *Service) createID(ctx context.Context, p *identity.Principal, requestID string, now time.Time) (string, *Video, error) {
	return idempotency.CreateID(ctx, requestID, p.ID(), now, s.ids.UUID,
		func(ctx context.Context, id string) (Video, idempotency.Earlier, bool, error) {
			it, err := s.st.Get(ctx, store.Jobs, videoKey(id))
			if errors.Is(err, store.ErrNotFound) {
				return Video{}, idempotency.Earlier{}, false, nil
			}
			if err != nil {
				return Video{}, idempotency.Earlier{}, false, err
			}
			v := videoFromItem(id, it)
			return v, idempotency.Earlier{Owner: v.CreatedBy, Created: v.CreatedAt}, true, nil
		})
}

func mediaKey(hash, ext string) string { return mediaPrefix + hash + strings.ToLower(ext) }

// fromUpload analyzes a spooled file (unless its content was analyzed
// before), stores the media under key, and fills v.
func (s *Service) fromUpload(ctx context.Context, v *Video, u *Upload, key string) error {
	const op = "soundtrack.fromUpload"
	a, err := s.cachedAnalysis(ctx, fileValueKey(u.Hash), kindFull)
	if err != nil {
		if a, err = s.analyze(ctx, u.path, true); err != nil {
			return err
		}
	}
	// Written even when the key exists: the write restarts the bucket's
	// lifecycle clock, so the media outlives this record.
	f, err := os.Open(u.path)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = s.blob.Put(ctx, key, f, u.Size, u.ContentType)
	f.Close()
	if err != nil {
		return errs.Wrap(op, err)
	}
	if err := s.putAnalysis(ctx, fileValueKey(u.Hash), kindFull, u.Hash, key, a); err != nil {
		return errs.Wrap(op, err)
	}
	v.SourceType, v.SourceValue, v.SourceTitle, v.FileKey = SourceFile, u.Hash, u.Name, key
	return nil
}

// fromStorageKey takes a file the client PUT to a presigned upload URL.
func (s *Service) fromStorageKey(ctx context.Context, v *Video, clientID, key string) error {
	const op = "soundtrack.fromStorageKey"
	if !strings.HasPrefix(key, UploadsPrefix+clientID+"/") || blob.ValidateKey(key) != nil {
		return errs.Field(op, "storage_key", "No uploaded file at this key; PUT the file to the upload URL first.")
	}
	rc, attrs, err := s.blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return errs.Field(op, "storage_key", "No uploaded file at this key; PUT the file to the upload URL first.")
	}
	if err != nil {
		return errs.Wrap(op, err)
	}
	defer rc.Close()
	if attrs.Size > MaxFileSize {
		return errs.Field(op, "storage_key", MsgFileSize)
	}
	u, err := s.Spool(rc, path.Base(key), attrs.ContentType)
	if err != nil {
		if e := (*errs.Error)(nil); errors.As(err, &e) && e.Fields != nil {
			return errs.Field(op, "storage_key", e.Fields["file"][0])
		}
		return errs.Wrap(op, err)
	}
	defer u.Close()
	// The media is stored under its content hash, as a multipart upload's
	// is: the upload URL stays valid for a while, and a second PUT to it
	// must not change what this video's file and source_value stand for.
	return s.fromUpload(ctx, v, u, mediaKey(u.Hash, path.Ext(key)))
}

// fromLink analyzes a YouTube video (once per video) and fills v.
func (s *Service) fromLink(ctx context.Context, v *Video, raw string) error {
	const op = "soundtrack.fromLink"
	l, err := ParseYouTubeVideo(raw)
	if err != nil {
		return errs.E(op, errs.Invalid, MsgBadURL)
	}
	a, err := s.linkAnalysis(ctx, l, false)
	if err != nil {
		return err
	}
	title := a.Title
	if title == "" {
		title = l.URL
	}
	v.SourceType, v.SourceValue, v.SourceTitle = SourceYouTube, l.URL, title
	return nil
}

// Get returns a SoundtrackVideo; missing, expired and malformed ids are
// all errs.NotFound. Whether the caller may read it is ReadableBy's call.
func (s *Service) Get(ctx context.Context, id string) (Video, error) {
	const op = "soundtrack.Get"
	notFound := errs.E(op, errs.NotFound, "Soundtrack video not found or expired; upload it again.")
	id, ok := ids.CanonicalUUID(id)
	if !ok {
		return Video{}, notFound
	}
	it, err := s.st.Get(ctx, store.Jobs, videoKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return Video{}, notFound
	}
	if err != nil {
		return Video{}, errs.Wrap(op, err)
	}
	return videoFromItem(id, it), nil
}

// FileURL is a signed URL of an uploaded video's media ("" for links).
func (s *Service) FileURL(ctx context.Context, v Video, ttl time.Duration) (string, error) {
	if v.FileKey == "" {
		return "", nil
	}
	// Titles are cleaned on the way in; BaseName again keeps a record
	// stored before that from failing every read.
	return s.blob.PresignGet(ctx, v.FileKey, ttl, blob.BaseName(v.SourceTitle))
}

var hashRE = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// IsHash reports whether value is shaped like an uploaded file's source_value.
func IsHash(value string) bool { return hashRE.MatchString(value) }

// ErrBadLink is returned by AnalysisFor for a value that is neither a
// hash nor a link to an allowlisted platform.
var ErrBadLink = errors.New("soundtrack: not a link to a supported platform")

// AnalysisFor returns the analysis of a source value: the content hash
// of an uploaded file (errs.NotFound when no upload has it, it expired,
// or viewer may not use it: see access.go) or a link, fetched and
// analyzed on first use. viewer is the caller's principal id ("" when
// anonymous). audioOnly is enough for by-url, which compares sound alone;
// by-video also wants the picture. Analyses are cached per value, so a
// value always gives the same analysis while it lives.
func (s *Service) AnalysisFor(ctx context.Context, value, viewer string, audioOnly bool) (Analysis, error) {
	const op = "soundtrack.AnalysisFor"
	if IsHash(value) {
		hash := strings.ToLower(value)
		ok, err := s.mayUseHash(ctx, hash, viewer)
		if err != nil {
			return Analysis{}, errs.Wrap(op, err)
		}
		if !ok {
			return Analysis{}, errUnknownHash(op)
		}
		return s.fileAnalysis(ctx, hash)
	}
	l, err := ParseLink(value)
	if err != nil {
		return Analysis{}, fmt.Errorf("%s: %w: %v", op, ErrBadLink, err)
	}
	return s.linkAnalysis(ctx, l, audioOnly)
}

// errUnknownHash answers a hash no upload has, one that expired, and one
// the caller may not use, alike.
func errUnknownHash(op string) error {
	return errs.E(op, errs.NotFound, "No uploaded video you may use has this value (a private video's value works only for its creator, signed in with their token), or it expired; upload the video again with POST /api/v4/soundtrack/video/.")
}

// fileAnalysis is the cached analysis of an uploaded file, redone from
// the stored media when the analyzer changed since.
func (s *Service) fileAnalysis(ctx context.Context, hash string) (Analysis, error) {
	const op = "soundtrack.fileAnalysis"
	vk := fileValueKey(hash)
	it, err := s.st.Get(ctx, store.Jobs, analysisKey(vk, kindFull))
	if errors.Is(err, store.ErrNotFound) {
		return Analysis{}, errUnknownHash(op)
	}
	if err != nil {
		return Analysis{}, errs.Wrap(op, err)
	}
	if a, ok := s.decodeAnalysis(it); ok {
		return a, nil
	}
	key := it.Str(attrFileKey)
	rc, attrs, err := s.blob.Get(ctx, key)
	if err != nil {
		return Analysis{}, errs.Wrap(op, fmt.Errorf("media of %s: %w", hash, err))
	}
	defer rc.Close()
	u, err := s.Spool(rc, path.Base(key), attrs.ContentType)
	if err != nil {
		return Analysis{}, errs.Wrap(op, err)
	}
	defer u.Close()
	a, err := s.analyze(ctx, u.path, true)
	if err != nil {
		return Analysis{}, err
	}
	if err := s.putAnalysisUntil(ctx, vk, kindFull, hash, key, a, it.ExpiresAt); err != nil {
		return Analysis{}, errs.Wrap(op, err)
	}
	return a, nil
}

// linkAnalysis is the cached analysis of a link, fetched and analyzed on
// a miss. A full analysis (with the picture) also serves audio-only asks.
func (s *Service) linkAnalysis(ctx context.Context, l Link, audioOnly bool) (Analysis, error) {
	const op = "soundtrack.linkAnalysis"
	vk := linkValueKey(l)
	if a, err := s.cachedAnalysis(ctx, vk, kindFull); err == nil {
		return a, nil
	}
	kind := kindFull
	if audioOnly {
		kind = kindAudio
		if a, err := s.cachedAnalysis(ctx, vk, kindAudio); err == nil {
			return a, nil
		}
	}
	if s.fetcher == nil {
		return Analysis{}, errs.E(op, errs.NotImplemented, "Fetching links is not configured in this environment; upload the video file instead.")
	}
	dir, err := os.MkdirTemp(s.tempDir, "fetch-*")
	if err != nil {
		return Analysis{}, fmt.Errorf("%s: %w", op, err)
	}
	defer os.RemoveAll(dir)
	m, err := s.fetcher.Fetch(ctx, l, dir, audioOnly)
	if err != nil {
		return Analysis{}, err
	}
	a, err := s.analyze(ctx, m.Path, !audioOnly)
	if err != nil {
		return Analysis{}, err
	}
	a.Title = m.Title
	if err := s.putAnalysis(ctx, vk, kind, l.Canonical, "", a); err != nil {
		return Analysis{}, errs.Wrap(op, err)
	}
	return a, nil
}

// analyze runs the analyzer within the process's slots; input it cannot
// use is the 422 of interface.md §7.2 with the decoder's error_code.
func (s *Service) analyze(ctx context.Context, path string, picture bool) (Analysis, error) {
	const op = "soundtrack.analyze"
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return Analysis{}, ctx.Err()
	}
	defer func() { <-s.slots }()
	start := time.Now()
	a, err := s.analyzer.Analyze(ctx, path, picture)
	if err != nil {
		var de *decode.Error
		if errors.As(err, &de) {
			return Analysis{}, &errs.Error{Op: op, Kind: errs.Unprocessable, Code: de.Code(),
				Detail: "The video cannot be analyzed: " + de.Detail(), Err: err}
		}
		return Analysis{}, errs.Wrap(op, err)
	}
	s.log.Info("video analyzed", "seconds", a.Seconds, "music_seconds", a.MusicSeconds,
		"picture", a.Picture != nil, "took", time.Since(start))
	return a, nil
}

// Items in the Jobs table.
const (
	attrType      = "source_type"
	attrValue     = "source_value"
	attrTitle     = "source_title"
	attrFileKey   = "file_key"
	attrCreatedBy = "created_by"
	attrClient    = "client_id"
	attrPublic    = "public"
	attrCreated   = "created_at"
	attrDoc       = "analysis"

	kindFull  = "FULL"  // audio and picture
	kindAudio = "AUDIO" // audio only (by-url)
)

func videoKey(id string) store.Key { return store.Key{PK: "SOUNDTRACK#" + id, SK: "VIDEO"} }

func analysisKey(valueKey, kind string) store.Key {
	return store.Key{PK: "SOUNDTRACK-ANALYSIS#" + valueKey, SK: kind}
}

func fileValueKey(hash string) string { return "file:" + hash }

// linkValueKey hashes the canonical link: links can be longer than a key
// may be.
func linkValueKey(l Link) string {
	h := sha256.Sum256([]byte(l.Canonical))
	return "link:" + hex.EncodeToString(h[:16])
}

func videoItem(v Video) store.Item {
	return store.Item{Key: videoKey(v.ID), ExpiresAt: v.ExpiresAt, Attrs: map[string]any{
		attrType: v.SourceType, attrValue: v.SourceValue, attrTitle: v.SourceTitle, attrFileKey: v.FileKey,
		attrCreatedBy: v.CreatedBy, attrClient: v.ClientID, attrPublic: v.Public, attrCreated: store.UnixNano(v.CreatedAt),
	}}
}

func videoFromItem(id string, it store.Item) Video {
	return Video{ID: id, SourceType: it.Str(attrType), SourceValue: it.Str(attrValue), SourceTitle: it.Str(attrTitle),
		FileKey: it.Str(attrFileKey), CreatedBy: it.Str(attrCreatedBy), ClientID: it.Str(attrClient),
		Public: it.Bool(attrPublic), CreatedAt: it.Time(attrCreated), ExpiresAt: it.ExpiresAt}
}

// cachedAnalysis returns a stored analysis of the current analyzer version.
func (s *Service) cachedAnalysis(ctx context.Context, valueKey, kind string) (Analysis, error) {
	it, err := s.st.Get(ctx, store.Jobs, analysisKey(valueKey, kind))
	if err != nil {
		return Analysis{}, err
	}
	if a, ok := s.decodeAnalysis(it); ok {
		return a, nil
	}
	return Analysis{}, store.ErrNotFound
}

func (s *Service) decodeAnalysis(it store.Item) (Analysis, bool) {
	var a Analysis
	if err := json.Unmarshal(it.Bytes(attrDoc), &a); err != nil || a.Version != s.analyzer.Version() {
		return Analysis{}, false
	}
	return a, true
}

func (s *Service) putAnalysis(ctx context.Context, valueKey, kind, value, fileKey string, a Analysis) error {
	return s.putAnalysisUntil(ctx, valueKey, kind, value, fileKey, a, s.clock.Now().Add(Retention))
}

func (s *Service) putAnalysisUntil(ctx context.Context, valueKey, kind, value, fileKey string, a Analysis, until time.Time) error {
	doc, err := json.Marshal(a)
	if err != nil {
		return err
	}
	attrs := map[string]any{attrDoc: doc, attrValue: value}
	if fileKey != "" {
		attrs[attrFileKey] = fileKey
	}
	return s.st.Put(ctx, store.Jobs, store.Item{Key: analysisKey(valueKey, kind), Attrs: attrs, ExpiresAt: until}, nil)
}
