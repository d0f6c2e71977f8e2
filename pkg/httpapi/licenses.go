package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/licensing"
	"musiccatalog/pkg/quota"
)

// LicenseService is what the license endpoints need.
type LicenseService interface {
	Generate(ctx context.Context, c identity.Client, in licensing.Input) (licensing.Result, error)
	Get(ctx context.Context, clientID, id string) (licensing.License, error)
	List(ctx context.Context, clientID string, f licensing.Filter, limit, offset int) ([]licensing.License, int, error)
	Public(ctx context.Context, id string) (licensing.License, error)
}

// License listing pagination: the search and playlist defaults of §8.
const (
	licenseDefaultLimit = 20
	licenseMaxLimit     = 100
)

// License error codes of interface.md §7.3 decided here (authentication,
// X-User-ID), and the codes of failures the table has no row for.
const (
	codeMissingUserID  = "missing_user_id"
	codeMissingToken   = "missing_token"
	codeInvalidToken   = "invalid_token"
	codeRevokedToken   = "revoked_token"
	codeExpiredToken   = "expired_token"
	codeInactiveClient = "inactive_client"
	codeMissingScope   = "missing_scope"
	codeUnavailable    = "service_unavailable"
	codeInternal       = "internal_error"
)

// msgOneUserID refuses several X-User-ID values, or one with a comma
// (which API Gateway's Lambda adapter would split into several).
const msgOneUserID = "Send one X-User-ID header holding one value without commas."

// licenseGeneratePath is the one POST of the license API (§4.6).
const licenseGeneratePath = licenseAPIPrefix + "licenses/generate"

func (a *API) mountLicenses(rt *Router) {
	// The body limit is enforced by the handler, so that an oversize body
	// is answered in the license error shape like every other failure.
	// Idempotency-Key reads the body before the handler does, so the body
	// is bounded first; an oversize body still reaches the handler's own
	// license-shaped answer.
	rt.Handle("POST "+licenseGeneratePath, math.MaxInt64,
		a.licenseRoute(AuthFirst(a.licenseAuth, boundBody(MaxJSONBody, a.Idempotent(a.generateLicense)))))
	rt.Handle("GET /api/v1/licenses/", NoBody, a.licenseRoute(a.listLicenses))
	rt.Handle("GET /api/v1/licenses/{license_id}", NoBody, a.licenseRoute(a.getLicense))
	rt.Handle("GET /v/{license_id}", NoBody, a.licensePage)
}

// licenseRoute renders every error of a license endpoint in the §7.1
// license shape {success: false, error: {code, message, details}}.
func (a *API) licenseRoute(h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		err := h(w, r)
		if err == nil {
			return nil
		}
		return licenseError(err, a.Clock.Now())
	}
}

type licenseErrorJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

type licenseFailure struct {
	Success bool             `json:"success"`
	Error   licenseErrorJSON `json:"error"`
	Usage   *usageJSON       `json:"usage,omitempty"` // on a 429 throttled (§8)
}

// throttleDetails are the details of a 429 throttled.
type throttleDetails struct {
	Window   string `json:"window"`
	Limit    int64  `json:"limit"`
	Used     int64  `json:"used"`
	ResetsAt string `json:"resets_at"`
}

func licenseError(err error, now time.Time) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		e = &errs.Error{Op: "httpapi.licenses", Kind: errs.Internal, Err: err}
	}
	out := *e
	body := licenseErrorJSON{Code: e.Code, Message: e.Detail}
	var usage *usageJSON
	if len(e.Fields) > 0 {
		body.Details = e.Fields
	}
	switch e.Kind {
	case errs.Internal:
		body = licenseErrorJSON{Code: codeInternal, Message: internalDetail}
	case errs.Unavailable:
		body.Code = codeUnavailable
	case errs.Invalid, errs.TooLarge:
		// Every malformed request is a validation_error (§7.3), also a
		// wrong content type or an oversize body.
		out.Kind, out.Status = errs.Invalid, http.StatusBadRequest
		if body.Code == "" {
			body.Code = licensing.CodeValidation
		}
		if body.Code == licensing.CodeValidation && body.Details == nil {
			body.Details = map[string][]string{"body": {e.Detail}}
			body.Message = licensing.MsgValidation
		}
		if body.Message == "" { // field errors of a shared parser (paging) carry no message
			body.Message = licensing.MsgValidation
		}
	case errs.RateLimited:
		var qe *quota.ExceededError
		if errors.As(err, &qe) {
			u := qe.Usage
			out.RetryAfter = max(time.Second, u.ResetsAt.Sub(now))
			body.Details = throttleDetails{Window: string(u.Window), Limit: u.Cap, Used: u.Used,
				ResetsAt: u.ResetsAt.UTC().Format(time.RFC3339)}
		}
		var th *licensing.Throttled
		if errors.As(err, &th) {
			usage = usageOf(th.Usage)
		}
	}
	if body.Code == "" {
		body.Code = cmp.Or(fallbackCodes[out.Kind], codeInternal)
	}
	out.Body = licenseFailure{Error: body, Usage: usage}
	return &out
}

