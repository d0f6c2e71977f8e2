package fileblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
)

var _ blob.Store = (*Store)(nil)

// MinSecretLength is the shortest URL-signing secret New accepts.
const MinSecretLength = 16

// Store keeps objects under a root directory.
type Store struct {
	objects, tmp string
	base         string // baseURL without a trailing slash
	mount        string // URL path the handler serves: base path + "/_blob/"
	secret       []byte
	now          func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock that issues and checks URL expiry.
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// New opens (creating if needed) a store under root whose presigned URLs
// start with baseURL, the address where the devserver mounts Handler at
// /_blob/, and are signed with secret.
func New(root, baseURL string, secret []byte, opts ...Option) (*Store, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("fileblob: base URL %q: want http(s)://host[/path]", baseURL)
	}
	if len(secret) < MinSecretLength {
		return nil, fmt.Errorf("fileblob: secret of %d bytes: want at least %d", len(secret), MinSecretLength)
	}
	s := &Store{
		objects: filepath.Join(root, "objects"),
		tmp:     filepath.Join(root, "tmp"),
		base:    strings.TrimSuffix(baseURL, "/"),
		mount:   strings.TrimSuffix(u.Path, "/") + "/_blob/",
		secret:  slices.Clone(secret),
		now:     time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	for _, dir := range []string{s.objects, s.tmp} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("fileblob: %w", err)
		}
	}
	return s, nil
}

func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := blob.ValidateKey(key); err != nil {
		return err
	}
	if err := blob.ValidateContentType(contentType); err != nil {
		return err
	}
	if _, err := s.write(ctx, key, r, size, contentType); err != nil {
		return fmt.Errorf("fileblob: put %q: %w", key, err)
	}
	return nil
}

func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, blob.Attrs, error) {
	f, a, err := s.lookup(ctx, key)
	if err != nil {
		return nil, blob.Attrs{}, err
	}
	return section(f, 0, a.Size), a, nil
}

func (s *Store) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := blob.ValidateRange(offset, length); err != nil {
		return nil, err
	}
	f, a, err := s.lookup(ctx, key)
	if err != nil {
		return nil, err
	}
	// ValidateRange keeps offset+length from overflowing.
	end := max(offset, min(offset+length, a.Size))
	return section(f, offset, end-offset), nil
}

func (s *Store) Head(ctx context.Context, key string) (blob.Attrs, error) {
	f, a, err := s.lookup(ctx, key)
	if err != nil {
		return blob.Attrs{}, err
	}
	f.Close()
	return a, nil
}

// lookup validates key and opens its object, unless ctx is done.
func (s *Store) lookup(ctx context.Context, key string) (*os.File, blob.Attrs, error) {
	if err := blob.ValidateKey(key); err != nil {
		return nil, blob.Attrs{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, blob.Attrs{}, err
	}
	return s.open(key)
}

// section reads n bytes of the object file f from offset, leaving the
// trailer out; closing it closes f.
func section(f *os.File, offset, n int64) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, offset, n), f}
}

// Delete removes the object and then the directories it leaves empty.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blob.ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := s.objectPath(key)
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("fileblob: delete %q: %w", key, err)
	}
	for dir := filepath.Dir(p); dir != s.objects; dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty, or gone already
		}
	}
	return nil
}

// List leaves ContentType empty, as s3blob must.
func (s *Store) List(ctx context.Context, prefix string) ([]blob.Attrs, error) {
	if err := blob.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	if !blob.PrefixCanMatch(prefix) {
		return nil, nil
	}
	segs := strings.Split(prefix, "/")
	start := s.dirPath(segs[:len(segs)-1])
	var list []blob.Attrs
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// Deleted meanwhile, or no object under the prefix.
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(s.objects, p)
		if err != nil {
			return err
		}
		key, err := keyOf(rel)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		f, a, err := s.open(key)
		if errors.Is(err, blob.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		f.Close()
		a.ContentType = ""
		list = append(list, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fileblob: list %q: %w", prefix, err)
	}
	// Walk order is not key order: directory "da" precedes file "fa-x", yet
	// key "a-x" precedes "a/1".
	slices.SortFunc(list, func(a, b blob.Attrs) int { return strings.Compare(a.Key, b.Key) })
	return list, nil
}

func (s *Store) PresignGet(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	if err := blob.ValidatePresignGet(key, ttl, filename); err != nil {
		return "", err
	}
	q := url.Values{paramExpires: {s.expiry(ttl)}}
	if filename != "" {
		q.Set(paramFilename, filename)
	}
	return s.signedURL(http.MethodGet, key, q), nil
}

func (s *Store) PresignPut(ctx context.Context, key, contentType string, contentLength int64, ttl time.Duration) (string, error) {
	if err := blob.ValidatePresignPut(key, contentType, contentLength, ttl); err != nil {
		return "", err
	}
	q := url.Values{paramExpires: {s.expiry(ttl)}, paramContentType: {contentType}}
	if contentLength != blob.UnpinnedLength {
		q.Set(paramContentLength, strconv.FormatInt(contentLength, 10))
	}
	return s.signedURL(http.MethodPut, key, q), nil
}

func (s *Store) expiry(ttl time.Duration) string {
	return strconv.FormatInt(s.now().Add(ttl).Unix(), 10)
}
