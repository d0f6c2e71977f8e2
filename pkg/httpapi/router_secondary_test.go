package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSecondaryRoutes: a pattern that overlaps a primary route without
// either being more specific serves only the paths the primary ones leave.
func TestSecondaryRoutes(t *testing.T) {
	rt := NewRouter(slog.New(slog.NewTextHandler(io.Discard, nil)))
	answer := func(name string) HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			WriteJSON(w, 200, map[string]string{"by": name, "x": r.PathValue("x")})
			return nil
		}
	}
	rt.Handle("GET /api/stream/{id}/", NoBody, answer("primary"))
	rt.HandleSecondary("GET /api/{x}/tracks/", NoBody, answer("secondary"))
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/api/stream/tracks/", 200, `{"by":"primary","x":""}`},
		{"GET", "/api/en/tracks/", 200, `{"by":"secondary","x":"en"}`},
		{"POST", "/api/en/tracks/", 405, `{"detail":"Method \"POST\" not allowed."}`},
		{"GET", "/api/en/other/", 404, `{"detail":"Not found."}`},
	} {
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		if w.Code != c.status || w.Body.String() != c.body+"\n" {
			t.Errorf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
		}
		if allow := w.Header().Get("Allow"); c.status == 405 && allow != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q, want GET, HEAD", c.method, c.path, allow)
		}
	}
}
