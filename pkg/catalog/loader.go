package catalog

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"musiccatalog/pkg/blob"
)

// Source gives the catalog snapshot to serve.
type Source interface {
	Current(ctx context.Context) (*Catalog, error)
}

var _ Source = (*Loader)(nil)

// DefaultCheckInterval is how often a Loader re-reads the current-version
// pointer: one small GET per function instance and interval.
const DefaultCheckInterval = 30 * time.Second

// Loader serves the published catalog, picking up a newly published
// version without a restart. It re-reads the pointer at most once per
// check interval, on a request (so an idle Lambda costs nothing); while one
// caller reloads, the others keep getting the snapshot they had. A pointer
// or snapshot that cannot be read leaves the previous snapshot in service.
type Loader struct {
	bs       blob.Store
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger

	mu    sync.Mutex // held while reloading
	state atomic.Pointer[loaded]
}

type loaded struct {
	cat     *Catalog
	checked time.Time
}

// LoaderOption configures a Loader.
type LoaderOption func(*Loader)

// WithCheckInterval sets how long a loaded snapshot is served before the
// pointer is read again (0 checks on every call).
func WithCheckInterval(d time.Duration) LoaderOption {
	return func(l *Loader) { l.interval = d }
}

// WithLoaderClock sets the clock that times the checks.
func WithLoaderClock(now func() time.Time) LoaderOption {
	return func(l *Loader) { l.now = now }
}

// WithLoaderLogger sets where failed reloads are reported.
func WithLoaderLogger(log *slog.Logger) LoaderOption {
	return func(l *Loader) { l.log = log }
}

// NewLoader returns a Loader reading from bs.
func NewLoader(bs blob.Store, opts ...LoaderOption) *Loader {
	l := &Loader{bs: bs, interval: DefaultCheckInterval, now: time.Now, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Current returns the snapshot to serve. Before any snapshot was loaded it
// fails with ErrNoCatalog when nothing was ever published, or with the load
// error; afterwards it always returns a snapshot.
func (l *Loader) Current(ctx context.Context) (*Catalog, error) {
	st := l.state.Load()
	if st != nil && l.now().Sub(st.checked) < l.interval {
		return st.cat, nil
	}
	if st == nil {
		l.mu.Lock()
	} else if !l.mu.TryLock() {
		return st.cat, nil
	}
	defer l.mu.Unlock()
	if cur := l.state.Load(); cur != st { // reloaded while we waited
		return cur.cat, nil
	}
	cat, err := l.reload(ctx, st)
	if err != nil {
		if st == nil {
			return nil, err
		}
		l.log.Warn("catalog reload failed; serving the previous version", "version", st.cat.Version(), "err", err)
		cat = st.cat
	}
	l.state.Store(&loaded{cat: cat, checked: l.now()})
	return cat, nil
}

func (l *Loader) reload(ctx context.Context, st *loaded) (*Catalog, error) {
	p, err := ReadCurrent(ctx, l.bs)
	if err != nil {
		return nil, err
	}
	if st != nil && st.cat.Version() == p.Version {
		return st.cat, nil
	}
	c, err := p.load(ctx, l.bs)
	if err != nil {
		return nil, err
	}
	if st != nil {
		l.log.Info("catalog version loaded", "version", c.Version(), "previous", st.cat.Version(), "tracks", len(c.Tracks()))
	}
	return c, nil
}