// fallbackCodes name failures that carry no code of their own.
var fallbackCodes = map[errs.Kind]string{
	errs.Unauthenticated: codeInvalidToken,
	errs.Forbidden:       codeMissingScope,
	errs.NotFound:        licensing.CodeLicenseNotFound,
	errs.RateLimited:     licensing.CodeThrottled,
}

// licenseAuthError maps authentication failures to the §7.3 codes.
func licenseAuthError(err error) error {
	const op = "httpapi.licenseAuth"
	fail := func(k errs.Kind, code, msg string) error {
		return &errs.Error{Op: op, Kind: k, Code: code, Detail: msg}
	}
	switch {
	case errors.Is(err, identity.ErrMissingToken):
		return fail(errs.Unauthenticated, codeMissingToken, msgMissingToken)
	case errors.Is(err, identity.ErrInvalidToken):
		return fail(errs.Unauthenticated, codeInvalidToken, msgInvalidToken)
	case errors.Is(err, identity.ErrRevokedToken):
		return fail(errs.Unauthenticated, codeRevokedToken, msgRevoked)
	case errors.Is(err, identity.ErrExpiredToken):
		return fail(errs.Unauthenticated, codeExpiredToken, msgExpired)
	case errors.Is(err, identity.ErrInactiveClient):
		return fail(errs.Forbidden, codeInactiveClient, msgInactive)
	}
	return err
}

// licenseAuth is LicensePartner as an AuthFirst rule: a key without the
// licenses scope is 403 before its Idempotency-Key is checked.
func (a *API) licenseAuth(r *http.Request) error {
	_, err := a.LicensePartner(r)
	return err
}

// LicensePartner is the license rule of §5: a partner API key carrying
// scope licenses:generate. A user token is refused even when its client
// has the scope: a license names the end user in X-User-ID, which only
// the partner may assert.
func (a *API) LicensePartner(r *http.Request) (*identity.Principal, error) {
	p, err := a.authenticate(r)
	if err != nil {
		return nil, licenseAuthError(err)
	}
	if p.User != nil || !p.HasScope(identity.ScopeLicenses) {
		return nil, &errs.Error{Op: "httpapi.LicensePartner", Kind: errs.Forbidden, Code: codeMissingScope,
			Detail: "A partner API key with the '" + identity.ScopeLicenses + "' scope is required."}
	}
	return p, nil
}

// licenseJSON is the License of interface.md §2.6 (plus project_name).
type licenseJSON struct {
	LicenseID   string  `json:"license_id"`
	LicenseURL  string  `json:"license_url"`
	TrackID     string  `json:"track_id"`
	TrackName   string  `json:"track_name"`
	ArtistName  string  `json:"artist_name"`
	UserID      string  `json:"user_id"`
	ProjectName *string `json:"project_name"`
	CreatedAt   string  `json:"created_at"`
	ExpiresAt   *string `json:"expires_at"`
}

func toLicenseJSON(l licensing.License) licenseJSON {
	out := licenseJSON{LicenseID: l.ID, LicenseURL: l.ID, // §9: license_url is the id for now
		TrackID: l.TrackID, TrackName: l.TrackName, ArtistName: l.ArtistName, UserID: l.UserID,
		CreatedAt: l.CreatedAt.UTC().Format(time.RFC3339)}
	if l.ProjectName != "" {
		out.ProjectName = &l.ProjectName
	}
	if l.ExpiresAt != nil {
		s := l.ExpiresAt.UTC().Format(time.RFC3339)
		out.ExpiresAt = &s
	}
	return out
}

type usageJSON struct {
	DailyUsed    int64 `json:"daily_used"`
	MonthlyUsed  int64 `json:"monthly_used"`
	DailyLimit   int64 `json:"daily_limit"`
	MonthlyLimit int64 `json:"monthly_limit"`
}

func usageOf(u licensing.Usage) *usageJSON {
	return &usageJSON{DailyUsed: u.DailyUsed, MonthlyUsed: u.MonthlyUsed, DailyLimit: u.DailyLimit, MonthlyLimit: u.MonthlyLimit}
}

type generateResponse struct {
	Success bool        `json:"success"`
	License licenseJSON `json:"license"`
	Usage   usageJSON   `json:"usage"`
}

