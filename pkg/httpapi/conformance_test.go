package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDecodeJSONRefusesInvalidUTF8: JSON is UTF-8; a body with other bytes
// in a string is a 400, not text with U+FFFD where the client's bytes were.
func TestDecodeJSONRefusesInvalidUTF8(t *testing.T) {
	for _, body := range []string{"{\"name\": \"\xff\xfe\"}", "{\"name\": \"caf\xe9\"}"} {
		r := httptest.NewRequest("POST", "/x/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		var v struct{ Name string }
		err := DecodeJSON(r, &v)
		w := httptest.NewRecorder()
		if err != nil {
			writeError(w, r, err)
		}
		if err == nil || w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "UTF-8") {
			t.Errorf("%q: decoded %q, %v (%d %s)", body, v.Name, err, w.Code, w.Body)
		}
	}
	r := httptest.NewRequest("POST", "/x/", strings.NewReader(`{"name": "café ☕"}`))
	var v struct{ Name string }
	if err := DecodeJSON(r, &v); err != nil || v.Name != "café ☕" {
		t.Errorf("UTF-8 body: %q, %v", v.Name, err)
	}
}

// TestNotFoundHintsAnExtraTrailingSlash: the license API's paths end
// without a slash; a request with one too many is told the right path.
func TestNotFoundHintsAnExtraTrailingSlash(t *testing.T) {
	rt := testRouter()
	rt.Handle("POST /api/v1/things/make", 100, func(w http.ResponseWriter, r *http.Request) error { return nil })
	w := serve(rt, "POST", "/api/v1/things/make/", "")
	m := decode(t, w)
	e, _ := m["error"].(map[string]any)
	if w.Code != 404 || m["success"] != false || e["code"] != "not_found" ||
		!strings.Contains(e["message"].(string), "Did you mean /api/v1/things/make ") {
		t.Errorf("extra slash: %d %v", w.Code, m)
	}
	// No hint when the path without the slash is no route either, or
	// only for another method.
	for _, c := range []struct{ method, path string }{{"POST", "/api/v1/other/"}, {"GET", "/api/v1/things/make/"}} {
		w := serve(rt, c.method, c.path, "")
		if m := decode(t, w); w.Code != 404 || strings.Contains(w.Body.String(), "Did you mean") {
			t.Errorf("%s %s: %d %v", c.method, c.path, w.Code, m)
		}
	}
}
