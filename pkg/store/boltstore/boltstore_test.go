package boltstore

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/storetest"
)

func open(t *testing.T, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "store.db"))
	})
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// rawKeys counts the entries of every bucket, expired or not.
func rawKeys(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			n += b.Stats().KeyN
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func putExpiring(t *testing.T, s *Store, sk string, exp time.Time) store.Key {
	t.Helper()
	k := store.Key{PK: "p", SK: sk}
	it := store.Item{Key: k, Attrs: map[string]any{"GSI1PK": "g", "GSI1SK": sk}, ExpiresAt: exp}
	if err := s.Put(t.Context(), store.Jobs, it, nil); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestExpiryFollowsTheClock(t *testing.T) {
	c := &clock{now: t0}
	s := open(t, filepath.Join(t.TempDir(), "store.db"), WithClock(c.Now), WithSweepInterval(0))
	k := putExpiring(t, s, "a", t0.Add(10*time.Second))

	c.Advance(9*time.Second + 999*time.Millisecond)
	if _, err := s.Get(t.Context(), store.Jobs, k); err != nil {
		t.Fatalf("just before its expiry: %v", err)
	}
	c.Advance(time.Millisecond)
	if _, err := s.Get(t.Context(), store.Jobs, k); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("at its expiry: err = %v, want ErrNotFound", err)
	}
}

func TestSweep(t *testing.T) {
	c := &clock{now: t0}
	s := open(t, filepath.Join(t.TempDir(), "store.db"), WithClock(c.Now), WithSweepInterval(0))
	putExpiring(t, s, "soon", t0.Add(time.Minute))
	putExpiring(t, s, "later", t0.Add(time.Hour))
	putExpiring(t, s, "never", time.Time{})
	const perItem = 2 // table entry and index entry
	if n := rawKeys(t, s); n != 3*perItem {
		t.Fatalf("%d raw entries before sweeping, want %d", n, 3*perItem)
	}

	if n, err := s.Sweep(t.Context()); err != nil || n != 0 {
		t.Fatalf("Sweep before any expiry = %d, %v", n, err)
	}
	c.Advance(time.Minute)
	if n, err := s.Sweep(t.Context()); err != nil || n != 1 {
		t.Fatalf("Sweep after one expiry = %d, %v; want 1", n, err)
	}
	if n := rawKeys(t, s); n != 2*perItem {
		t.Fatalf("%d raw entries after sweeping, want %d", n, 2*perItem)
	}
	p, err := s.Query(t.Context(), store.Jobs, store.Query{Index: "GSI1", PK: "g"})
	if err != nil || len(p.Items) != 2 {
		t.Fatalf("index after sweeping: %+v, %v", p, err)
	}
}

func TestBackgroundSweep(t *testing.T) {
	c := &clock{now: t0}
	s := open(t, filepath.Join(t.TempDir(), "store.db"), WithClock(c.Now), WithSweepInterval(time.Millisecond))
	putExpiring(t, s, "a", t0.Add(time.Second))
	putExpiring(t, s, "b", t0.Add(time.Second))
	c.Advance(time.Second)
	// Poll rather than assert a duration: the sweeper runs on its own schedule.
	for deadline := time.Now().Add(30 * time.Second); rawKeys(t, s) != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the background sweep never deleted the expired items")
		}
	}
}

func TestOpenFailsWhileAnotherHolderHasTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	open(t, path)
	// flock locks belong to the open file, so a second open in this
	// process conflicts just like another process would.
	_, err := Open(path, WithLockTimeout(50*time.Millisecond))
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: err = %v, want ErrLocked", err)
	}
}

func TestReopenKeepsItems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	k := store.Key{PK: "p", SK: "s"}
	if err := s.Put(t.Context(), store.Accounts, store.Item{Key: k, Attrs: map[string]any{"n": 1.5}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	it, err := open(t, path).Get(t.Context(), store.Accounts, k)
	if err != nil || it.Attrs["n"] != 1.5 {
		t.Fatalf("after reopening: %+v, %v", it, err)
	}
}

func TestKeyPartsRoundTrip(t *testing.T) {
	for _, parts := range [][]string{{"", ""}, {"a\x00", "\x00\xff"}, {"x", "y", "z", ""}} {
		var k []byte
		for _, p := range parts {
			k = appendPart(k, p)
		}
		got, err := splitParts(k)
		if err != nil || len(got) != len(parts) {
			t.Fatalf("splitParts(%q) = %q, %v", k, got, err)
		}
		for i := range parts {
			if got[i] != parts[i] {
				t.Errorf("part %d of %q = %q, want %q", i, parts, got[i], parts[i])
			}
		}
	}
}
