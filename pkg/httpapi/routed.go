package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// The router's own answers (unknown path, wrong method, a reserved
// `format`) are errors of whatever endpoint the client meant, so they
// take that endpoint's error shape: {detail} everywhere, and under the
// license API (/api/v1/, interface.md §7.1, §9) its
// {success: false, error: {code, message}}, which a license client parses.

// licenseAPIPrefix is where the license endpoints live (§9: the only v1 API).
const licenseAPIPrefix = "/api/v1/"

// Router-level error codes of the license shape (beyond §7.3's table).
const (
	codeNotFound         = "not_found"
	codeMethodNotAllowed = "method_not_allowed"
)

// writeRouted writes a router-level error in the shape of the API at
// r's path.
func writeRouted(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if !strings.HasPrefix(r.URL.Path, licenseAPIPrefix) {
		WriteJSON(w, status, Detail{msg})
		return
	}
	code := codeNotFound
	if status == http.StatusMethodNotAllowed {
		code = codeMethodNotAllowed
	}
	WriteJSON(w, status, licenseFailure{Error: licenseErrorJSON{Code: code, Message: msg}})
}

// methodNotAllowed is the 405 text for r.
func methodNotAllowed(r *http.Request) string { return "Method \"" + r.Method + "\" not allowed." }

// slashHint names the registered path a request for p meant when p only
// has a trailing slash too many ("" when there is none): the license API's
// paths end without one, unlike the v4 paths.
func (rt *Router) slashHint(r *http.Request) string {
	p := r.URL.Path
	if len(p) < 2 || !strings.HasSuffix(p, "/") {
		return ""
	}
	trimmed := r.Clone(r.Context())
	trimmed.URL.Path, trimmed.URL.RawPath = strings.TrimSuffix(p, "/"), ""
	if h, _ := rt.mux.Handler(trimmed); isRegistered(h) {
		return trimmed.URL.Path
	}
	return ""
}

// literalRoutes maps each path registered without wildcards to its
// methods. A literal path names one endpoint, so a request for it with
// another method is a 405 even where a wildcard route of that method
// would match it too: GET /api/v1/licenses/generate is not a lookup of
// license "generate", nor GET …/video-recognition/upload-url/ a poll of
// job "upload-url".
type literalRoutes map[string][]string

func (l literalRoutes) add(pattern string) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok || strings.Contains(path, "{") {
		return
	}
	l[path] = append(l[path], method)
}

// wrongMethod says whether r names a literal path without its method, and
// what Allow lists then (HEAD wherever GET is, as ServeMux does).
func (l literalRoutes) wrongMethod(r *http.Request) (allow string, wrong bool) {
	methods, ok := l[r.URL.Path]
	m := r.Method
	if m == http.MethodHead {
		m = http.MethodGet
	}
	if !ok || slices.Contains(methods, m) {
		return "", false
	}
	allowed := slices.Clone(methods)
	if slices.Contains(allowed, http.MethodGet) {
		allowed = append(allowed, http.MethodHead)
	}
	slices.Sort(allowed)
	return strings.Join(slices.Compact(allowed), ", "), true
}