func (a *API) generateLicense(w http.ResponseWriter, r *http.Request) error {
	p, err := a.LicensePartner(r)
	if err != nil {
		return err
	}
	if len(r.Header.Values("X-User-ID")) == 0 {
		return &errs.Error{Op: "httpapi.generateLicense", Kind: errs.Invalid, Code: codeMissingUserID,
			Detail: "The X-User-ID header is required: the partner's identifier of the end user."}
	}
	in, err := decodeLicenseRequest(w, r)
	if err != nil {
		return err
	}
	in.Key = p.TokenID // the burst limit is per key (§8)
	res, err := a.Licenses.Generate(r.Context(), p.Client, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, generateResponse{Success: true, License: toLicenseJSON(res.License), Usage: *usageOf(res.Usage)})
	return nil
}

// decodeLicenseRequest reads X-User-ID and the JSON body of a generate
// call and reports every bad field at once: the header, a wrong content
// type, a body that is not one JSON object, unknown fields, wrong types
// and the values the domain refuses.
func decodeLicenseRequest(w http.ResponseWriter, r *http.Request) (licensing.Input, error) {
	const op = "httpapi.decodeLicenseRequest"
	fields := map[string][]string{}
	bad := func(f, msg string) { fields[f] = append(fields[f], msg) }
	var in licensing.Input
	if vals := r.Header.Values("X-User-ID"); len(vals) > 1 || strings.Contains(vals[0], ",") {
		// One value without commas: API Gateway joins repeated headers
		// with commas and the Lambda adapter splits them again, so on AWS
		// "a,b" arrives as two values; the devserver answers the same.
		bad(licensing.FieldUserID, msgOneUserID)
	} else {
		in.UserID = vals[0]
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && !isJSONSuffix(mt)) {
		bad("Content-Type", "Send the body as application/json.")
		return in, licensing.ValidationError(op, fields)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			bad("body", "Request body too large: the limit is "+humanBytes(MaxJSONBody)+".")
		} else {
			bad("body", "Could not read the request body.")
		}
		return in, licensing.ValidationError(op, fields)
	}
	if !utf8.Valid(body) {
		bad("body", msgNotUTF8)
		return in, licensing.ValidationError(op, fields)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		bad("body", "Send one JSON object: {\"track_id\": \"<uuid>\", \"project_name\": \"...\"}.")
		return in, licensing.ValidationError(op, fields)
	}
	for name, v := range raw {
		switch name {
		case licensing.FieldTrackID:
			if !jsonString(v, &in.TrackID) {
				bad(name, "Must be a string.")
			}
		case licensing.FieldProjectName:
			if !bytes.Equal(v, []byte("null")) && !jsonString(v, &in.ProjectName) {
				bad(name, "Must be a string.")
			}
		default:
			bad(name, "Unknown field.")
		}
	}
	for f, msgs := range in.Problems() {
		if _, already := fields[f]; !already {
			fields[f] = msgs
		}
	}
	if len(fields) > 0 {
		return in, licensing.ValidationError(op, fields)
	}
	return in, nil
}

// jsonString decodes v into s when v is a JSON string.
func jsonString(v json.RawMessage, s *string) bool {
	return len(v) > 0 && v[0] == '"' && json.Unmarshal(v, s) == nil
}

type licenseEnvelope struct {
	Success bool        `json:"success"`
	License licenseJSON `json:"license"`
}

func (a *API) getLicense(w http.ResponseWriter, r *http.Request) error {
	p, err := a.LicensePartner(r)
	if err != nil {
		return err
	}
	l, err := a.Licenses.Get(r.Context(), p.Client.ID, r.PathValue("license_id"))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, licenseEnvelope{Success: true, License: toLicenseJSON(l)})
	return nil
}

type licenseList struct {
	Success  bool          `json:"success"`
	Count    int           `json:"count"`
	Next     *string       `json:"next"`
	Previous *string       `json:"previous"`
	Results  []licenseJSON `json:"results"`
}

func (a *API) listLicenses(w http.ResponseWriter, r *http.Request) error {
	p, err := a.LicensePartner(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	pp, err := ParsePage(r, licenseDefaultLimit, licenseMaxLimit)
	if err = MergeFieldErrors(err, Repeated("httpapi.listLicenses", q, "user_id", "track_id")); err != nil {
		return err
	}
	f := licensing.Filter{UserID: q.Get("user_id"), TrackID: q.Get("track_id")}
	ls, total, err := a.Licenses.List(r.Context(), p.Client.ID, f, pp.Limit, pp.Offset)
	if err != nil {
		return err
	}
	out := make([]licenseJSON, len(ls))
	for i, l := range ls {
		out[i] = toLicenseJSON(l)
	}
	next, prev := a.PageLinks(r, pp, pp.Offset+len(ls) < total)
	WriteJSON(w, http.StatusOK, licenseList{Success: true, Count: total, Next: next, Previous: prev, Results: out})
	return nil
}

// boundBody caps the body of a route that enforces its limit in its own
// error shape, for wrappers that read the body before the handler.
func boundBody(limit int64, h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		return h(w, r)
	}
}
