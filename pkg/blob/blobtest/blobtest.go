package blobtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"musiccatalog/pkg/blob"
)

// Harness connects the suite to an adapter.
type Harness struct {
	// NewStore returns an empty store; every subtest gets its own.
	NewStore func(t *testing.T) blob.Store
	// Client reaches the store's presigned URLs.
	Client *http.Client
	// Elapse lets d pass for URL expiry: a fake clock advances, a real one sleeps.
	Elapse func(d time.Duration)
	// LaxAuthorization is set for a server known to serve a presigned
	// request that also carries an Authorization header (versitygw
	// v1.8.0), where S3 refuses it (400 InvalidArgument, "Only one auth
	// mechanism allowed"). Such a server must still store exactly what
	// the URL allows.
	LaxAuthorization bool
}

// Run runs the whole suite.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		run  func(*testing.T, Harness, blob.Store)
	}{
		{"PutGetHead", testPutGetHead},
		{"PutUnknownSize", testPutUnknownSize},
		{"Writer", testWriter},
		{"PutWrongSize", testPutWrongSize},
		{"Overwrite", testOverwrite},
		{"Empty", testEmpty},
		{"Missing", testMissing},
		{"GetRange", testGetRange},
		{"List", testList},
		{"InvalidKeys", testInvalidKeys},
		{"InvalidArguments", testInvalidArguments},
		{"PresignGet", testPresignGet},
		{"PresignGetRange", testPresignGetRange},
		{"PresignGetAttachment", testPresignGetAttachment},
		{"PresignGetMissing", testPresignGetMissing},
		{"PresignGetWrongMethod", testPresignGetWrongMethod},
		{"PresignGetTampered", testPresignGetTampered},
		{"PresignPut", testPresignPut},
		{"PresignPutRejected", testPresignPutRejected},
		{"PresignPutWrongMethod", testPresignPutWrongMethod},
		{"PresignPutTampered", testPresignPutTampered},
		{"PresignPutUnpinned", testPresignPutUnpinned},
		{"PresignWithAuthorization", testPresignWithAuthorization},
		{"Expiry", testExpiry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, h, h.NewStore(t))
		})
	}
}

// oddKey needs escaping in a URL path and in S3's signing.
const oddKey = "uploads/clip one+ü%&=?#.mp4"

const ttl = 10 * time.Minute

func ctx(t *testing.T) context.Context { return t.Context() }

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

func put(t *testing.T, s blob.Store, key string, data []byte, contentType string) {
	t.Helper()
	if err := s.Put(ctx(t), key, bytes.NewReader(data), int64(len(data)), contentType); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func head(t *testing.T, s blob.Store, key string) blob.Attrs {
	t.Helper()
	a, err := s.Head(ctx(t), key)
	if err != nil {
		t.Fatalf("Head(%q): %v", key, err)
	}
	return a
}

// wantObject checks content and type through Get, and that Head agrees.
func wantObject(t *testing.T, s blob.Store, key string, data []byte, contentType string) blob.Attrs {
	t.Helper()
	rc, a, err := s.Get(ctx(t), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatalf("reading %q: %v", key, err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("content of %q: got %d bytes %q, want %d bytes %q", key, len(got), clip(got), len(data), clip(data))
	}
	if a.Key != key || a.Size != int64(len(data)) || a.ContentType != contentType || a.ETag == "" || a.ModTime.IsZero() {
		t.Fatalf("Get(%q) attrs = %+v, want key, size %d, type %q, an ETag and a time", key, a, len(data), contentType)
	}
	h := head(t, s, key)
	if h.Key != a.Key || h.Size != a.Size || h.ContentType != a.ContentType || h.ETag != a.ETag {
		t.Fatalf("Head(%q) = %+v, Get said %+v", key, h, a)
	}
	return a
}

func wantMissing(t *testing.T, s blob.Store, key string) {
	t.Helper()
	if _, err := s.Head(ctx(t), key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Head(%q) = %v, want ErrNotFound", key, err)
	}
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// hiddenLength keeps the HTTP client and the SDK from learning a body's size.
type hiddenLength struct{ io.Reader }

type response struct {
	status int
	header http.Header
	body   []byte
	// cut: the server closed the connection while the request body was
	// still being sent – how S3-compatible servers may refuse an upload
	// they rejected from its headers. No status was read.
	cut bool
}

// do sends one request without credentials. length -1 sends the body chunked.
func do(t *testing.T, h Harness, method, url, contentType string, body []byte, length int64, extra ...string) response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = hiddenLength{bytes.NewReader(body)}
	}
	req, err := http.NewRequestWithContext(ctx(t), method, url, r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	req.ContentLength = length
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, err := h.Client.Do(req)
	if err != nil && body != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)) {
		return response{cut: true}
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the response: %v", method, url, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func wantStatus(t *testing.T, what string, r response, status int) {
	t.Helper()
	if r.cut && status >= 400 && status < 500 {
		return // refused while the body was sent: the status is not observable
	}
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body %q", what, r.status, status, clip(r.body))
	}
}

func wantRefused(t *testing.T, what string, r response) {
	t.Helper()
	if r.cut {
		return // refused before the body was read; callers check what is stored
	}
	if r.status < 400 || r.status > 499 {
		t.Fatalf("%s: status %d, want 4xx; body %q", what, r.status, clip(r.body))
	}
}
