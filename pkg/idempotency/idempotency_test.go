package idempotency_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/store/dynamostore"
)

// backends runs f on the bolt twin and, when TEST_DYNAMODB_ENDPOINT is
// set (bash infra/local/with-stack.sh), on DynamoDB Local.
func backends(t *testing.T, f func(t *testing.T, st store.Store, c *clock.Manual)) {
	t.Run("bolt", func(t *testing.T) {
		c := clock.NewManual(time.Date(2030, 5, 17, 13, 0, 0, 0, time.UTC))
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), boltstore.WithClock(c.Now))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st, c)
	})
	t.Run("dynamodb", func(t *testing.T) {
		ep := os.Getenv("TEST_DYNAMODB_ENDPOINT")
		if ep == "" {
			if os.Getenv("CI") == "true" {
				t.Fatal("TEST_DYNAMODB_ENDPOINT is not set")
			}
			t.Skip("TEST_DYNAMODB_ENDPOINT is not set; run under bash infra/local/with-stack.sh")
		}
		c := clock.NewManual(time.Date(2030, 5, 17, 13, 0, 0, 0, time.UTC))
		st := dynamostore.New(dynamostore.LocalClient(ep, ""), dynamostore.TableNames("idem-"+rand.Text()[:10]+"-"), dynamostore.WithClock(c.Now))
		if err := st.CreateTables(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.DeleteTables(context.Background()) })
		f(t, st, c)
	})
}

