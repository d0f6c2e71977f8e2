package quota_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
)

func newCounter(t *testing.T, c clock.Clock) (*quota.Counter, store.Store) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "q.db"), boltstore.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return quota.New(st, c), st
}

func TestConcurrentTakesNeverExceedTheCap(t *testing.T) {
	c := clock.NewManual(time.Date(2030, 5, 17, 13, 0, 0, 0, time.UTC))
	q, _ := newCounter(t, c)
	const cap, callers = 20, 50
	var ok, exceeded, other int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			_, err := q.Take(context.Background(), "compliance_check", "client-1", quota.Daily, cap)
			mu.Lock()
			defer mu.Unlock()
			var qe *quota.ExceededError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &qe) && errors.Is(err, quota.ErrExceeded):
				exceeded++
				if qe.Usage.Used != cap || qe.Usage.Cap != cap {
					t.Errorf("exceeded usage = %+v", qe.Usage)
				}
			default:
				other++
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok != cap || exceeded != callers-cap {
		t.Fatalf("ok=%d exceeded=%d other=%d; want %d and %d", ok, exceeded, other, cap, callers-cap)
	}
	u, err := q.Peek(context.Background(), "compliance_check", "client-1", quota.Daily, cap)
	if err != nil || u.Used != cap {
		t.Fatalf("Peek = %+v, %v", u, err)
	}
}

func TestWindowsResetAtUTCBoundaries(t *testing.T) {
	start := time.Date(2030, 1, 31, 23, 59, 30, 0, time.UTC)
	cases := []struct {
		w     quota.Window
		reset time.Time
	}{
		{quota.Minute, time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)},
		{quota.Daily, time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)},
		{quota.Monthly, time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		t.Run(string(tc.w), func(t *testing.T) {
			c := clock.NewManual(start)
			q, _ := newCounter(t, c)
			ctx := context.Background()
			for i := 1; i <= 2; i++ {
				u, err := q.Take(ctx, "s", "sub", tc.w, 2)
				if err != nil || u.Used != int64(i) || !u.ResetsAt.Equal(tc.reset) {
					t.Fatalf("take %d = %+v, %v", i, u, err)
				}
			}
			if _, err := q.Take(ctx, "s", "sub", tc.w, 2); !errors.Is(err, quota.ErrExceeded) {
				t.Fatalf("third take: %v", err)
			}
			// Another subject and another scope have their own counters.
			if _, err := q.Take(ctx, "s", "other", tc.w, 2); err != nil {
				t.Fatal(err)
			}
			if _, err := q.Take(ctx, "s2", "sub", tc.w, 2); err != nil {
				t.Fatal(err)
			}
			c.Advance(29 * time.Second) // one second before the reset
			if _, err := q.Take(ctx, "s", "sub", tc.w, 2); !errors.Is(err, quota.ErrExceeded) {
				t.Fatalf("take before reset: %v", err)
			}
			c.Advance(time.Second)
			u, err := q.Take(ctx, "s", "sub", tc.w, 2)
			if err != nil || u.Used != 1 {
				t.Fatalf("take after reset = %+v, %v", u, err)
			}
		})
	}
}

func TestZeroCapAdmitsNothing(t *testing.T) {
	q, _ := newCounter(t, clock.NewManual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)))
	if _, err := q.Take(context.Background(), "s", "sub", quota.Daily, 0); !errors.Is(err, quota.ErrExceeded) {
		t.Fatalf("take at cap 0: %v", err)
	}
}

func TestTakeOpIsAtomicWithTheOtherWrites(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	c := clock.NewManual(now)
	q, st := newCounter(t, c)
	ctx := context.Background()
	other := store.Key{PK: "JOB#1", SK: "JOB"}
	if err := st.Put(ctx, store.Jobs, store.Item{Key: other, Attrs: map[string]any{"a": 1}}, nil); err != nil {
		t.Fatal(err)
	}
	// The job write fails (it already exists): the unit must not be taken.
	op, u := q.TakeOp("s", "sub", quota.Daily, 1, now)
	err := st.Transact(ctx, []store.TxOp{op, store.TxPut(store.Jobs, store.Item{Key: other}, store.NotExists())})
	if !errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("transact: %v", err)
	}
	if err := q.Exceeded(ctx, "s", "sub", quota.Daily, 1, now); err != nil {
		t.Fatalf("Exceeded after a foreign condition failure: %v", err)
	}
	if p, _ := q.Peek(ctx, "s", "sub", quota.Daily, 1); p.Used != 0 || !p.ResetsAt.Equal(u.ResetsAt) {
		t.Fatalf("usage after failed transaction = %+v", p)
	}
	// Now it commits, and the next one is refused for the quota.
	fresh := store.Key{PK: "JOB#2", SK: "JOB"}
	if err := st.Transact(ctx, []store.TxOp{op, store.TxPut(store.Jobs, store.Item{Key: fresh}, store.NotExists())}); err != nil {
		t.Fatal(err)
	}
	op, _ = q.TakeOp("s", "sub", quota.Daily, 1, now)
	third := store.Key{PK: "JOB#3", SK: "JOB"}
	if err := st.Transact(ctx, []store.TxOp{op, store.TxPut(store.Jobs, store.Item{Key: third}, store.NotExists())}); !errors.Is(err, store.ErrConditionFailed) {
		t.Fatalf("over-cap transact: %v", err)
	}
	var qe *quota.ExceededError
	if err := q.Exceeded(ctx, "s", "sub", quota.Daily, 1, now); !errors.As(err, &qe) || qe.Usage.Used != 1 {
		t.Fatalf("Exceeded = %v", err)
	}
	if _, err := st.Get(ctx, store.Jobs, third); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("job written past the quota: %v", err)
	}
	// A unit given back can be taken again.
	if err := q.GiveBack(ctx, "s", "sub", quota.Daily, now); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Take(ctx, "s", "sub", quota.Daily, 1); err != nil {
		t.Fatalf("take after give back: %v", err)
	}
}

func TestCountersExpireAfterTheirWindow(t *testing.T) {
	c := clock.NewManual(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))
	q, st := newCounter(t, c)
	ctx := context.Background()
	if _, err := q.Take(ctx, "s", "sub", quota.Minute, 5); err != nil {
		t.Fatal(err)
	}
	c.Advance(48 * time.Hour)
	if n, err := st.(*boltstore.Store).Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("sweep removed %d, %v; want the expired counter", n, err)
	}
}
