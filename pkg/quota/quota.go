package quota

import (
	"context"
	"errors"
	"fmt"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/store"
)

// Window is the period a counter covers; windows are aligned to UTC
// calendar boundaries, so every subject resets at the same instant.
type Window string

const (
	Daily   Window = "daily"
	Monthly Window = "monthly"
	Minute  Window = "minute"
)

// Usage is the state of one counter.
type Usage struct {
	Scope  string
	Window Window
	Cap    int64
	// Used counts the takes in the current window.
	Used int64
	// ResetsAt is the end of the current window.
	ResetsAt time.Time
}

// Remaining is how many takes the window still allows.
func (u Usage) Remaining() int64 { return max(0, u.Cap-u.Used) }

// ErrExceeded is the cause of every *ExceededError.
var ErrExceeded = errors.New("quota exceeded")

// ExceededError reports a take refused because the window is used up.
type ExceededError struct{ Usage Usage }

func (e *ExceededError) Error() string {
	return fmt.Sprintf("%s %s quota of %d used up until %s", e.Usage.Scope, e.Usage.Window, e.Usage.Cap,
		e.Usage.ResetsAt.Format(time.RFC3339))
}

func (e *ExceededError) Unwrap() error { return ErrExceeded }

// usedAttr holds the count; counterGrace keeps a counter readable a
// little past its window so that late reads (Peek just after a reset
// race) never see a recycled key, and lets DynamoDB TTL delete it after.
const (
	usedAttr     = "used"
	counterGrace = 24 * time.Hour
)

// Counter takes units from counters in the Quotas table.
type Counter struct {
	st    store.Store
	clock clock.Clock
}

// New returns a Counter on st; c decides which window "now" is in.
func New(st store.Store, c clock.Clock) *Counter { return &Counter{st: st, clock: c} }

// Bounds returns the start and end of the window containing t (UTC).
func (w Window) Bounds(t time.Time) (start, end time.Time, err error) {
	t = t.UTC()
	switch w {
	case Daily:
		start = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 1), nil
	case Monthly:
		start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 1, 0), nil
	case Minute:
		start = t.Truncate(time.Minute)
		return start, start.Add(time.Minute), nil
	}
	return time.Time{}, time.Time{}, fmt.Errorf("quota: unknown window %q", w)
}

// key names the counter of one subject in one window period, so a new
// period starts from zero without any reset write.
func key(scope, subject string, w Window, start time.Time) store.Key {
	return store.Key{PK: "QUOTA#" + scope + "#" + subject, SK: string(w) + "#" + start.Format("20060102T1504")}
}

type counterRef struct {
	key   store.Key
	usage Usage
}

func ref(scope, subject string, w Window, cap int64, now time.Time) (counterRef, error) {
	if scope == "" || subject == "" {
		return counterRef{}, errors.New("quota: scope and subject are required")
	}
	start, end, err := w.Bounds(now)
	if err != nil {
		return counterRef{}, err
	}
	return counterRef{key(scope, subject, w, start), Usage{Scope: scope, Window: w, Cap: cap, ResetsAt: end}}, nil
}

// takeUpdate adds one unit when the counter is below cap. A missing
// counter counts as 0, which only a positive cap admits.
func takeUpdate(r counterRef) (store.Update, store.Condition) {
	exp := r.usage.ResetsAt.Add(counterGrace)
	cond := store.LessThan(usedAttr, r.usage.Cap)
	if r.usage.Cap > 0 {
		cond = store.Or(store.AttrNotExists(usedAttr), cond)
	}
	return store.Update{Add: map[string]int64{usedAttr: 1}, ExpiresAt: &exp}, cond
}

// TakeOp returns a transaction op that takes one unit at time now, and the
// counter's usage without Used (known only once the transaction commits).
// The transaction fails with store.ErrConditionFailed when the window is
// used up; Exceeded then tells that apart from the other ops' conditions.
func (c *Counter) TakeOp(scope, subject string, w Window, cap int64, now time.Time) (store.TxOp, Usage) {
	r, err := ref(scope, subject, w, cap, now)
	if err != nil {
		// An invalid op makes the transaction fail with store.ErrInvalid,
		// which surfaces the programming error instead of counting wrongly.
		return store.TxOp{Table: store.Quotas}, Usage{Scope: scope, Window: w, Cap: cap}
	}
	u, cond := takeUpdate(r)
	return store.TxUpdate(store.Quotas, r.key, u, cond), r.usage
}

