package allowlist_test

import (
	"context"
	"errors"
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
// after an add's conditional put found it there (once).
type removedOnConflict struct {
	store.Store
	done atomic.Bool
}

func (r *removedOnConflict) Put(ctx context.Context, t store.Table, it store.Item, cond store.Condition) error {
	err := r.Store.Put(ctx, t, it, cond)
	if errors.Is(err, store.ErrConditionFailed) && r.done.CompareAndSwap(false, true) {
		if derr := r.Store.Delete(ctx, t, it.Key, nil); derr != nil {
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
