package licensing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
)

// Quota defaults for a partnership without its own (interface.md §8 does
// not show the values; gaps.md's examples are 1000 a day and 30000 a
// month). The burst limit counts licenses per calendar minute.
const (
	DefaultBurst   = 60
	DefaultDaily   = 1000
	DefaultMonthly = 30000
	BurstWindow    = quota.Minute
)

// QuotaScope names the license counters in the Quotas table.
const QuotaScope = identity.ScopeLicenses

// commitAttempts bounds how often Generate retries a transaction that
// failed for neither an existing license nor a used-up quota (contention
// on the client's counters, a window turning over between the write and
// the check, an id collision).
const commitAttempts = 4

// IDSource makes license ids: 32 lower-case hex characters from a CSPRNG
// (ids.Random); tests inject a deterministic one.
type IDSource interface{ Hex32() string }

// Limits are a partnership's license quotas.
type Limits struct{ Burst, Daily, Monthly int64 }

// Config holds a Service's dependencies; zero optional fields take defaults.
type Config struct {
	Store    store.Store
	Catalog  catalog.Source
	Clock    clock.Clock // default clock.Real
	IDs      IDSource    // default ids.Random
	Log      *slog.Logger
	Defaults Limits // per field, zero means the Default* constant
}

// Service issues and reads licenses.
type Service struct {
	st       store.Store
	catalog  catalog.Source
	clock    clock.Clock
	ids      IDSource
	log      *slog.Logger
	quota    *quota.Counter
	defaults Limits
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Catalog == nil {
		return nil, errors.New("licensing: Store and Catalog are required")
	}
	s := &Service{st: cfg.Store, catalog: cfg.Catalog, clock: cfg.Clock, ids: cfg.IDs, log: cfg.Log, defaults: cfg.Defaults}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.ids == nil {
		s.ids = ids.Random{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.defaults.Burst = orDefault(s.defaults.Burst, DefaultBurst)
	s.defaults.Daily = orDefault(s.defaults.Daily, DefaultDaily)
	s.defaults.Monthly = orDefault(s.defaults.Monthly, DefaultMonthly)
	s.quota = quota.New(s.st, s.clock)
	return s, nil
}

func orDefault(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

// LimitsOf returns the client's quotas: its own where set, else the defaults.
func (s *Service) LimitsOf(c identity.Client) Limits {
	return Limits{
		Burst:   orDefault(c.Quotas.LicenseBurst, s.defaults.Burst),
		Daily:   orDefault(c.Quotas.LicenseDaily, s.defaults.Daily),
		Monthly: orDefault(c.Quotas.LicenseMonthly, s.defaults.Monthly),
	}
}

// quotaWindow is one window of a license quota: the counter of subject
// (a client, or an API key for the burst) in window w, capped at cap.
type quotaWindow struct {
	subject string
	w       quota.Window
	cap     int64
}

// windows pairs each quota window with its limit and the subject it
// counts, in the order a caller would hit them: the burst per key (the
// client's when key is empty), the daily and monthly quotas per client.
func (l Limits) windows(clientID, key string) []quotaWindow {
	burst := clientID
	if key != "" {
		burst = clientID + "/key/" + key
	}
	return []quotaWindow{{burst, BurstWindow, l.Burst}, {clientID, quota.Daily, l.Daily}, {clientID, quota.Monthly, l.Monthly}}
}

// Result is what Generate returns.
type Result struct {
	License License
	Usage   Usage
	// Created is false when an identical earlier call made the license.
	Created bool
}

// Generate returns the license of (client, user, track, project),
// issuing it when it does not exist yet. Errors: validation_error (all
// bad fields at once), track_not_found (unknown, or not licensable on the
// client's plan), throttled (a wrapped *quota.ExceededError, the window
// that resets last).
func (s *Service) Generate(ctx context.Context, c identity.Client, in Input) (Result, error) {
	const op = "licensing.Generate"
	in, fields := in.normalize()
	if fields != nil {
		return Result{}, ValidationError(op, fields)
	}
	key := idemKey(c.ID, in)
	limits := s.LimitsOf(c)
	// A repeat reads the license it made and counts nothing.
	if l, err := s.byKey(ctx, key); err == nil {
		return s.result(ctx, c.ID, limits, l, false)
	} else if !errors.Is(err, store.ErrNotFound) {
		return Result{}, errs.Wrap(op, err)
	}
	t, err := s.licensableTrack(ctx, c, in.TrackID)
	if err != nil {
		return Result{}, err
	}
	var last error
	for range commitAttempts {
		now := s.clock.Now()
		l := License{ID: s.ids.Hex32(), ClientID: c.ID, ClientName: c.Name, UserID: in.UserID,
			TrackID: in.TrackID, TrackName: t.DisplayName(), ArtistName: t.Artist.Name,
			ProjectName: in.ProjectName, CreatedAt: now}
		ops := writeOps(l, key)
		for _, w := range limits.windows(c.ID, in.Key) {
			take, _ := s.quota.TakeOp(QuotaScope, w.subject, w.w, w.cap, now)
			ops = append(ops, take)
		}
		err := s.st.Transact(ctx, ops)
		last = err
		if err == nil {
			s.log.Info("license issued", "license", l.ID, "client", c.ID, "track", l.TrackID)
			return s.result(ctx, c.ID, limits, l, true)
		}
		if errors.Is(err, store.ErrContention) {
			// Every call of a client writes its quota counters: under a
			// burst they collide, and the store's retries may run out.
			s.log.Warn("license transaction contended; retrying", "client", c.ID, "err", err)
			continue
		}
		if !errors.Is(err, store.ErrConditionFailed) {
			return Result{}, errs.Wrap(op, err)
		}
		// An identical call won the race: its license is ours too.
		if l, err := s.byKey(ctx, key); err == nil {
			return s.result(ctx, c.ID, limits, l, false)
		} else if !errors.Is(err, store.ErrNotFound) {
			return Result{}, errs.Wrap(op, err)
		}
		if qerr, err := s.exceeded(ctx, limits.windows(c.ID, in.Key), now); err != nil {
			return Result{}, errs.Wrap(op, err)
		} else if qerr != nil {
			return Result{}, s.throttled(ctx, op, c.ID, limits, qerr)
		}
	}
	return Result{}, errs.Wrap(op, fmt.Errorf("license not committed after %d attempts: %w", commitAttempts, last))
}

// licensableTrack returns the catalog track, or track_not_found when it
// does not exist or the client's plan does not cover it (§7.3 "not
// licensable for the account": a license is proof of the right to use,
// which only a plan covering the track gives).
func (s *Service) licensableTrack(ctx context.Context, c identity.Client, id string) (*catalog.Track, error) {
	const op = "licensing.track"
	cat, err := s.catalog.Current(ctx)
	if err != nil {
		return nil, &errs.Error{Op: op, Kind: errs.Unavailable, Err: err,
			Detail: "The catalog is temporarily unavailable. Please retry with backoff."}
	}
	t, ok := cat.Track(id)
	if !ok || !catalog.Covers(string(c.Plan), t) {
		return nil, &errs.Error{Op: op, Kind: errs.NotFound, Code: CodeTrackNotFound,
			Detail: "Track not found or not licensable for this account."}
	}
	return t, nil
}

// exceeded returns the used-up window that resets last (retrying before
// then would fail again), or nil when no quota is used up.
func (s *Service) exceeded(ctx context.Context, windows []quotaWindow, now time.Time) (*quota.ExceededError, error) {
	var worst *quota.ExceededError
	for _, w := range windows {
		err := s.quota.Exceeded(ctx, QuotaScope, w.subject, w.w, w.cap, now)
		var qe *quota.ExceededError
		switch {
		case errors.As(err, &qe):
			if worst == nil || qe.Usage.ResetsAt.After(worst.Usage.ResetsAt) {
				worst = qe
			}
		case err != nil:
			return nil, err
		}
	}
	return worst, nil
}

// Throttled is the cause of a throttled error: the used-up window that
// resets last and the client's current usage, which the 429 carries
// (interface.md §8: "current usage is in usage"). It unwraps to the
// *quota.ExceededError.
type Throttled struct {
	Quota *quota.ExceededError
	Usage Usage
}

func (t *Throttled) Error() string { return t.Quota.Error() }
func (t *Throttled) Unwrap() error { return t.Quota }

func (s *Service) throttled(ctx context.Context, op, clientID string, l Limits, qe *quota.ExceededError) error {
	u, err := s.Usage(ctx, clientID, l)
	if err != nil {
		return errs.Wrap(op, err)
	}
	q := qe.Usage
	return &errs.Error{Op: op, Kind: errs.RateLimited, Code: CodeThrottled, Err: &Throttled{Quota: qe, Usage: u},
		Detail: fmt.Sprintf("The %s license limit of %d is reached; it resets at %s.",
			windowName(q.Window), q.Cap, q.ResetsAt.UTC().Format(time.RFC3339))}
}

func windowName(w quota.Window) string {
	if w == BurstWindow {
		return "burst (per minute)"
	}
	return string(w)
}

// result adds the client's current usage to a license.
func (s *Service) result(ctx context.Context, clientID string, l Limits, lic License, created bool) (Result, error) {
	u, err := s.Usage(ctx, clientID, l)
	if err != nil {
		return Result{}, err
	}
	return Result{License: lic, Usage: u, Created: created}, nil
}

// Usage returns the client's daily and monthly counts and limits.
func (s *Service) Usage(ctx context.Context, clientID string, l Limits) (Usage, error) {
	d, err := s.quota.Peek(ctx, QuotaScope, clientID, quota.Daily, l.Daily)
	if err != nil {
		return Usage{}, errs.Wrap("licensing.Usage", err)
	}
	m, err := s.quota.Peek(ctx, QuotaScope, clientID, quota.Monthly, l.Monthly)
	if err != nil {
		return Usage{}, errs.Wrap("licensing.Usage", err)
	}
	return Usage{DailyUsed: d.Used, MonthlyUsed: m.Used, DailyLimit: l.Daily, MonthlyLimit: l.Monthly}, nil
}

func (s *Service) byKey(ctx context.Context, k store.Key) (License, error) {
	it, err := s.st.Get(ctx, store.Licenses, k)
	if err != nil {
		return License{}, err
	}
	return decode(it)
}

// licenseIDRE is the shape of every license id: anything else is unknown
// without a read.
var licenseIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// ValidID reports whether s has the shape of a license id.
func ValidID(s string) bool { return licenseIDRE.MatchString(s) }

func licenseNotFound(op string) error {
	return &errs.Error{Op: op, Kind: errs.NotFound, Code: CodeLicenseNotFound, Detail: "License not found."}
}

// Get returns a license of the client; other clients' licenses are not
// found, like unknown ones.
func (s *Service) Get(ctx context.Context, clientID, id string) (License, error) {
	const op = "licensing.Get"
	l, err := s.Public(ctx, id)
	if err != nil {
		return License{}, err
	}
	if l.ClientID != clientID {
		return License{}, licenseNotFound(op)
	}
	return l, nil
}

// Public returns any license by id: the license page is public proof.
func (s *Service) Public(ctx context.Context, id string) (License, error) {
	const op = "licensing.Public"
	id = strings.ToLower(id) // hex: ABC… names the same license as abc… (ids are issued lower case)
	if !ValidID(id) {
		return License{}, licenseNotFound(op)
	}
	l, err := s.byKey(ctx, licenseKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return License{}, licenseNotFound(op)
	}
	if err != nil {
		return License{}, errs.Wrap(op, err)
	}
	return l, nil
}
