package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"time"

	"musiccatalog/pkg/ids"
)

// HandlerFunc is an endpoint: it writes a success response or returns an
// error that the router renders in the spec's shape.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Body-size limits (interface.md §8 where it names them; 1 MB for JSON bodies).
const (
	MaxJSONBody int64 = 1_000_000
	// NoBody marks an endpoint whose method takes no body (GET, DELETE):
	// a body sent anyway is ignored, unread, as HTTP says a body there
	// has no meaning, rather than refused.
	NoBody int64 = 0
)

// Router registers endpoints on a ServeMux and wraps them with the
// cross-cutting behaviour every endpoint shares.
type Router struct {
	mux *http.ServeMux
	// secondary holds patterns that overlap a route of another group
	// without being more specific (see HandleSecondary).
	secondary *http.ServeMux
	log       *slog.Logger
	literal   literalRoutes // paths without wildcards and their methods
}

// NewRouter returns an empty router logging to log.
func NewRouter(log *slog.Logger) *Router {
	return &Router{mux: http.NewServeMux(), secondary: http.NewServeMux(), log: log, literal: literalRoutes{}}
}

// Handle registers h for pattern ("METHOD /path/{param}/" in ServeMux
// syntax; a trailing "/" is matched exactly, never as a subtree). maxBody
// caps the request body: larger bodies get 413 {detail}.
func (rt *Router) Handle(pattern string, maxBody int64, h HandlerFunc) {
	rt.handleOn(rt.mux, pattern, maxBody, h)
}

// HandleSecondary registers a pattern that ServeMux would refuse next to
// a route it overlaps without either being more specific
// (/api/v4/{language}/tracks/ and /api/v4/stream/{id}/ both match
// /api/v4/stream/tracks/): it serves only paths no Handle pattern matches.
func (rt *Router) HandleSecondary(pattern string, maxBody int64, h HandlerFunc) {
	rt.handleOn(rt.secondary, pattern, maxBody, h)
}

func (rt *Router) handleOn(mux *http.ServeMux, pattern string, maxBody int64, h HandlerFunc) {
	rt.literal.add(pattern)
	if strings.HasSuffix(pattern, "/") {
		pattern += "{$}"
	}
	mux.Handle(pattern, registered{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if maxBody == NoBody {
			r.Body, r.ContentLength = http.NoBody, 0
		} else if r.ContentLength > maxBody {
			writeError(w, r, tooLarge(maxBody))
			return
		} else {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		if err := h(w, r); err != nil {
			writeError(w, r, err)
		}
	})})
}

// registered marks handlers we mounted, as opposed to the ServeMux's own
// not-found, method-not-allowed and redirect handlers.
type registered struct{ http.Handler }

func isRegistered(h http.Handler) bool { _, ok := h.(registered); return ok }

// HandleRaw mounts a plain handler (signed blob URLs) under a path prefix.
func (rt *Router) HandleRaw(pattern string, h http.Handler) { rt.mux.Handle(pattern, registered{h}) }

type ctxKey int

const (
	loggerKey ctxKey = iota
	requestIDKey
)

func logger(r *http.Request) *slog.Logger {
	if l, ok := r.Context().Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// RequestID returns the id of the request being served.
func RequestID(ctx context.Context) string { s, _ := ctx.Value(requestIDKey).(string); return s }

// statusRecorder remembers the status for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// ServeHTTP adds the request id, the access log, panic recovery and JSON
// bodies for unknown paths (404) and wrong methods (405).
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rid := r.Header.Get("X-Request-ID")
	if rid == "" || len(rid) > 128 {
		rid = ids.NewUUID()
	}
	w.Header().Set("X-Request-ID", rid)
	log := rt.log.With(slog.String("request_id", rid))
	ctx := context.WithValue(context.WithValue(r.Context(), loggerKey, log), requestIDKey, rid)
	r = withPrincipalSlot(r.WithContext(ctx))
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic", slog.Any("panic", p), slog.String("path", r.URL.Path))
			if rec.status == 0 {
				WriteJSON(rec, http.StatusInternalServerError, Detail{internalDetail})
			}
		}
		log.Info("request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Duration("duration", time.Since(start)),
			slog.String("principal", principalID(r)))
	}()
	if isPreflight(r) {
		// A CORS preflight that API Gateway forwards (an ANY route
		// matches OPTIONS too): 204, and API Gateway adds the CORS headers
		// of the HttpApi's CorsConfiguration. The request it announces is
		// checked when it comes.
		rec.WriteHeader(http.StatusNoContent)
		return
	}
	if allow, wrong := rt.literal.wrongMethod(r); wrong {
		rec.Header().Set("Allow", allow)
		writeRouted(rec, r, http.StatusMethodNotAllowed, methodNotAllowed(r))
		return
	}
	mux := rt.mux
	if h, _ := rt.mux.Handler(r); !isRegistered(h) {
		sh, _ := rt.secondary.Handler(r)
		if isRegistered(sh) {
			mux = rt.secondary
		} else {
			if status(h, r) == http.StatusNotFound && status(sh, r) == http.StatusMethodNotAllowed {
				h = sh // the path is a secondary route's: a wrong method, not a missing path
			}
			rt.unmatched(rec, r, h)
			return
		}
	}
	if f, ok := r.URL.Query()["format"]; ok && slices.ContainsFunc(f, func(v string) bool { return v != "json" }) {
		// interface.md §4.4: `format` is reserved for content negotiation;
		// JSON is the only format, and other values are 404 before any
		// endpoint runs.
		writeRouted(rec, r, http.StatusNotFound, "Not found: the only format is json.")
		return
	}
	mux.ServeHTTP(rec, r) // through the mux, which sets the path values
}

// isPreflight says whether r is a CORS preflight: OPTIONS announcing a
// cross-origin request's method.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// status is the status a ServeMux's own (unregistered) handler answers r with.
func status(h http.Handler, r *http.Request) int {
	probe := httptest.NewRecorder()
	h.ServeHTTP(probe, r)
	return probe.Code
}

// unmatched turns ServeMux's plain-text 404/405 (and its redirects) into
// JSON bodies while keeping their status and Allow header.
func (rt *Router) unmatched(w http.ResponseWriter, r *http.Request, h http.Handler) {
	probe := httptest.NewRecorder()
	h.ServeHTTP(probe, r)
	switch probe.Code {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", probe.Header().Get("Allow"))
		writeRouted(w, r, probe.Code, methodNotAllowed(r))
	case http.StatusNotFound:
		if p := rt.slashHint(r); p != "" {
			writeRouted(w, r, http.StatusNotFound, "Not found. Did you mean "+p+" (without the trailing slash)?")
			return
		}
		writeRouted(w, r, http.StatusNotFound, "Not found.")
	case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// Paths are exact, as the spec writes them: say where the endpoint
		// is instead of redirecting (a redirected POST would lose its body).
		// Only the trailing-slash redirect earns a hint: the mux also
		// redirects to a cleaned path ("//" collapsed), which may not exist.
		loc := probe.Header().Get("Location")
		if u, err := url.Parse(loc); err == nil && u.Path == r.URL.Path+"/" {
			writeRouted(w, r, http.StatusNotFound, "Not found. Did you mean "+loc+" (paths end with a slash)?")
			return
		}
		writeRouted(w, r, http.StatusNotFound, "Not found.")
	default:
		for k, v := range probe.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(probe.Code)
		_, _ = w.Write(probe.Body.Bytes())
	}
}
