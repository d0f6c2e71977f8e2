package blob

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned (possibly wrapped) for a missing key.
var ErrNotFound = errors.New("blob: not found")

// Attrs describes a stored object.
type Attrs struct {
	Key         string
	Size        int64
	ContentType string
	ETag        string // opaque; changes when the content changes
	ModTime     time.Time
}

// UnpinnedLength passed to PresignPut leaves the upload size unpinned.
const UnpinnedLength int64 = -1

// Store is the object-store port. Keys are slash-separated relative paths
// without "..", leading "/" or empty segments (ValidateKey has the full
// rule); an invalid key or argument gives ErrInvalid.
type Store interface {
	// Put stores the object, replacing any previous one. size may be -1 when unknown.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Get streams the object; the caller closes the reader.
	Get(ctx context.Context, key string) (io.ReadCloser, Attrs, error)
	// GetRange streams length bytes of the object from offset (fewer at the
	// object's end; none when offset is at or past it); the caller closes
	// the reader. ErrNotFound when the object does not exist. offset must be
	// >= 0 and length > 0.
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Head returns the attributes or ErrNotFound.
	Head(ctx context.Context, key string) (Attrs, error)
	// Delete removes the object; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the attributes of every object whose key starts with prefix, in key order.
	// ContentType is left empty: S3 listings do not carry it (Head has it).
	List(ctx context.Context, prefix string) ([]Attrs, error)
	// PresignGet returns a URL that GETs the object until ttl passes. The
	// method is signed: HEAD with it is refused, as S3 does. A non-empty
	// filename makes the response an attachment with that name.
	// The URL supports Range requests.
	PresignGet(ctx context.Context, key string, ttl time.Duration, filename string) (string, error)
	// PresignPut returns a URL that accepts a PUT of the object until ttl
	// passes (like S3's, it is not single-use), only with exactly this
	// Content-Type and, unless contentLength is UnpinnedLength, exactly
	// contentLength bytes; a pinned length must be positive.
	PresignPut(ctx context.Context, key, contentType string, contentLength int64, ttl time.Duration) (string, error)
}
