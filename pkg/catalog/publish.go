package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/store"
)

// Blob keys of published catalogs. Snapshots are immutable and named by
// version; CurrentKey names the version being served.
const (
	CurrentKey     = "catalog/current.json"
	SnapshotPrefix = "catalog/snapshots/"
)

// ErrNoCatalog is returned when no catalog was ever published.
var ErrNoCatalog = errors.New("catalog: no catalog published")

// Pointer is the content of CurrentKey.
type Pointer struct {
	Version  string `json:"version"`
	Snapshot string `json:"snapshot"` // blob key of the snapshot
}

// SnapshotKey is where the snapshot of a version is stored.
func SnapshotKey(version string) string { return SnapshotPrefix + version + ".snap" }

// Artifact is a file derived from a snapshot (the search text index),
// built once when the version is published and stored next to it, so
// that a function loads it at cold start instead of building it. Readers
// treat a missing or unreadable artifact as absent and derive the data
// themselves.
type Artifact struct {
	Name  string // the key's suffix: ArtifactKey(version, Name)
	Build func(*Catalog) ([]byte, error)
}

// ArtifactKey is where artifact name of a version is stored.
func ArtifactKey(version, name string) string { return SnapshotPrefix + version + "." + name }

// putArtifacts stores the artifacts of c that are not stored yet.
func putArtifacts(ctx context.Context, bs blob.Store, c *Catalog, arts []Artifact) error {
	for _, a := range arts {
		key := ArtifactKey(c.Version(), a.Name)
		if _, err := bs.Head(ctx, key); err == nil {
			continue // immutable, like the snapshot
		} else if !errors.Is(err, blob.ErrNotFound) {
			return fmt.Errorf("catalog: head %s: %w", key, err)
		}
		b, err := a.Build(c)
		if err != nil {
			return fmt.Errorf("catalog: build %s: %w", key, err)
		}
		if err := bs.Put(ctx, key, bytes.NewReader(b), int64(len(b)), "application/octet-stream"); err != nil {
			return fmt.Errorf("catalog: store %s: %w", key, err)
		}
	}
	return nil
}

// ReadCurrent returns the pointer to the current version, or ErrNoCatalog.
func ReadCurrent(ctx context.Context, bs blob.Store) (Pointer, error) {
	rc, _, err := bs.Get(ctx, CurrentKey)
	if errors.Is(err, blob.ErrNotFound) {
		return Pointer{}, ErrNoCatalog
	}
	if err != nil {
		return Pointer{}, fmt.Errorf("catalog: read %s: %w", CurrentKey, err)
	}
	defer rc.Close()
	var p Pointer
	if err := json.NewDecoder(io.LimitReader(rc, 64<<10)).Decode(&p); err != nil || p.Version == "" || p.Snapshot == "" {
		return Pointer{}, fmt.Errorf("catalog: %s is damaged", CurrentKey)
	}
	return p, nil
}

// LoadSnapshot reads and decodes the snapshot at key.
func LoadSnapshot(ctx context.Context, bs blob.Store, key string) (*Catalog, error) {
	rc, _, err := bs.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("catalog: read %s: %w", key, err)
	}
	defer rc.Close()
	c, err := Decode(rc)
	if err != nil {
		return nil, fmt.Errorf("catalog: %s: %w", key, err)
	}
	return c, nil
}

// Load reads the current catalog, or returns ErrNoCatalog.
func Load(ctx context.Context, bs blob.Store) (*Catalog, error) {
	p, err := ReadCurrent(ctx, bs)
	if err != nil {
		return nil, err
	}
	return p.load(ctx, bs)
}

// load reads the snapshot the pointer names and checks it is that version.
func (p Pointer) load(ctx context.Context, bs blob.Store) (*Catalog, error) {
	c, err := LoadSnapshot(ctx, bs, p.Snapshot)
	if err != nil {
		return nil, err
	}
	if c.Version() != p.Version {
		return nil, fmt.Errorf("catalog: %s holds version %s, the pointer says %s", p.Snapshot, c.Version(), p.Version)
	}
	return c, nil
}

// Publish stores c's snapshot and its artifacts and makes it current.
// When c's version is already current it writes only the artifacts that
// are missing and reports false. Artifacts are stored before the pointer
// moves, so a function that sees the new version finds them. Publishers
// are not serialized against each other here: an ingestion reads the
// current catalog, builds on it and publishes, so it holds a PublishLock
// for the whole run.
func Publish(ctx context.Context, bs blob.Store, c *Catalog, arts ...Artifact) (bool, error) {
	// A pointer that cannot be read (missing or damaged) only means there
	// is no shortcut: publishing writes a good one over it.
	cur, err := ReadCurrent(ctx, bs)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	if err == nil && cur.Version == c.Version() {
		return false, putArtifacts(ctx, bs, c, arts)
	}
	key := SnapshotKey(c.Version())
	if _, err := bs.Head(ctx, key); errors.Is(err, blob.ErrNotFound) {
		b, err := encodeSnapshot(c)
		if err != nil {
			return false, err
		}
		if err := bs.Put(ctx, key, bytes.NewReader(b), int64(len(b)), "application/octet-stream"); err != nil {
			return false, fmt.Errorf("catalog: store snapshot: %w", err)
		}
	} else if err != nil {
		return false, fmt.Errorf("catalog: head %s: %w", key, err)
	}
	if err := putArtifacts(ctx, bs, c, arts); err != nil {
		return false, err
	}
	return true, writePointer(ctx, bs, Pointer{Version: c.Version(), Snapshot: key})
}

