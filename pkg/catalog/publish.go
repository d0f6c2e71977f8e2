package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"musiccatalog/pkg/blob"
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
// are not serialized against each other: run one ingestion at a time.
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
