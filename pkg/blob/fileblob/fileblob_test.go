package fileblob_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/blob/blobtest"
	"musiccatalog/pkg/blob/fileblob"
)

var secret = []byte("0123456789abcdef-test-secret")

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// serve starts a server that mounts the store's handler the way the
// devserver does, under a base path to exercise it too.
func serve(t *testing.T, root string, opts ...fileblob.Option) *fileblob.Store {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s, err := fileblob.New(root, srv.URL+"/files", secret, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/files/_blob/", s.Handler())
	return s
}

func TestConformance(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	blobtest.Run(t, blobtest.Harness{
		NewStore: func(t *testing.T) blob.Store {
			return serve(t, t.TempDir(), fileblob.WithClock(clock.Now))
		},
		Client: &http.Client{Timeout: time.Minute},
		Elapse: clock.Advance,
	})
}

// S3 has both "a" and "a/b"; versitygw cannot, so the suite does not ask.
func TestFileAndDirectoryKeys(t *testing.T) {
	s := serve(t, t.TempDir())
	ctx := t.Context()
	for _, key := range []string{"a/b", "a", "a/b/c"} {
		if err := s.Put(ctx, key, strings.NewReader(key), int64(len(key)), "text/plain"); err != nil {
			t.Fatalf("Put(%q): %v", key, err)
		}
	}
	list, err := s.List(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, a := range list {
		keys = append(keys, a.Key)
	}
	if strings.Join(keys, " ") != "a a/b a/b/c" {
		t.Fatalf("List(a) = %q", keys)
	}
	for _, key := range []string{"a", "a/b", "a/b/c"} {
		rc, _, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != key {
			t.Fatalf("Get(%q) = %q", key, got)
		}
	}
}

// Concurrent writers of one key never leave, and readers never see, the
// content of one write with the type of another.
func TestConcurrentPuts(t *testing.T) {
	s := serve(t, t.TempDir())
	ctx := t.Context()
	const writers, rounds = 4, 25
	content := func(w int) []byte { return bytes.Repeat([]byte{byte('a' + w)}, 10_000+w) }
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*2)
	for w := range writers {
		wg.Go(func() {
			for range rounds {
				if err := s.Put(ctx, "k", bytes.NewReader(content(w)), -1, fmt.Sprintf("x/w%d", w)); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range rounds {
				rc, a, err := s.Get(ctx, "k")
				if err != nil {
					continue // not written yet
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					errs <- err
					continue
				}
				var w int
				fmt.Sscanf(a.ContentType, "x/w%d", &w)
				if !bytes.Equal(got, content(w)) || a.Size != int64(len(got)) {
					errs <- fmt.Errorf("read %d bytes of %q with attrs %+v", len(got), got[:1], a)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestUnpinnedUploadTooLarge(t *testing.T) {
	s := serve(t, t.TempDir())
	u, err := s.PresignPut(t.Context(), "k", "video/mp4", blob.UnpinnedLength, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPut, u, strings.NewReader("x"))
	req.ContentLength = fileblob.MaxPutSize + 1
	req.Header.Set("Content-Type", "video/mp4")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "EntityTooLarge") {
		t.Fatalf("oversize upload: %d %s", rec.Code, rec.Body)
	}
}

// A URL is only good for the secret that signed it.
func TestOtherSecretRefused(t *testing.T) {
	root := t.TempDir()
	s := serve(t, root)
	if err := s.Put(t.Context(), "k", strings.NewReader("x"), 1, "text/plain"); err != nil {
		t.Fatal(err)
	}
	other, err := fileblob.New(root, "http://example.test/files", []byte("another secret, 16+ bytes"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := other.PresignGet(t.Context(), "k", time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, u, nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("URL signed with another secret: %d %s", rec.Code, rec.Body)
	}
}

func TestDamagedObjectFile(t *testing.T) {
	root := t.TempDir()
	s := serve(t, root)
	if err := s.Put(t.Context(), "k", strings.NewReader("content"), 7, "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "objects", "fk"), []byte("content without metadata"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Head(t.Context(), "k"); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Head of a damaged file: %v", err)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, c := range []struct {
		base   string
		secret []byte
	}{
		{"localhost:8080", secret},
		{"ftp://host", secret},
		{"http://host/?q=1", secret},
		{"http://host", []byte("short")},
	} {
		if _, err := fileblob.New(t.TempDir(), c.base, c.secret); err == nil {
			t.Errorf("New(%q, %d-byte secret) succeeded", c.base, len(c.secret))
		}
	}
}
