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
	for _, body := range []string{"{\"name\": \"\xff\xfe\"}", "{\"name\": \"caf\xe9\"}",
		// escaped surrogates that are no character (the decoder made U+FFFD)
		`{"name": "a\ud800"}`, `{"name": "\uDC00b"}`, `{"name": "\ud800\u0041"}`, `{"x": {"name": ["\udbff"]}}`, `{"name": "\ud800\\udc00"}`} {
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
	for body, want := range map[string]string{
		`{"name": "café ☕"}`:                      "café ☕",
		`{"name": "\ud83c\udfb5 \u00e9 \\ud800"}`: "🎵 é \\ud800", // a pair, an escaped backslash
		`{"\ud800": 1, "name": "ok"}`:             "ok",          // a garbled key names no field
	} {
		r := httptest.NewRequest("POST", "/x/", strings.NewReader(body))
		var v struct{ Name string }
		if err := DecodeJSON(r, &v); err != nil || v.Name != want {
			t.Errorf("%s: %q, %v; want %q", body, v.Name, err, want)
		}
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

// TestDecodeJSONNamesEveryWrongType: every field of the wrong JSON type is
// named in one 400, not only the first the decoder met (a review found a
// wrong include_stems hiding a wrong format).
func TestDecodeJSONNamesEveryWrongType(t *testing.T) {
	type body struct {
		Name    string   `json:"name"`
		Formats []string `json:"format"`
		Stems   bool     `json:"include_stems"`
		Volume  float64  `json:"volume"`
		Inner   struct {
			N int `json:"n"`
		} `json:"inner"`
	}
	r := httptest.NewRequest("POST", "/x/", strings.NewReader(`{"include_stems":"x","name":5,"format":"mp3","volume":0.5,"inner":{"n":"a"},"other":1}`))
	var v body
	err := DecodeJSON(r, &v)
	w := httptest.NewRecorder()
	writeError(w, r, err)
	for _, want := range []string{`"include_stems":["Invalid type: expected true or false."]`, `"name":["Invalid type: expected a string."]`,
		`"format":["Invalid type: expected a list."]`, `"inner.n":["Invalid type: expected an integer."]`} {
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%d %s; want %s", w.Code, w.Body, want)
		}
	}
	if strings.Contains(w.Body.String(), "volume") || strings.Contains(w.Body.String(), "other") {
		t.Errorf("a right or unknown field named: %s", w.Body)
	}
}
