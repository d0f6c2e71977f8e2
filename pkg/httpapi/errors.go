package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"musiccatalog/pkg/errs"
)

// statusOf maps error kinds to HTTP statuses (DESIGN.md §9).
var statusOf = map[errs.Kind]int{
	errs.Internal:        http.StatusInternalServerError,
	errs.Invalid:         http.StatusBadRequest,
	errs.Unauthenticated: http.StatusUnauthorized,
	errs.Forbidden:       http.StatusForbidden,
	errs.NotFound:        http.StatusNotFound,
	errs.Conflict:        http.StatusConflict,
	errs.TooLarge:        http.StatusRequestEntityTooLarge,
	errs.Unprocessable:   http.StatusUnprocessableEntity,
	errs.RateLimited:     http.StatusTooManyRequests,
	errs.Unavailable:     http.StatusServiceUnavailable,
	errs.NotImplemented:  http.StatusNotImplemented,
}

// internalDetail is all a client ever learns of an internal error.
const internalDetail = "Internal server error. Please retry later."

// Detail is the common error body {detail}.
type Detail struct {
	Detail string `json:"detail"`
}

// writeError writes err in the spec's shape: Body when set, else field
// errors, else {detail[, error_code]}. Internal causes are logged, not sent.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		err = tooLarge(mbe.Limit)
	}
	var e *errs.Error
	if !errors.As(err, &e) {
		e = &errs.Error{Kind: errs.Internal, Err: err}
	}
	status := statusOf[e.Kind]
	if e.Status != 0 {
		status = e.Status
	}
	if status >= 500 {
		logger(r).Error("request failed", slog.String("op", e.Op), slog.Int("status", status), slog.Any("error", err))
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
	}
	if e.RetryAfter > 0 {
		secs := int64((e.RetryAfter + 999_999_999) / 1_000_000_000)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	switch {
	case e.Body != nil:
		WriteJSON(w, status, e.Body)
	case len(e.Fields) > 0:
		WriteJSON(w, status, e.Fields)
	case e.Kind == errs.Internal:
		WriteJSON(w, status, Detail{internalDetail})
	case e.Code != "":
		WriteJSON(w, status, struct {
			Detail    string `json:"detail"`
			ErrorCode string `json:"error_code"`
		}{e.Detail, e.Code})
	default:
		WriteJSON(w, status, Detail{e.Detail})
	}
}

func tooLarge(limit int64) error {
	return errs.E("httpapi", errs.TooLarge, "Request body too large: the limit for this endpoint is "+humanBytes(limit)+".")
}

func humanBytes(n int64) string {
	const mb = 1000 * 1000
	if n >= mb && n%mb == 0 {
		return strconv.FormatInt(n/mb, 10) + " MB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
