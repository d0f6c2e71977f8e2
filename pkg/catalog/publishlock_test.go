package catalog_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/catalog"
	mcclock "musiccatalog/pkg/clock"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/store/dynamostore"
)

// shifted is the real clock moved by an offset: a holder whose clock runs
// behind took a lease that has already run out.
type shifted time.Duration

func (s shifted) Now() time.Time { return mcclock.Real{}.Now().Add(time.Duration(s)) }

// lockStores are both twins of the item store: bbolt always, DynamoDB Local
// in the integration tier (TEST_DYNAMODB_ENDPOINT, required under CI=true).
func lockStores(t *testing.T) map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"bolt": func(t *testing.T) store.Store {
			s, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"dynamodb": func(t *testing.T) store.Store {
			ep := os.Getenv("TEST_DYNAMODB_ENDPOINT")
			if ep == "" {
				if os.Getenv("CI") == "true" {
					t.Fatal("TEST_DYNAMODB_ENDPOINT is not set (infra/local/with-stack.sh)")
				}
				t.Skip("TEST_DYNAMODB_ENDPOINT is not set; run under infra/local/with-stack.sh")
			}
			s := dynamostore.New(dynamostore.LocalClient(ep, ""), dynamostore.TableNames("publishlock-"+rand.Text()[:10]+"-"))
			if err := s.CreateTables(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.DeleteTables(context.Background()) })
			return s
		},
	}
}

func TestPublishLock(t *testing.T) {
	for name, open := range lockStores(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			lock := catalog.PublishLock{Store: st, Clock: mcclock.Real{}, Lease: time.Hour, Wait: 0, Poll: 10 * time.Millisecond}

			_, releaseA, err := lock.Acquire(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			// A second publisher is refused while the first holds it.
			if _, _, err := lock.Acquire(ctx, "b"); !errors.Is(err, catalog.ErrPublishBusy) {
				t.Fatalf("second acquire: %v, want ErrPublishBusy", err)
			}
			// A waiting publisher gets it as soon as the holder releases.
			waiting := lock
			waiting.Wait = 30 * time.Second
			var wg sync.WaitGroup
			var releaseB func(context.Context) error
			var errB error
			wg.Go(func() { _, releaseB, errB = waiting.Acquire(ctx, "b") })
			time.Sleep(50 * time.Millisecond)
			if err := releaseA(ctx); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if errB != nil {
				t.Fatalf("waiting acquire: %v", errB)
			}
			// A late release by a former holder leaves the new holder's lock.
			if err := releaseA(ctx); err != nil {
				t.Fatal(err)
			}
			if _, _, err := lock.Acquire(ctx, "c"); !errors.Is(err, catalog.ErrPublishBusy) {
				t.Fatalf("after a stale release: %v, want ErrPublishBusy", err)
			}
			if err := releaseB(ctx); err != nil {
				t.Fatal(err)
			}

			// A crashed holder's lease runs out: its lock no longer blocks.
			stale := lock
			stale.Clock, stale.Lease = shifted(-2*time.Hour), time.Hour
			if _, _, err := stale.Acquire(ctx, "crashed"); err != nil {
				t.Fatal(err)
			}
			_, release, err := lock.Acquire(ctx, "d")
			if err != nil {
				t.Fatalf("after an expired lease: %v", err)
			}
			release(ctx)

			// A cancelled wait gives up with the context's error.
			_, hold, _ := lock.Acquire(ctx, "e")
			defer hold(ctx)
			cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			defer cancel()
			if _, _, err := waiting.Acquire(cctx, "f"); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("cancelled wait: %v", err)
			}
		})
	}
}

// TestPublishLockRenewal: a holder that keeps running past its lease keeps
// the lock (renewed every Lease/3), and one whose lock passes to another
// holder sees its context cancelled before it could publish.
func TestPublishLockRenewal(t *testing.T) {
	for name, open := range lockStores(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			// DynamoDB Local and the store keep expiry in whole seconds.
			lock := catalog.PublishLock{Store: st, Clock: mcclock.Real{}, Lease: 3 * time.Second, Poll: 50 * time.Millisecond}
			held, release, err := lock.Acquire(ctx, "long-run")
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * lock.Lease) // twice the lease: only renewals keep it
			if held.Err() != nil {
				t.Fatalf("lock lost while renewed: %v", context.Cause(held))
			}
			if _, _, err := lock.Acquire(ctx, "other"); !errors.Is(err, catalog.ErrPublishBusy) {
				t.Fatalf("a renewed lock was taken: %v", err)
			}
			if err := release(ctx); err != nil {
				t.Fatal(err)
			}
			if held.Err() == nil {
				t.Error("released, yet the held context goes on")
			}

			// The item passes to another owner (as after an expiry): the
			// next renewal cancels the first holder.
			held, release, err = lock.Acquire(ctx, "first")
			if err != nil {
				t.Fatal(err)
			}
			defer release(ctx)
			if err := st.Put(ctx, store.Jobs, store.Item{Key: store.Key{PK: "catalog-publish", SK: "lock"},
				Attrs: map[string]any{"owner": "second"}, ExpiresAt: time.Now().Add(time.Hour)}, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case <-held.Done():
				if !errors.Is(context.Cause(held), catalog.ErrPublishLockLost) {
					t.Errorf("cause %v", context.Cause(held))
				}
			case <-time.After(2 * lock.Lease):
				t.Fatal("the holder did not notice it lost the lock")
			}
			// Its release leaves the new owner's lock alone.
			release(ctx)
			if it, err := st.Get(ctx, store.Jobs, store.Key{PK: "catalog-publish", SK: "lock"}); err != nil || it.Attrs["owner"] != "second" {
				t.Errorf("after the loser's release: %v %v", it.Attrs, err)
			}
		})
	}
}
