package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
)

// Idempotency keys (issue 14, item 3).
const (
	// IdempotencyKeyHeader names the request a client may retry.
	IdempotencyKeyHeader = "Idempotency-Key"
	// IdempotentReplayedHeader is "true" on a response replayed from an
	// earlier request with the same key.
	IdempotentReplayedHeader = "Idempotent-Replayed"
	// idempotencyWait is how long a request waits for another one with
	// the same key and body to finish before it is told 409: long enough
	// for a submit to complete, short of a client's usual timeout.
	idempotencyWait = 10 * time.Second
)

// replayedHeaders are the response headers a replay repeats; the rest
// (X-Request-ID, Date, ...) belong to the request that gets the replay.
var replayedHeaders = []string{"Content-Type", "Cache-Control", "Location", "Content-Language", "ETag", "Last-Modified"}

// Idempotent makes a creating or metered POST safe to retry. Enabling it
// on a route is one line:
//
//	rt.Handle("POST /api/v4/things/", MaxJSONBody, a.Idempotent(a.createThing))
//
// Without an Idempotency-Key header the handler runs as before. With one
// (1 to 255 printable ASCII characters, else 400), requests are told apart
// by the principal (a partner key or a user token: keys of different
// principals never meet) and the key, and compared by a fingerprint of
// the method, path, query, X-User-ID, media type and body (a multipart
// body by its parts, a JSON body by its value, so a new boundary or key
// order is the same request):
//
//   - the first request runs; a 2xx response is kept for
//     idempotency.Retention (24 h) and replayed to every later request
//     with the same key and fingerprint (status, content headers, body,
//     plus Idempotent-Replayed: true): no second charge, no second job;
//   - a 4xx or 5xx is not kept: it changed nothing, so the retry runs
//     afresh (a quota reset or a finished upload can turn it into a success);
//   - the same key with another fingerprint is 422 idempotency_key_reused,
//     while the first runs and after;
//   - a request arriving while the first still runs waits for it (up to
//     idempotencyWait) and gets its response, or 409
//     idempotency_key_in_progress with Retry-After when it ran longer.
//
// Requests that do not authenticate run the handler unguarded, which
// answers them 401/403 in its own terms. A replay repeats the first
// response as it was: signed URLs in it may have expired by then; read
// the resource again for fresh ones.
func (a *API) Idempotent(h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		const op = "httpapi.Idempotent"
		keys := r.Header.Values(IdempotencyKeyHeader)
		if len(keys) == 0 {
			return h(w, r)
		}
		p, err := a.Authenticated(r)
		if err != nil { // credentials answer first, as on every endpoint
			return h(w, r)
		}
		if len(keys) > 1 || idempotency.ValidateKey(keys[0]) != nil {
			return &errs.Error{Op: op, Kind: errs.Invalid, Code: "invalid_idempotency_key",
				Detail: "Idempotency-Key must be sent once, as 1 to 255 printable ASCII characters."}
		}
		if a.Idempotency == nil {
			return errs.E(op, errs.NotImplemented, "Idempotency keys are not available in this environment.")
		}
		body, readErr := spoolBody(r.Body)
		defer body.Close()
		if errors.Is(readErr, errSpool) {
			return errs.Wrap(op, readErr)
		}
		if readErr != nil {
			// An unreadable body (cut off, over the limit) cannot name a
			// request: the handler meets the same error and answers it.
			r.Body = body.replay(readErr)
			return h(w, r)
		}
		fp, err := requestFingerprint(r, body)
		if err != nil {
			return errs.Wrap(op, err)
		}
		claim, resp, err := a.Idempotency.Acquire(r.Context(), p.ID(), keys[0], fp, idempotencyWait)
		switch {
		case errors.Is(err, idempotency.ErrMismatch):
			return &errs.Error{Op: op, Kind: errs.Unprocessable, Code: "idempotency_key_reused",
				Detail: "This Idempotency-Key was already used for a different request (method, path, X-User-ID or body differ). Use a new key for a new request."}
		case errors.Is(err, idempotency.ErrInProgress):
			return &errs.Error{Op: op, Kind: errs.Conflict, Code: "idempotency_key_in_progress", RetryAfter: time.Second,
				Detail: "A request with this Idempotency-Key is still in progress. Retry after it completes to get its response."}
		case err != nil:
			return errs.Wrap(op, err)
		case resp != nil:
			replay(w, resp)
			return nil
		}
		r.Body = body.replay(nil)
		return a.runClaimed(w, r, h, claim)
	}
}

// runClaimed runs h under claim and keeps its response when it succeeded;
// anything else (an error, a panic, an oversize body) releases the key.
func (a *API) runClaimed(w http.ResponseWriter, r *http.Request, h HandlerFunc, claim *idempotency.Claim) (err error) {
	// The outcome is recorded even when the client has gone: the job exists.
	ctx := context.WithoutCancel(r.Context())
	rec := &responseCapture{ResponseWriter: w}
	done := false
	defer func() {
		if done {
			return
		}
		if rerr := claim.Release(ctx); rerr != nil {
			logger(r).Warn("idempotency release", slog.Any("error", rerr))
		}
	}() // also on panic, which the router recovers
	err = h(rec, r.WithContext(idempotency.WithRequestID(r.Context(), claim.RequestID())))
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	if err != nil || status < 200 || status > 299 || rec.overflow {
		return err
	}
	done = true
	if cerr := claim.Complete(ctx, idempotency.Response{Status: status, Header: rec.header, Body: rec.body}); cerr != nil {
		logger(r).Warn("idempotency record", slog.Any("error", cerr))
	}
	return nil
}

func replay(w http.ResponseWriter, resp *idempotency.Response) {
	for k, v := range resp.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = v
	}
	w.Header().Set(IdempotentReplayedHeader, "true")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// responseCapture passes a response through and keeps a copy for the
// idempotency record.
type responseCapture struct {
	http.ResponseWriter
	status   int
	header   map[string][]string
	body     []byte
	overflow bool // more than idempotency.MaxBody: not kept
}

func (c *responseCapture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
		c.header = map[string][]string{}
		for _, k := range replayedHeaders {
			if v := c.Header().Values(k); len(v) > 0 {
				c.header[k] = v
			}
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *responseCapture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if !c.overflow {
		if len(c.body)+len(b) > idempotency.MaxBody {
			c.overflow, c.body = true, nil
		} else {
			c.body = append(c.body, b...)
		}
	}
	return c.ResponseWriter.Write(b)
}

func (c *responseCapture) Unwrap() http.ResponseWriter { return c.ResponseWriter }
