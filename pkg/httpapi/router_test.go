package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
)

func testRouter() *Router {
	rt := NewRouter(slog.New(slog.NewTextHandler(io.Discard, nil)))
	rt.Handle("GET /things/", NoBody, func(w http.ResponseWriter, r *http.Request) error {
		WriteJSON(w, 200, map[string]string{"ok": "yes"})
		return nil
	})
	rt.Handle("POST /things/", 10, func(w http.ResponseWriter, r *http.Request) error {
		var v map[string]any
		return DecodeJSON(r, &v)
	})
	rt.Handle("GET /panic/", NoBody, func(w http.ResponseWriter, r *http.Request) error {
		panic("secret internal state")
	})
	rt.Handle("GET /fail/", NoBody, func(w http.ResponseWriter, r *http.Request) error {
		return errs.Wrap("test", errors.New("database password is hunter2"))
	})
	rt.Handle("GET /fields/", NoBody, func(w http.ResponseWriter, r *http.Request) error {
		return errs.Field("test", "limit", "bad")
	})
	rt.Handle("GET /coded/", NoBody, func(w http.ResponseWriter, r *http.Request) error {
		return &errs.Error{Kind: errs.Unprocessable, Detail: "cannot", Code: "corrupt_media"}
	})
	return rt
}

func serve(rt http.Handler, method, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	rt.ServeHTTP(w, httptest.NewRequest(method, path, r))
	return w
}

func decode(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q, body %q", ct, w.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	return m
}

func TestRouterShapes(t *testing.T) {
	rt := testRouter()
	cases := []struct {
		method, path, body string
		status             int
		want               string // a key the JSON body must have
	}{
		{"GET", "/things/", "", 200, "ok"},
		{"GET", "/things", "", 404, "detail"}, // trailing slash is exact
		{"GET", "/things/extra/", "", 404, "detail"},
		{"DELETE", "/things/", "", 405, "detail"},
		{"POST", "/things/", `{"a":1234567890}`, 413, "detail"},
		{"POST", "/things/", `[1]`, 400, "detail"},
		{"GET", "/panic/", "", 500, "detail"},
		{"GET", "/fail/", "", 500, "detail"},
		{"GET", "/fields/", "", 400, "limit"},
		{"GET", "/coded/", "", 422, "error_code"},
		{"GET", "/things/?format=json", "", 200, "ok"},
		{"GET", "//things/", "", 404, "detail"},
		{"GET", "/things/?format=xml", "", 404, "detail"}, // §4.4: reserved, unknown values 404
		{"GET", "/things/?format=", "", 404, "detail"},
	}
	for _, c := range cases {
		w := serve(rt, c.method, c.path, c.body)
		if w.Code != c.status {
			t.Errorf("%s %s: status %d, want %d (%s)", c.method, c.path, w.Code, c.status, w.Body)
			continue
		}
		m := decode(t, w)
		if _, ok := m[c.want]; !ok {
			t.Errorf("%s %s: body %v lacks %q", c.method, c.path, m, c.want)
		}
		if w.Header().Get("X-Request-ID") == "" {
			t.Errorf("%s %s: no X-Request-ID", c.method, c.path)
		}
		if s := w.Body.String(); strings.Contains(s, "secret") || strings.Contains(s, "hunter2") {
			t.Errorf("%s %s leaks internals: %s", c.method, c.path, s)
		}
	}
	if w := serve(rt, "DELETE", "/things/", ""); !strings.Contains(w.Header().Get("Allow"), "GET") {
		t.Errorf("405 without Allow header: %v", w.Header())
	}
}

func TestRequestIDIsEchoed(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/things/", nil)
	r.Header.Set("X-Request-ID", "abc-123")
	testRouter().ServeHTTP(w, r)
	if got := w.Header().Get("X-Request-ID"); got != "abc-123" {
		t.Errorf("X-Request-ID %q", got)
	}
}

// TestPageLinksUseThePublicBaseURL: links are built on the configured
// base, never on the client's Host or X-Forwarded-* headers.
func TestPageLinksUseThePublicBaseURL(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v4/x/?limit=10&genre=rock", nil)
	r.Host = "evil.example"
	r.Header.Set("X-Forwarded-Proto", "https")
	r.Header.Set("X-Forwarded-Host", "evil.example")
	pp := PageParams{Limit: 10}
	for base, want := range map[string]string{
		"https://api.example":      "https://api.example/api/v4/x/?genre=rock&limit=10&offset=10",
		"https://api.example/pre/": "https://api.example/pre/api/v4/x/?genre=rock&limit=10&offset=10",
		"":                         "/api/v4/x/?genre=rock&limit=10&offset=10", // nothing vouched for: relative
	} {
		next, _ := (&API{PublicBaseURL: base}).PageLinks(r, pp, true)
		if next == nil || *next != want {
			t.Errorf("base %q: next = %v, want %s", base, deref(next), want)
		}
	}
}

// TestParsePageReportsEveryBadParameter: limit and offset both named.
func TestParsePageReportsEveryBadParameter(t *testing.T) {
	_, err := ParsePage(httptest.NewRequest("GET", "/x/?limit=-3&offset=-1", nil), 20, 100)
	var e *errs.Error
	if !errors.As(err, &e) || len(e.Fields["limit"]) != 1 || len(e.Fields["offset"]) != 1 {
		t.Fatalf("ParsePage(limit=-3&offset=-1) = %v; want errors on limit and offset", err)
	}
}

