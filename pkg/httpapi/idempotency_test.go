package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store/boltstore"
)

// tokenAuth accepts "good" (a partner) and "user" (one of its users).
type tokenAuth struct{}

func (tokenAuth) Authenticate(_ context.Context, tok string) (identity.Principal, error) {
	switch tok {
	case "good":
		return identity.Principal{Client: identity.Client{ID: "c1"}, Scopes: []string{identity.ScopeComplianceCheck}}, nil
	case "user":
		return identity.Principal{Client: identity.Client{ID: "c1"}, User: &identity.User{ID: "u1"}}, nil
	}
	return identity.Principal{}, identity.ErrInvalidToken
}

// idemRouter mounts an idempotent POST /make/ that counts its runs and
// answers what next says (201 with the run number by default).
func idemRouter(t *testing.T, next func(run int64, w http.ResponseWriter, r *http.Request) error) (*Router, *atomic.Int64) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := &API{Auth: tokenAuth{}, Clock: clock.Real{}, Idempotency: idempotency.New(st, clock.Real{})}
	var runs atomic.Int64
	rt := NewRouter(slog.New(slog.NewTextHandler(io.Discard, nil)))
	rt.Handle("POST /make/", 200<<20, a.Idempotent(func(w http.ResponseWriter, r *http.Request) error {
		n := runs.Add(1)
		if _, err := a.Authenticated(r); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return err
		}
		if next != nil {
			return next(n, w, r)
		}
		w.Header().Set("Location", "/made/1/")
		w.Header().Set("X-Other", "not replayed")
		WriteJSON(w, http.StatusCreated, map[string]int64{"run": n})
		return nil
	}))
	return rt, &runs
}

func post(rt http.Handler, key, token, contentType string, body []byte, extra ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/make/", bytes.NewReader(body))
	if key != "" {
		r.Header.Set(IdempotencyKeyHeader, key)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		r.Header.Add(extra[i], extra[i+1])
	}
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, r)
	return w
}