var created = idempotency.Response{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"job_id":"j1"}`)}

func TestReplayMismatchAndRelease(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store, c *clock.Manual) {
		ctx := context.Background()
		s := idempotency.New(st, c)
		claim, resp, err := s.Acquire(ctx, "client:a", "k1", "fp1", time.Second)
		if err != nil || claim == nil || resp != nil {
			t.Fatalf("first Acquire = %v, %v, %v", claim, resp, err)
		}
		// While it runs: the same request waits and then is told so; another body is refused at once.
		if _, _, err := s.Acquire(ctx, "client:a", "k1", "fp1", 50*time.Millisecond); !errors.Is(err, idempotency.ErrInProgress) {
			t.Errorf("concurrent same request: %v", err)
		}
		if _, _, err := s.Acquire(ctx, "client:a", "k1", "fp2", time.Hour); !errors.Is(err, idempotency.ErrMismatch) {
			t.Errorf("concurrent other request: %v", err)
		}
		if err := claim.Complete(ctx, created); err != nil {
			t.Fatal(err)
		}
		c.Advance(idempotency.Retention - time.Second)
		claim2, resp, err := s.Acquire(ctx, "client:a", "k1", "fp1", time.Second)
		if err != nil || claim2 != nil || resp == nil || resp.Status != 201 || string(resp.Body) != string(created.Body) ||
			resp.Header["Content-Type"][0] != "application/json" {
			t.Fatalf("replay = %v, %+v, %v", claim2, resp, err)
		}
		if _, _, err := s.Acquire(ctx, "client:a", "k1", "fp2", time.Second); !errors.Is(err, idempotency.ErrMismatch) {
			t.Errorf("other request after completion: %v", err)
		}
		// Keys are per principal.
		other, _, err := s.Acquire(ctx, "client:b", "k1", "fp2", time.Second)
		if err != nil || other == nil {
			t.Fatalf("another principal's key: %v", err)
		}
		other.Release(ctx)
		// After the retention the key is free again, for any request.
		c.Advance(2 * time.Second)
		claim3, resp, err := s.Acquire(ctx, "client:a", "k1", "fp2", time.Second)
		if err != nil || claim3 == nil || resp != nil {
			t.Fatalf("after retention = %v, %v, %v", claim3, resp, err)
		}
		// A released key runs again, with any body.
		if err := claim3.Release(ctx); err != nil {
			t.Fatal(err)
		}
		claim4, _, err := s.Acquire(ctx, "client:a", "k1", "fp3", time.Second)
		if err != nil || claim4 == nil {
			t.Fatalf("after release: %v", err)
		}
		claim4.Release(ctx)
	})
}

func TestLapsedLeaseIsTakenOver(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store, c *clock.Manual) {
		ctx := context.Background()
		s := idempotency.New(st, c)
		dead, _, err := s.Acquire(ctx, "client:a", "k", "fp", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(idempotency.Lease + time.Second) // no heartbeat happened: its instance "died"
		next, _, err := s.Acquire(ctx, "client:a", "k", "fp", time.Second)
		if err != nil || next == nil {
			t.Fatalf("takeover: %v", err)
		}
		if err := dead.Complete(ctx, created); !errors.Is(err, idempotency.ErrLost) {
			t.Errorf("Complete of a lapsed claim: %v", err)
		}
		if err := next.Complete(ctx, idempotency.Response{Status: 200}); err != nil {
			t.Fatal(err)
		}
		_, resp, err := s.Acquire(ctx, "client:a", "k", "fp", time.Second)
		if err != nil || resp == nil || resp.Status != 200 || len(resp.Body) != 0 {
			t.Errorf("replay = %+v, %v", resp, err)
		}
	})
}

func TestHeartbeatKeepsALongRequestsClaim(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store, c *clock.Manual) {
		ctx := context.Background()
		const lease = 10 * time.Second
		s := idempotency.New(st, c, idempotency.WithLease(lease, 5*time.Millisecond))
		claim, _, err := s.Acquire(ctx, "client:a", "k", "fp", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// Move the clock past the first lease in steps; after each, the
		// heartbeat extends the lease beyond the new time.
		for range 5 {
			c.Advance(lease / 2)
			waitFor(t, func() bool {
				it, err := st.Get(ctx, store.Jobs, idempotency.RecordKey("client:a", "k"))
				// (the store keeps whole seconds)
				return err == nil && !it.ExpiresAt.Before(c.Now().Add(lease-time.Second))
			})
		}
		if _, _, err := s.Acquire(ctx, "client:a", "k", "fp", time.Millisecond); !errors.Is(err, idempotency.ErrInProgress) {
			t.Fatalf("claim was lost despite heartbeats: %v", err)
		}
		if err := claim.Complete(ctx, created); err != nil {
			t.Fatal(err)
		}
	})
}

// waitFor polls cond until it holds (failing after a generous limit).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
	}
}

func TestConcurrentAcquireRunsOnce(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store, c *clock.Manual) {
		ctx := context.Background()
		s := idempotency.New(st, c)
		var mu sync.Mutex
		var runs, replays int
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				claim, resp, err := s.Acquire(ctx, "client:a", "k", "fp", 30*time.Second)
				switch {
				case err != nil:
					t.Error(err)
				case claim != nil:
					mu.Lock()
					runs++
					mu.Unlock()
					time.Sleep(20 * time.Millisecond) // the work
					if err := claim.Complete(ctx, created); err != nil {
						t.Error(err)
					}
				case resp.Status == 201:
					mu.Lock()
					replays++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if runs != 1 || replays != 19 {
			t.Errorf("runs %d, replays %d; want 1 and 19", runs, replays)
		}
	})
}

func TestOversizeResponseIsNotKept(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store, c *clock.Manual) {
		ctx := context.Background()
		s := idempotency.New(st, c)
		claim, _, _ := s.Acquire(ctx, "client:a", "k", "fp", time.Second)
		big := idempotency.Response{Status: 200, Body: []byte(strings.Repeat("x", idempotency.MaxBody+1))}
		if err := claim.Complete(ctx, big); !errors.Is(err, idempotency.ErrTooLarge) {
			t.Fatalf("Complete: %v", err)
		}
		again, _, err := s.Acquire(ctx, "client:a", "k", "fp", time.Second)
		if err != nil || again == nil {
			t.Fatalf("after an oversize response the key should run again: %v", err)
		}
		again.Release(ctx)
	})
}

func TestValidateKey(t *testing.T) {
	for _, k := range []string{"a", "req-2030-05-17/0001", "key with spaces ~!", strings.Repeat("k", 255)} {
		if err := idempotency.ValidateKey(k); err != nil {
			t.Errorf("%q: %v", k, err)
		}
	}
	for _, k := range []string{"", strings.Repeat("k", 256), "tab\there", "nul\x00", "é", "del\x7f"} {
		if err := idempotency.ValidateKey(k); !errors.Is(err, idempotency.ErrInvalidKey) {
			t.Errorf("%q accepted", k)
		}
	}
	if _, _, err := idempotency.New(nil, clock.Real{}).Acquire(context.Background(), "s", "", "fp", 0); !errors.Is(err, idempotency.ErrInvalidKey) {
		t.Errorf("Acquire with an empty key: %v", err)
	}
}