// SetCurrent makes an already published version current again (rollback).
func SetCurrent(ctx context.Context, bs blob.Store, version string) error {
	p := Pointer{Version: version, Snapshot: SnapshotKey(version)}
	if _, err := p.load(ctx, bs); err != nil {
		return err
	}
	return writePointer(ctx, bs, p)
}

func writePointer(ctx context.Context, bs blob.Store, p Pointer) error {
	b, _ := json.Marshal(p)
	if err := bs.Put(ctx, CurrentKey, bytes.NewReader(b), int64(len(b)), "application/json"); err != nil {
		return fmt.Errorf("catalog: write %s: %w", CurrentKey, err)
	}
	return nil
}

// ErrPublishBusy means another publisher held the lock for all of
// PublishLock.Wait.
var ErrPublishBusy = errors.New("catalog: another ingestion is publishing; try again later")

// The lock item: one per deployment, in the Jobs table (DESIGN.md §3).
var publishLockKey = store.Key{PK: "catalog-publish", SK: "lock"}

// PublishLock serializes catalog publishers across processes and machines
// (catalog-ingest instances, `admin ingest`), so that two ingestions never
// build on the same current catalog and the later one drops the other's
// additions. It is a conditional put of one item that expires after
// Lease; the holder renews it every Lease/3 for as long as it runs, so a
// holder that crashes blocks the others for at most Lease, and a run may
// last as long as it needs.
type PublishLock struct {
	Store store.Store
	Clock clock.Clock
	Lease time.Duration
	// Wait is how long Acquire keeps trying a busy lock, every Poll.
	Wait, Poll time.Duration
}

// Acquire takes the lock for owner (unique per run). It returns a context
// derived from ctx that is cancelled when the lock is lost (a renewal
// found another holder, or could not be written before the lease ran
// out), so that the work done under it stops before it publishes, and the
// release, which stops the renewals and deletes the item. A busy lock is
// retried every Poll until Wait has passed (ErrPublishBusy) or ctx ends.
func (l PublishLock) Acquire(ctx context.Context, owner string) (held context.Context, release func(context.Context) error, err error) {
	deadline := l.Clock.Now().Add(l.Wait)
	for {
		now := l.Clock.Now()
		item := store.Item{Key: publishLockKey, ExpiresAt: now.Add(l.Lease),
			Attrs: map[string]any{"owner": owner, "acquired_at": now.Format(time.RFC3339)}}
		err := l.Store.Put(ctx, store.Jobs, item, store.NotExists())
		if err == nil {
			held, cancel := context.WithCancelCause(ctx)
			done := make(chan struct{})
			go l.renew(held, cancel, owner, now.Add(l.Lease), done)
			return held, func(ctx context.Context) error {
				cancel(errLockReleased)
				<-done
				// Only our own lock: after a loss, the item may be the next holder's.
				err := l.Store.Delete(ctx, store.Jobs, publishLockKey, store.Equals("owner", owner))
				if err != nil && !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("catalog: release publish lock: %w", err)
				}
				return nil
			}, nil
		}
		if !errors.Is(err, store.ErrConditionFailed) {
			return nil, nil, fmt.Errorf("catalog: take publish lock: %w", err)
		}
		if !l.Clock.Now().Add(l.Poll).Before(deadline) {
			return nil, nil, ErrPublishBusy
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(l.Poll):
		}
	}
}

// ErrPublishLockLost is the cause of a held context cancelled because the
// lock passed to another holder.
var ErrPublishLockLost = errors.New("catalog: the publish lock was lost; nothing was published")

var errLockReleased = errors.New("catalog: publish lock released")

// renew extends the lease every Lease/3 until held ends; a renewal that
// finds another owner, or that fails until the lease has run out, cancels
// held.
func (l PublishLock) renew(held context.Context, cancel context.CancelCauseFunc, owner string, expires time.Time, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(l.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-held.Done():
			return
		case <-t.C:
		}
		next := l.Clock.Now().Add(l.Lease)
		_, err := l.Store.Update(held, store.Jobs, publishLockKey,
			store.Update{Set: map[string]any{"renewed_at": l.Clock.Now().Format(time.RFC3339)}, ExpiresAt: &next},
			store.And(store.Exists(), store.Equals("owner", owner)))
		switch {
		case err == nil:
			expires = next
		case errors.Is(err, store.ErrConditionFailed):
			cancel(ErrPublishLockLost)
			return
		case !l.Clock.Now().Before(expires):
			cancel(ErrPublishLockLost)
			return
		}
	}
}