// Take takes one unit now, or returns an *ExceededError when the window is
// used up.
func (c *Counter) Take(ctx context.Context, scope, subject string, w Window, cap int64) (Usage, error) {
	r, err := ref(scope, subject, w, cap, c.clock.Now())
	if err != nil {
		return Usage{}, err
	}
	u, cond := takeUpdate(r)
	it, err := c.st.Update(ctx, store.Quotas, r.key, u, cond)
	if errors.Is(err, store.ErrConditionFailed) {
		return c.exceeded(ctx, r)
	}
	if err != nil {
		return Usage{}, fmt.Errorf("quota: take: %w", err)
	}
	r.usage.Used = it.Int(usedAttr)
	return r.usage, nil
}

// Peek returns the usage now without taking anything.
func (c *Counter) Peek(ctx context.Context, scope, subject string, w Window, cap int64) (Usage, error) {
	r, err := ref(scope, subject, w, cap, c.clock.Now())
	if err != nil {
		return Usage{}, err
	}
	return c.peek(ctx, r)
}

func (c *Counter) peek(ctx context.Context, r counterRef) (Usage, error) {
	it, err := c.st.Get(ctx, store.Quotas, r.key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return r.usage, nil
	case err != nil:
		return Usage{}, fmt.Errorf("quota: peek: %w", err)
	}
	r.usage.Used = it.Int(usedAttr)
	return r.usage, nil
}

// Exceeded is called after a transaction holding TakeOp(…, now) failed its
// conditions: it returns an *ExceededError when that window is used up,
// and nil when the quota was not the reason (another op's condition).
func (c *Counter) Exceeded(ctx context.Context, scope, subject string, w Window, cap int64, now time.Time) error {
	r, err := ref(scope, subject, w, cap, now)
	if err != nil {
		return err
	}
	u, err := c.peek(ctx, r)
	if err != nil {
		return err
	}
	if u.Used < u.Cap {
		return nil
	}
	return &ExceededError{Usage: u}
}

// GiveBack returns the unit a take at time now took, for a caller whose
// paid-for work could not start after the take committed.
func (c *Counter) GiveBack(ctx context.Context, scope, subject string, w Window, now time.Time) error {
	r, err := ref(scope, subject, w, 0, now)
	if err != nil {
		return err
	}
	u, cond := giveBackUpdate()
	_, err = c.st.Update(ctx, store.Quotas, r.key, u, cond)
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return fmt.Errorf("quota: give back: %w", err)
	}
	return nil
}

// GiveBackOp returns a transaction op that gives back the unit a take at
// time now took, so the unit comes back in the same write as the change
// that earns it back (never twice, never lost to a crash in between).
// The op's condition fails when the window's counter is gone (expired):
// there is nothing left to give back, and the caller writes its change
// alone.
func (c *Counter) GiveBackOp(scope, subject string, w Window, now time.Time) store.TxOp {
	r, err := ref(scope, subject, w, 0, now)
	if err != nil {
		return store.TxOp{Table: store.Quotas} // invalid: the transaction fails with store.ErrInvalid
	}
	u, cond := giveBackUpdate()
	return store.TxUpdate(store.Quotas, r.key, u, cond)
}

func giveBackUpdate() (store.Update, store.Condition) {
	return store.Update{Add: map[string]int64{usedAttr: -1}}, store.AttrExists(usedAttr)
}

func (c *Counter) exceeded(ctx context.Context, r counterRef) (Usage, error) {
	u, err := c.peek(ctx, r)
	if err != nil {
		return Usage{}, err
	}
	// The condition failed, so the counter reached the cap; a concurrent
	// window change cannot lower it, only the key.
	u.Used = max(u.Used, u.Cap)
	return u, &ExceededError{Usage: u}
}
