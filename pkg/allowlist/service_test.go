package allowlist_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// removedOnConflict is a store where a remove of the item lands just
// after an add's conditional write found it there (once).
type removedOnConflict struct {
	store.Store
	done   atomic.Bool
	remove func() error
}

func (r *removedOnConflict) Transact(ctx context.Context, ops []store.TxOp) error {
	err := r.Store.Transact(ctx, ops)
	if errors.Is(err, store.ErrConditionFailed) && r.done.CompareAndSwap(false, true) {
		if derr := r.remove(); derr != nil {
			return derr
		}
	}
	return err
}

var yt = allowlist.AddInput{Provider: "youtube", ChannelID: "UCabcdefghijklmnopqrstuv"}

// TestAddRacingARemoveStillAdds: an add that finds the channel listed and
// then not (a remove in between) adds it, instead of a 500.
func TestAddRacingARemoveStillAdds(t *testing.T) {
	twintest.Run(t, func(t *testing.T, inner store.Store) {
		ctx := t.Context()
		st := &removedOnConflict{Store: inner}
		svc := allowlist.New(st, clock.Real{})
		o := allowlist.Owner{ClientID: "c1"}
		first, created, err := svc.Add(ctx, o, yt)
		if err != nil || !created {
			t.Fatalf("first add: %v %v", created, err)
		}
		st.remove = func() error { return svc.Remove(ctx, o, first.ID) }
		again, created, err := svc.Add(ctx, o, yt)
		if err != nil || !created || again.ID != first.ID {
			t.Fatalf("add racing a remove: %+v created=%v %v", again, created, err)
		}
		if list, n, err := svc.List(ctx, o, 50, 0); err != nil || n != 1 || list[0].ID != first.ID {
			t.Fatalf("list: %v %d %v", list, n, err)
		}
	})
}

// TestConcurrentAddsAndRemovesStayConsistent: adds and removes of one
// channel at once never fail other than "not found" for a remove, adds
// of one channel name one entry, and the list ends with at most it.
func TestConcurrentAddsAndRemovesStayConsistent(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		svc := allowlist.New(st, clock.Real{})
		o := allowlist.Owner{ClientID: "c1", EndUser: "u 1"}
		first, _, err := svc.Add(ctx, o, yt)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		fails := make(chan error, 64)
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					c, _, err := svc.Add(ctx, o, yt)
					if err == nil && c.ID != first.ID {
						err = errors.New("another id for the same channel: " + c.ID)
					}
					if err != nil {
						fails <- err
					}
				} else if err := svc.Remove(ctx, o, first.ID); err != nil && !errs.Is(err, errs.NotFound) {
					fails <- err
				}
			}()
		}
		wg.Wait()
		close(fails)
		for err := range fails {
			t.Error(err)
		}
		if list, n, err := svc.List(ctx, o, 50, 0); err != nil || n > 1 || len(list) != n || (n == 1 && list[0].ID != first.ID) {
			t.Fatalf("list: %v %d %v", list, n, err)
		}
	})
}

// alwaysRemoved is a store where every add's conditional write finds the
// channel and the read after it does not (a remove in between, each time).
type alwaysRemoved struct{ store.Store }

func (alwaysRemoved) Transact(context.Context, []store.TxOp) error {
	return store.ErrConditionFailed
}

func (a alwaysRemoved) Get(ctx context.Context, t store.Table, k store.Key) (store.Item, error) {
	if t == store.Accounts {
		return store.Item{}, store.ErrNotFound
	}
	return a.Store.Get(ctx, t, k)
}

// TestAddOutOfAttemptsIsUnavailableWithRetryAfter: an add that keeps
// losing to removes ends in 503 with Retry-After (a transient failure;
// §7.2 lists no 429 for the allowlist), not a 429 without it.
func TestAddOutOfAttemptsIsUnavailableWithRetryAfter(t *testing.T) {
	svc := allowlist.New(alwaysRemoved{twintest.Bolt(t)}, clock.Real{})
	_, _, err := svc.Add(t.Context(), allowlist.Owner{ClientID: "c1"}, yt)
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Unavailable || e.RetryAfter <= 0 {
		t.Fatalf("add out of attempts: %#v; want Unavailable with RetryAfter", err)
	}
}

func channel(i int) allowlist.AddInput {
	return allowlist.AddInput{Provider: "youtube", ChannelID: fmt.Sprintf("UCabcdefghijklmnopqrst%02d", i)}
}

// TestAllowlistHoldsAtMostMaxChannels: concurrent adds of distinct
// channels stop exactly at the cap (the count is kept in each add's
// transaction, not counted before it); an add over it is 400 with the
// reason and writes nothing; a repeated add of a listed channel still
// answers its entry; a remove makes room again.
func TestAllowlistHoldsAtMostMaxChannels(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		svc := allowlist.New(st, clock.Real{})
		allowlist.SetMaxChannels(svc, 3)
		o := allowlist.Owner{ClientID: "c1", EndUser: "creator"}
		var wg sync.WaitGroup
		var added atomic.Int64
		fails := make(chan error, 12)
		for i := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, created, err := svc.Add(ctx, o, channel(i))
				switch {
				case err == nil && created:
					added.Add(1)
				case errs.Is(err, errs.Invalid):
				default:
					fails <- fmt.Errorf("add %d: created=%v %v", i, created, err)
				}
			}()
		}
		wg.Wait()
		close(fails)
		for err := range fails {
			t.Error(err)
		}
		list, n, err := svc.List(ctx, o, 50, 0)
		if err != nil || n != 3 || added.Load() != 3 {
			t.Fatalf("after 12 concurrent adds: %d listed, %d added (%v); want 3", n, added.Load(), err)
		}
		var e *errs.Error
		_, _, err = svc.Add(ctx, o, channel(99))
		if !errors.As(err, &e) || e.Kind != errs.Invalid || !strings.Contains(e.Detail, "3 channels") {
			t.Fatalf("add over the cap: %#v", err)
		}
		if c, created, err := svc.Add(ctx, o, allowlist.AddInput{Provider: "youtube", ChannelID: list[0].ChannelID}); err != nil || created || c.ID != list[0].ID {
			t.Errorf("repeated add at the cap: %+v %v %v", c, created, err)
		}
		if err := svc.Remove(ctx, o, list[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, created, err := svc.Add(ctx, o, channel(99)); err != nil || !created {
			t.Errorf("add after a remove: %v %v", created, err)
		}
		if _, n, _ := svc.List(ctx, o, 50, 0); n != 3 {
			t.Errorf("%d listed, want 3", n)
		}
		if _, n, _ := svc.List(ctx, allowlist.Owner{ClientID: "c1"}, 50, 0); n != 0 {
			t.Errorf("the client's own list: %d, want 0 (each list has its own cap)", n)
		}
	})
}
