package playlists_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/store"
)

// failingPuts makes the next playlist record write fail (mode):
// "committed", a timeout after the store committed it (the answer lost);
// "late", a timeout with the write still in flight (pending, committed by
// the test after the service gave up); "contended", store.ErrContention on
// every attempt (a definite failure: nothing written).
type failingPuts struct {
	store.Store
	armed   atomic.Bool
	mode    string
	pending store.Item
}

func (f *failingPuts) Put(ctx context.Context, t store.Table, it store.Item, cond store.Condition) error {
	if t != store.Playlists || it.SK != "META" || !f.armed.Load() {
		return f.Store.Put(ctx, t, it, cond)
	}
	timeout := errors.New("operation error DynamoDB: PutItem: context deadline exceeded")
	switch f.mode {
	case "committed":
		f.armed.Store(false)
		if err := f.Store.Put(ctx, t, it, cond); err != nil {
			return err
		}
		return timeout
	case "late":
		f.armed.Store(false)
		f.pending = it
		return timeout
	}
	return store.ErrContention
}

// TestFailedCoverUpdateKeepsTheCoverItWrote: an update with a new cover
// whose write fails ambiguously must not delete the new cover's blobs,
// neither when the write committed before the failure was seen (the
// replaced cover goes instead) nor when it commits after the service
// re-read the record (before, the re-read did not show it and the blobs
// were deleted under the playlist). A definite failure (contention to the
// last attempt) leaves no blob of the new cover and keeps the old one.
func TestFailedCoverUpdateKeepsTheCoverItWrote(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []string{"committed", "late", "contended"} {
				st := &failingPuts{Store: inner, mode: mode}
				f := newFixture(t, st, 2)
				ctx := t.Context()
				v, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Cover"})
				if err != nil {
					t.Fatal(err)
				}
				first, err := f.svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: encodePNG(t, 64, 48)})
				if err != nil {
					t.Fatal(err)
				}
				st.armed.Store(true)
				if _, err := f.svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: encodePNG(t, 80, 40)}); err == nil {
					t.Fatalf("%s: the failing write was not reported", mode)
				}
				st.armed.Store(false)
				if mode == "late" { // the write in flight lands now
					if err := inner.Put(ctx, store.Playlists, st.pending, nil); err != nil {
						t.Fatal(err)
					}
				}
				got, err := f.svc.Get(ctx, f.owner, v.Slug)
				if err != nil {
					t.Fatal(err)
				}
				if (got.Image.Large != first.Image.Large) != (mode != "contended") {
					t.Fatalf("%s: cover after the failed update %s (first %s)", mode, got.Image.Large, first.Image.Large)
				}
				list, err := f.blob.List(ctx, "playlists/"+v.ID+"/")
				if err != nil {
					t.Fatal(err)
				}
				var keys []string
				for _, a := range list {
					keys = append(keys, a.Key)
				}
				want := []string{got.Image.Small, got.Image.Medium, got.Image.Large}
				if mode == "late" { // the replaced cover is left over (an orphan)
					want = append(want, first.Image.Small, first.Image.Medium, first.Image.Large)
				}
				slices.Sort(keys)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("%s: stored cover blobs %v, want %v", mode, keys, want)
				}
			}
		})
	}
}

// contendedDeletes makes every transaction deleting a playlist collide
// (store.ErrContention), cancelling cancel at the first one.
type contendedDeletes struct {
	store.Store
	armed  atomic.Bool
	calls  atomic.Int64
	cancel context.CancelFunc
}

func (c *contendedDeletes) Transact(ctx context.Context, ops []store.TxOp) error {
	if !c.armed.Load() {
		return c.Store.Transact(ctx, ops)
	}
	if c.calls.Add(1) == 1 && c.cancel != nil {
		c.cancel()
	}
	return store.ErrContention
}

// TestContendedDeleteBacksOff: a Delete whose transaction keeps colliding
// waits between attempts like mutate (a caller that gives up during the
// wait stops it: one attempt, the context's error; before, the attempts
// ran back to back), and running out of attempts says when to retry.
func TestContendedDeleteBacksOff(t *testing.T) {
	st := &contendedDeletes{Store: bolt(t)}
	f := newFixture(t, st, 2)
	v, _, err := f.svc.Create(t.Context(), f.owner, playlists.CreateInput{Name: "Busy"})
	if err != nil {
		t.Fatal(err)
	}
	st.armed.Store(true)
	ctx, cancel := context.WithCancel(t.Context())
	st.cancel = cancel
	if err := f.svc.Delete(ctx, f.owner, v.Slug); !errors.Is(err, context.Canceled) || st.calls.Load() != 1 {
		t.Errorf("cancelled while waiting: %v after %d attempts; want context.Canceled after 1", err, st.calls.Load())
	}
	st.cancel = nil
	err = f.svc.Delete(t.Context(), f.owner, v.Slug)
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.RateLimited || e.RetryAfter <= 0 {
		t.Errorf("out of attempts: %#v; want RateLimited with RetryAfter", err)
	}
}
