package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"musiccatalog/pkg/errs"
)

// fuzzTarget has the field types request bodies use.
type fuzzTarget struct {
	Filename      *string         `json:"filename"`
	ContentLength *int64          `json:"content_length"`
	IsPublic      *bool           `json:"is_public"`
	Tags          []string        `json:"tags"`
	Score         float64         `json:"score"`
	File          json.RawMessage `json:"file"`
	Nested        struct {
		Items []map[string]int `json:"items"`
	} `json:"nested"`
}

// FuzzDecodeJSON checks the JSON body decoder on any body and content
// type: it accepts exactly the bodies that are one JSON object (or empty,
// which decodes as an object without fields), refuses
// everything else as a 400 or 415 in the spec's shape (never a 500, never
// an unbounded message), and what it accepts survives a round trip.
// Seeds: testdata/fuzz/FuzzDecodeJSON.
func FuzzDecodeJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		newReq := func(b []byte) *http.Request {
			r := httptest.NewRequest("POST", "/x/", bytes.NewReader(b))
			if contentType != "" {
				r.Header.Set("Content-Type", contentType)
			}
			r.Body = http.MaxBytesReader(nil, r.Body, MaxJSONBody)
			return r
		}
		var v fuzzTarget
		err := DecodeJSON(newReq(body), &v)
		trimmed := bytes.TrimSpace(body)
		isObject := (len(trimmed) == 0 || trimmed[0] == '{' && json.Valid(trimmed)) && len(body) <= int(MaxJSONBody)
		if err == nil {
			if !isObject {
				t.Fatalf("accepted %q", body)
			}
		} else {
			w := httptest.NewRecorder()
			writeError(w, httptest.NewRequest("POST", "/x/", nil), err)
			var mbe *http.MaxBytesError
			switch {
			case errors.As(err, &mbe):
				if w.Code != http.StatusRequestEntityTooLarge {
					t.Fatalf("oversize body answered %d", w.Code)
				}
			case !errs.Is(err, errs.Invalid) || (w.Code != 400 && w.Code != 415):
				t.Fatalf("%q (%q): %v answered %d, want 400 or 415", body, contentType, err, w.Code)
			}
			if !json.Valid(w.Body.Bytes()) || w.Body.Len() > 1024 {
				t.Fatalf("error body %q", w.Body)
			}
		}
		// Round trip: an accepted object, re-encoded, decodes to the same value.
		var m map[string]any
		if DecodeJSON(newReq(body), &m) != nil {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("re-encode %v: %v", m, err)
		}
		var m2 map[string]any
		if err := DecodeJSON(newReq(again), &m2); err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip of %q: %v, %v != %v", body, err, m2, m)
		}
	})
}
