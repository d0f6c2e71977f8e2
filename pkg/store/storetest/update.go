package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/store"
)

func testUpdate(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("upd", "x")

	created, err := f.s.Update(ctx, store.Jobs, k, store.Update{
		Set: attrs("name", "first", "size", 3, "ratio", 0.5),
		Add: map[string]int64{"count": 2},
	}, nil)
	wantOK(t, "Update creating the item", err)
	want := store.Item{Key: k, Attrs: attrs("name", "first", "size", int64(3), "ratio", 0.5, "count", int64(2))}
	assertItem(t, created, want)
	f.wantItem(t, store.Jobs, want)

	changed, err := f.s.Update(ctx, store.Jobs, k, store.Update{
		Set:    attrs("name", "second", "flag", true),
		Add:    map[string]int64{"count": 5, "fresh": -3, "ratio": 1},
		Remove: []string{"size", "never-there"},
	}, store.Exists())
	wantOK(t, "Update of an existing item", err)
	want = store.Item{Key: k, Attrs: attrs("name", "second", "flag", true, "count", int64(7), "fresh", int64(-3), "ratio", 1.5)}
	assertItem(t, changed, want)
	f.wantItem(t, store.Jobs, want)

	unchanged, err := f.s.Update(ctx, store.Jobs, k, store.Update{}, nil)
	wantOK(t, "empty Update", err)
	assertItem(t, unchanged, want)

	bare := f.key("upd", "bare")
	got, err := f.s.Update(ctx, store.Jobs, bare, store.Update{}, nil)
	wantOK(t, "empty Update of a missing item", err)
	assertItem(t, got, store.Item{Key: bare})
	f.wantItem(t, store.Jobs, store.Item{Key: bare})
}

func testUpdateConditions(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("updc", "x")
	_, err := f.s.Update(ctx, store.Jobs, k, store.Update{Set: attrs("a", 1)}, store.Exists())
	wantErr(t, "Update Exists of a missing item", err, store.ErrConditionFailed)
	f.wantAbsent(t, store.Jobs, k)

	_, err = f.s.Update(ctx, store.Jobs, k, store.Update{Set: attrs("a", 1)}, store.NotExists())
	wantOK(t, "Update NotExists of a missing item", err)

	_, err = f.s.Update(ctx, store.Jobs, k, store.Update{Set: attrs("a", 2)}, store.NotExists())
	wantErr(t, "Update NotExists of a present item", err, store.ErrConditionFailed)
	_, err = f.s.Update(ctx, store.Jobs, k, store.Update{Set: attrs("a", 2)}, store.Equals("a", 5))
	wantErr(t, "Update with false Equals", err, store.ErrConditionFailed)
	f.wantItem(t, store.Jobs, store.Item{Key: k, Attrs: attrs("a", int64(1))})

	got, err := f.s.Update(ctx, store.Jobs, k, store.Update{Set: attrs("a", 2)}, store.Equals("a", 1))
	wantOK(t, "Update with true Equals", err)
	assertItem(t, got, store.Item{Key: k, Attrs: attrs("a", int64(2))})
}

func testUpdateExpiry(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("updx", "x")
	exp := future()
	got, err := f.s.Update(ctx, store.Quotas, k, store.Update{Add: map[string]int64{"n": 1}, ExpiresAt: &exp}, nil)
	wantOK(t, "Update setting an expiry", err)
	want := store.Item{Key: k, Attrs: attrs("n", int64(1)), ExpiresAt: seconds(exp)}
	assertItem(t, got, want)
	f.wantItem(t, store.Quotas, want)

	got, err = f.s.Update(ctx, store.Quotas, k, store.Update{Add: map[string]int64{"n": 1}}, nil)
	wantOK(t, "Update leaving the expiry", err)
	want.Attrs["n"] = int64(2)
	assertItem(t, got, want)

	got, err = f.s.Update(ctx, store.Quotas, k, store.Update{ExpiresAt: &time.Time{}}, nil)
	wantOK(t, "Update clearing the expiry", err)
	want.ExpiresAt = time.Time{}
	assertItem(t, got, want)
	f.wantItem(t, store.Quotas, want)

	gone := past()
	_, err = f.s.Update(ctx, store.Quotas, k, store.Update{ExpiresAt: &gone}, nil)
	wantOK(t, "Update expiring the item", err)
	f.wantAbsent(t, store.Quotas, k)
}

const goroutines = 50

func testConcurrentCounter(t *testing.T, f *fixture) {
	k := f.key("counter", "hits")
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for range goroutines {
		wg.Go(func() {
			_, err := f.s.Update(t.Context(), store.Quotas, k, store.Update{Add: map[string]int64{"n": 1}}, nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		wantOK(t, "concurrent Add", err)
	}
	if n := f.mustGet(t, store.Quotas, k).Attrs["n"]; n != int64(goroutines) {
		t.Errorf("counter = %#v after %d concurrent increments", n, goroutines)
	}
}

// testConcurrentCappedCounter is the quota pattern: add one unless the
// cap is reached, atomically.
func testConcurrentCappedCounter(t *testing.T, f *fixture) {
	const limit = 20
	k := f.key("counter", "capped")
	var wg sync.WaitGroup
	var mu sync.Mutex
	successes, refusals := 0, 0
	for range goroutines {
		wg.Go(func() {
			_, err := f.s.Update(t.Context(), store.Quotas, k,
				store.Update{Add: map[string]int64{"n": 1}},
				store.Or(store.AttrNotExists("n"), store.LessThan("n", limit)))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				successes++
			case errors.Is(err, store.ErrConditionFailed):
				refusals++
			default:
				t.Errorf("capped Add: %v", err)
			}
		})
	}
	wg.Wait()
	if successes != limit || refusals != goroutines-limit {
		t.Errorf("%d successes and %d refusals, want %d and %d", successes, refusals, limit, goroutines-limit)
	}
	if n := f.mustGet(t, store.Quotas, k).Attrs["n"]; n != int64(limit) {
		t.Errorf("capped counter = %#v, want %d", n, limit)
	}
}
