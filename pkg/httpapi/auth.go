package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
)

// Authenticator resolves bearer tokens; identity.Service implements it.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (identity.Principal, error)
}

// Client-visible texts of the general (non-license) auth failures.
const (
	msgMissingToken = "Authentication credentials were not provided."
	msgInvalidToken = "Invalid token."
	msgRevoked      = "Token has been revoked."
	msgExpired      = "Token has expired."
	msgInactive     = "Client account is inactive."
	msgNeedsPartner = "This endpoint requires a partner API key, not a user token."
	msgNeedsUser    = "This endpoint requires a signed-in user token."
)

// bearerToken extracts the token of "Authorization: Bearer <token>".
// ok is false when the header is absent; a malformed header yields an
// unusable token, which then fails as an invalid one. So do several
// Authorization headers: which one counts would depend on the layer
// reading them (API Gateway joins them with commas, which no token has).
func bearerToken(r *http.Request) (token string, present bool) {
	h := r.Header.Get("Authorization")
	if len(r.Header.Values("Authorization")) > 1 {
		return "\x00malformed", true
	}
	if h == "" {
		return "", false
	}
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "\x00malformed", true
	}
	return strings.TrimSpace(tok), true
}

type principalSlot struct{ p *identity.Principal }

const principalKey ctxKey = 100

func withPrincipalSlot(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), principalKey, &principalSlot{}))
}

func principalID(r *http.Request) string {
	if s, ok := r.Context().Value(principalKey).(*principalSlot); ok && s.p != nil {
		return s.p.ID()
	}
	return ""
}

// authenticate runs the token check and records the principal for logs.
func (a *API) authenticate(r *http.Request) (*identity.Principal, error) {
	tok, present := bearerToken(r)
	if !present {
		return nil, identity.ErrMissingToken
	}
	p, err := a.Auth.Authenticate(r.Context(), tok)
	if err != nil {
		return nil, err
	}
	if s, ok := r.Context().Value(principalKey).(*principalSlot); ok {
		s.p = &p
	}
	return &p, nil
}

// generalAuthError maps an authentication failure to the {detail} bodies
// of interface.md §7.1/§7.2 (401 for credentials, 403 for a disabled client).
func generalAuthError(err error) error {
	const op = "httpapi.auth"
	unauth := func(msg string) error {
		return &errs.Error{Op: op, Kind: errs.Unauthenticated, Detail: msg}
	}
	switch {
	case errors.Is(err, identity.ErrMissingToken):
		return unauth(msgMissingToken)
	case errors.Is(err, identity.ErrInvalidToken):
		return unauth(msgInvalidToken)
	case errors.Is(err, identity.ErrRevokedToken):
		return unauth(msgRevoked)
	case errors.Is(err, identity.ErrExpiredToken):
		return unauth(msgExpired)
	case errors.Is(err, identity.ErrInactiveClient):
		return errs.E(op, errs.Forbidden, msgInactive)
	}
	return err
}

// Partner requires a partner API key (not a user token), carrying scope
// when scope is non-empty (403 otherwise).
func (a *API) Partner(r *http.Request, scope string) (*identity.Principal, error) {
	p, err := a.authenticate(r)
	if err != nil {
		return nil, generalAuthError(err)
	}
	if p.User != nil {
		return nil, errs.E("httpapi.Partner", errs.Forbidden, msgNeedsPartner)
	}
	if scope != "" && !p.HasScope(scope) {
		return nil, errs.E("httpapi.Partner", errs.Forbidden, "Your API key lacks the '"+scope+"' scope.")
	}
	return p, nil
}

// Authenticated requires any valid token (partner key or user token).
func (a *API) Authenticated(r *http.Request) (*identity.Principal, error) {
	p, err := a.authenticate(r)
	if err != nil {
		return nil, generalAuthError(err)
	}
	return p, nil
}

// SignedInUser requires a user token (playlists, soundtrack render).
func (a *API) SignedInUser(r *http.Request) (*identity.Principal, error) {
	p, err := a.Authenticated(r)
	if err != nil {
		return nil, err
	}
	if p.User == nil {
		return nil, errs.E("httpapi.SignedInUser", errs.Forbidden, msgNeedsUser)
	}
	return p, nil
}

// Optional returns nil for an anonymous request, the principal for a valid
// token, and the general 401/403 for a bad one (public search endpoints).
func (a *API) Optional(r *http.Request) (*identity.Principal, error) {
	if _, present := bearerToken(r); !present {
		return nil, nil
	}
	return a.Authenticated(r)
}

// SFX is the sound-effect listing rule of §5: every failure, including a
// missing key and an account without sound effects, is a 403.
func (a *API) SFX(r *http.Request) (*identity.Principal, error) {
	const op = "httpapi.SFX"
	p, err := a.authenticate(r)
	switch {
	case errors.Is(err, identity.ErrMissingToken), errors.Is(err, identity.ErrInvalidToken),
		errors.Is(err, identity.ErrRevokedToken), errors.Is(err, identity.ErrExpiredToken):
		return nil, errs.E(op, errs.Forbidden, "A valid API key with sound effects enabled is required.")
	case err != nil:
		return nil, generalAuthError(err)
	case !p.Client.SFXEnabled:
		return nil, errs.E(op, errs.Forbidden, "Sound effects are not enabled for this account.")
	}
	return p, nil
}

// AuthFirst runs check (an endpoint's authentication rule) before h, for
// an endpoint whose wrappers answer before it authenticates: an upload's
// size check (Bounded) must not tell a caller without valid credentials
// about file sizes instead of 401/403, as every other endpoint would. The
// handler authenticates again; the token cache makes that cheap.
func AuthFirst(check func(*http.Request) error, h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := check(r); err != nil {
			return err
		}
		return h(w, r)
	}
}