func TestPageLinksKeepOtherParameters(t *testing.T) {
	r := httptest.NewRequest("GET", "http://api.test/api/v4/x/?genre=rock&limit=10&offset=10&mood=happy", nil)
	pp, err := ParsePage(r, 20, 100)
	if err != nil || pp.Limit != 10 || pp.Offset != 10 {
		t.Fatalf("ParsePage = %+v, %v", pp, err)
	}
	next, prev := (&API{}).PageLinks(r, pp, true)
	if next == nil || *next != "http://api.test/api/v4/x/?genre=rock&limit=10&mood=happy&offset=20" {
		t.Errorf("next = %v", deref(next))
	}
	if prev == nil || *prev != "http://api.test/api/v4/x/?genre=rock&limit=10&mood=happy" {
		t.Errorf("previous = %v", deref(prev))
	}
	if next, _ := (&API{}).PageLinks(r, pp, false); next != nil {
		t.Errorf("next on the last page: %s", *next)
	}
	for _, q := range []string{"limit=0", "limit=x", "offset=-1", "offset=1.5"} {
		if _, err := ParsePage(httptest.NewRequest("GET", "/x/?"+q, nil), 20, 100); !errs.Is(err, errs.Invalid) {
			t.Errorf("%s: err %v, want invalid", q, err)
		}
	}
	if pp, _ := ParsePage(httptest.NewRequest("GET", "/x/?limit=1000", nil), 20, 100); pp.Limit != 100 {
		t.Errorf("limit not clamped: %d", pp.Limit)
	}
	// Beyond an int: clamped like any large limit, an offset past every list.
	pp, err = ParsePage(httptest.NewRequest("GET", "/x/?limit=100000000000000000000&offset=100000000000000000000", nil), 20, 100)
	if err != nil || pp.Limit != 100 || pp.Offset <= 0 || pp.Offset+pp.Limit <= 0 {
		t.Errorf("huge limit and offset: %+v, %v", pp, err)
	}
	for _, q := range []string{"limit=-100000000000000000000", "offset=-100000000000000000000"} {
		if _, err := ParsePage(httptest.NewRequest("GET", "/x/?"+q, nil), 20, 100); !errs.Is(err, errs.Invalid) {
			t.Errorf("%s: err %v, want invalid", q, err)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestLimiterRefillsAndSaysWhen(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := newLimiter(c)
	for i := range 6 {
		if ok, _ := l.allow("k", 6); !ok {
			t.Fatalf("request %d refused within the burst", i)
		}
	}
	ok, wait := l.allow("k", 6)
	if ok || wait <= 0 || wait > 10*time.Second {
		t.Fatalf("7th request: ok=%v wait=%v; want refused with wait ≤ 10s", ok, wait)
	}
	if ok, _ := l.allow("other", 6); !ok {
		t.Fatal("another caller was throttled")
	}
	c.Advance(wait)
	if ok, _ := l.allow("k", 6); !ok {
		t.Fatal("refused after waiting the advertised time")
	}
}

func TestPathValuesReachHandlers(t *testing.T) {
	rt := NewRouter(slog.New(slog.NewTextHandler(io.Discard, nil)))
	rt.Handle("DELETE /items/{id}/", NoBody, func(w http.ResponseWriter, r *http.Request) error {
		WriteJSON(w, 200, map[string]string{"id": r.PathValue("id")})
		return nil
	})
	w := serve(rt, "DELETE", "/items/abc/", "")
	if m := decode(t, w); m["id"] != "abc" {
		t.Errorf("path value: %v", m)
	}
}

func TestETagMatchesWeakAndListed(t *testing.T) {
	tag := `"tracks-v1"`
	for _, h := range [][]string{{tag}, {`W/"tracks-v1"`}, {`"other", W/"tracks-v1"`}, {`"a"`, tag}, {"*"}} {
		if !etagMatches(h, tag) {
			t.Errorf("If-None-Match %q does not match %s", h, tag)
		}
	}
	for _, h := range [][]string{nil, {`"tracks-v2"`}, {`W/"tracks"`}, {`tracks-v1`}} {
		if etagMatches(h, tag) {
			t.Errorf("If-None-Match %q matches %s", h, tag)
		}
	}
}

func TestNotFoundHintsOnlyTheTrailingSlash(t *testing.T) {
	rt := testRouter()
	if m := decode(t, serve(rt, "GET", "/things", "")); !strings.Contains(m["detail"].(string), "/things/") {
		t.Errorf("no hint for the missing slash: %v", m)
	}
	if m := decode(t, serve(rt, "GET", "/things//extra/", "")); strings.Contains(m["detail"].(string), "Did you mean") {
		t.Errorf("hint for a cleaned path: %v", m)
	}
}

// TestBodiesOnMethodsWithoutOneAreIgnored: a GET (or DELETE) carrying a
// body is served as without one, whatever its size or framing.
func TestBodiesOnMethodsWithoutOneAreIgnored(t *testing.T) {
	rt := testRouter()
	for _, body := range []string{"x", `{"a":1}`, strings.Repeat("x", 2<<20)} {
		if w := serve(rt, "GET", "/things/", body); w.Code != 200 {
			t.Errorf("GET with a %d-byte body: %d %s", len(body), w.Code, w.Body)
		}
	}
	r := httptest.NewRequest("GET", "/things/", io.MultiReader(strings.NewReader("chunked")))
	r.ContentLength = -1
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Errorf("GET with a chunked body: %d %s", w.Code, w.Body)
	}
	// Methods that take a body still have it capped.
	if w := serve(rt, "POST", "/things/", strings.Repeat("x", 100)); w.Code != 413 {
		t.Errorf("POST over its cap: %d", w.Code)
	}
}