func TestIdempotentReplaysSuccessOnly(t *testing.T) {
	rt, runs := idemRouter(t, nil)
	first := post(rt, "k", "good", "application/json", []byte(`{"a":1,"b":[true,"x"]}`))
	if first.Code != 201 {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	// Same value, other spacing and key order: the same request.
	again := post(rt, "k", "good", "application/json; charset=utf-8", []byte(" {\"b\": [true, \"x\"],\n \"a\": 1} "))
	if again.Code != 201 || again.Body.String() != first.Body.String() || again.Header().Get("Location") != "/made/1/" ||
		again.Header().Get("X-Other") != "" || again.Header().Get(IdempotentReplayedHeader) != "true" || runs.Load() != 1 {
		t.Fatalf("replay: %d %s %v (runs %d)", again.Code, again.Body, again.Header(), runs.Load())
	}
	for name, w := range map[string]*httptest.ResponseRecorder{
		"other value":     post(rt, "k", "good", "application/json", []byte(`{"a":2,"b":[true,"x"]}`)),
		"other number":    post(rt, "k", "good", "application/json", []byte(`{"a":1.0,"b":[true,"x"]}`)),
		"other X-User-ID": post(rt, "k", "good", "application/json", []byte(`{"a":1,"b":[true,"x"]}`), "X-User-ID", "u"),
		"other type":      post(rt, "k", "good", "text/plain", []byte(`{"a":1,"b":[true,"x"]}`)),
	} {
		if w.Code != 422 || decode(t, w)["error_code"] != "idempotency_key_reused" {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
	// Keys that differ only in case: the handlers' decoder takes the last
	// one, so their order is the request's meaning.
	if w := post(rt, "fold", "good", "application/json", []byte(`{"b":[{"name":"a","Name":"b"}]}`)); w.Code != 201 {
		t.Fatalf("case-variant keys: %d %s", w.Code, w.Body)
	}
	for name, w := range map[string]*httptest.ResponseRecorder{
		"case-variant keys swapped": post(rt, "fold", "good", "application/json", []byte(`{"b":[{"Name":"b","name":"a"}]}`)),
		"folded keys swapped":       post(rt, "fold", "good", "application/json", []byte(`{"b":[{"Name":"b","nAme":"a"}]}`)),
	} {
		if w.Code != 422 || decode(t, w)["error_code"] != "idempotency_key_reused" {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
	// Unicode folding, as encoding/json matches field names: "ſ" is "s".
	if w := post(rt, "fold2", "good", "application/json", []byte(`{"description":"a","deſcription":"b"}`)); w.Code != 201 {
		t.Fatalf("folded keys: %d %s", w.Code, w.Body)
	}
	for name, w := range map[string]*httptest.ResponseRecorder{
		"long s keys swapped": post(rt, "fold2", "good", "application/json", []byte(`{"deſcription":"b","description":"a"}`)),
	} {
		if w.Code != 422 || decode(t, w)["error_code"] != "idempotency_key_reused" {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
	// Another principal (a user of the same client) has its own keys.
	if w := post(rt, "k", "user", "application/json", []byte(`{"a":1,"b":[true,"x"]}`)); w.Code != 201 || w.Header().Get(IdempotentReplayedHeader) != "" {
		t.Errorf("user with the same key: %d %v", w.Code, w.Header())
	}
	// Without a key every request runs.
	before := runs.Load()
	post(rt, "", "good", "application/json", []byte(`{"a":1,"b":[true,"x"]}`))
	post(rt, "", "good", "application/json", []byte(`{"a":1,"b":[true,"x"]}`))
	if runs.Load() != before+2 {
		t.Errorf("keyless requests ran %d times", runs.Load()-before)
	}
}

func TestIdempotentFailuresRunAgain(t *testing.T) {
	rt, runs := idemRouter(t, func(run int64, w http.ResponseWriter, r *http.Request) error {
		switch run {
		case 1:
			return errs.Wrap("test", errors.New("disk on fire")) // 500
		case 2:
			panic("handler bug") // 500 by the router's recover
		case 3:
			return errs.E("test", errs.Unavailable, "later") // 503
		case 4:
			return errs.Field("test", "file", "bad") // 400
		}
		WriteJSON(w, 201, map[string]int64{"run": run})
		return nil
	})
	for i, want := range []int{500, 500, 503, 400, 201, 201} {
		w := post(rt, "k", "good", "application/octet-stream", []byte("payload"))
		if w.Code != want {
			t.Fatalf("attempt %d: %d %s; want %d", i+1, w.Code, w.Body, want)
		}
	}
	if runs.Load() != 5 {
		t.Errorf("runs = %d; want 5 (4 failures, 1 success, 1 replay)", runs.Load())
	}
}

func TestIdempotentKeyAndAuth(t *testing.T) {
	rt, runs := idemRouter(t, nil)
	for _, key := range []string{strings.Repeat("x", 256), "a\tb", "\u00e9t\u00e9"} {
		if w := post(rt, key, "good", "", []byte("x")); w.Code != 400 || decode(t, w)["error_code"] != "invalid_idempotency_key" {
			t.Errorf("key %q: %d %s", key, w.Code, w.Body)
		}
	}
	if w := post(rt, "a", "good", "", []byte("x"), IdempotencyKeyHeader, "b"); w.Code != 400 {
		t.Errorf("two keys: %d %s", w.Code, w.Body)
	}
	if runs.Load() != 0 {
		t.Errorf("refused keys ran the handler %d times", runs.Load())
	}
	if w := post(rt, "k", "bad", "", []byte("x")); w.Code != 401 {
		t.Errorf("bad token: %d", w.Code)
	}
	// Credentials are checked before the key, as before everything else.
	if w := post(rt, strings.Repeat("x", 256), "bad", "", []byte("x")); w.Code != 401 {
		t.Errorf("bad token and a bad key: %d %s", w.Code, w.Body)
	}
	// Nothing was kept for the failed auth: a good token's first use runs.
	if w := post(rt, "k", "good", "", []byte("x")); w.Code != 201 || w.Header().Get(IdempotentReplayedHeader) != "" {
		t.Errorf("after a 401: %d %v", w.Code, w.Header())
	}
}

// multipartBody builds a form with a text field and a file, under a fresh
// random boundary each call.
func multipartBody(t *testing.T, field string, file []byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("is_public", field)
	fw, _ := mw.CreateFormFile("file", "clip.mp4")
	fw.Write(file)
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func TestIdempotentMultipartIgnoresTheBoundary(t *testing.T) {
	rt, runs := idemRouter(t, nil)
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MB: spooled to a file
	ct1, b1 := multipartBody(t, "true", big)
	ct2, b2 := multipartBody(t, "true", big)
	if ct1 == ct2 {
		t.Fatal("boundaries should differ")
	}
	if w := post(rt, "k", "good", ct1, b1); w.Code != 201 {
		t.Fatalf("first: %d %s", w.Code, w.Body)
	}
	if w := post(rt, "k", "good", ct2, b2); w.Code != 201 || w.Header().Get(IdempotentReplayedHeader) != "true" || runs.Load() != 1 {
		t.Fatalf("same form, new boundary: %d %v (runs %d)", w.Code, w.Header(), runs.Load())
	}
	big[len(big)-1] = 'X'
	ct3, b3 := multipartBody(t, "true", big)
	if w := post(rt, "k", "good", ct3, b3); w.Code != 422 {
		t.Errorf("one byte changed in the file: %d %s", w.Code, w.Body)
	}
	ct4, b4 := multipartBody(t, "false", big[:len(big)-1])
	if w := post(rt, "k", "good", ct4, b4); w.Code != 422 {
		t.Errorf("other field: %d %s", w.Code, w.Body)
	}
}

// A body that cannot be read in full (over the route's limit) is the
// handler's to answer, exactly as without a key, and nothing is kept.
func TestIdempotentUnreadableBodyIsTheHandlers(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &API{Auth: tokenAuth{}, Idempotency: idempotency.New(st, clock.Real{})}
	rt := NewRouter(slog.New(slog.NewTextHandler(io.Discard, nil)))
	var got []byte
	rt.Handle("POST /small/", 3<<20, a.Idempotent(func(w http.ResponseWriter, r *http.Request) error {
		b, err := io.ReadAll(r.Body)
		got = b
		if err != nil {
			return err
		}
		w.WriteHeader(204)
		return nil
	}))
	body := bytes.Repeat([]byte("z"), 3<<20+5)
	r := httptest.NewRequest("POST", "/small/", io.NopCloser(bytes.NewReader(body))) // chunked: no Content-Length
	r.ContentLength = -1
	r.Header.Set(IdempotencyKeyHeader, "k")
	r.Header.Set("Authorization", "Bearer good")
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, r)
	if w.Code != 413 || len(got) != 3<<20 {
		t.Fatalf("oversize body: %d %s; handler read %d bytes", w.Code, w.Body, len(got))
	}
	r = httptest.NewRequest("POST", "/small/", strings.NewReader("fine"))
	r.Header.Set(IdempotencyKeyHeader, "k")
	r.Header.Set("Authorization", "Bearer good")
	w = httptest.NewRecorder()
	rt.ServeHTTP(w, r)
	if w.Code != 204 || string(got) != "fine" {
		t.Errorf("after the oversize attempt: %d; handler read %q", w.Code, got)
	}
}
