package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/errs"
)

// Allowlist pagination (interface.md §4.8, §8).
const (
	allowlistDefaultLimit = 50
	allowlistMaxLimit     = 200
)

func (a *API) mountAllowlist(rt *Router) {
	rt.Handle("GET "+channelsPath, NoBody, a.listChannels)
	rt.Handle("POST "+channelsPath, MaxJSONBody, a.addChannel)
	rt.Handle("DELETE "+channelsPath+"{id}/", NoBody, a.removeChannel)
}

// allowlistOwner resolves the partner key and the optional X-User-ID.
func (a *API) allowlistOwner(r *http.Request) (allowlist.Owner, error) {
	p, err := a.Partner(r, "")
	if err != nil {
		return allowlist.Owner{}, err
	}
	user, err := EndUserID(r, false)
	if err != nil {
		return allowlist.Owner{}, err
	}
	return allowlist.Owner{ClientID: p.Client.ID, EndUser: user}, nil
}

// EndUserID reads X-User-ID exactly as written. Values are opaque to us
// but become part of storage keys, so they are bounded and must be one
// header value (API Gateway splits header values on commas).
func EndUserID(r *http.Request, required bool) (string, error) {
	const op = "httpapi.EndUserID"
	vals := r.Header.Values("X-User-ID")
	switch {
	case len(vals) == 0:
		if required {
			return "", errs.E(op, errs.Invalid, "The X-User-ID header is required.")
		}
		return "", nil
	case len(vals) > 1 || strings.Contains(vals[0], ","):
		return "", errs.E(op, errs.Invalid, "X-User-ID must be a single value without commas.")
	case strings.TrimSpace(vals[0]) == "":
		return "", errs.E(op, errs.Invalid, "X-User-ID must not be blank.")
	case !utf8.ValidString(vals[0]):
		return "", errs.E(op, errs.Invalid, "X-User-ID must be UTF-8 text.")
	case strings.IndexFunc(vals[0], func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		// as the license API's X-User-ID (licensing.NormalizeUserID): a tab
		// or a C1 control would be stored in keys and shown as sent
		return "", errs.E(op, errs.Invalid, "X-User-ID must contain only printable characters.")
	case utf8.RuneCountInString(vals[0]) > allowlist.MaxUserIDLength:
		return "", errs.E(op, errs.Invalid, fmt.Sprintf("X-User-ID must be at most %d characters.", allowlist.MaxUserIDLength))
	}
	return vals[0], nil
}

func (a *API) listChannels(w http.ResponseWriter, r *http.Request) error {
	o, err := a.allowlistOwner(r)
	if err != nil {
		return err
	}
	pp, err := ParsePage(r, allowlistDefaultLimit, allowlistMaxLimit)
	if err != nil {
		return err
	}
	chans, total, err := a.Allowlist.List(r.Context(), o, pp.Limit, pp.Offset)
	if err != nil {
		return err
	}
	next, prev := a.PageLinks(r, pp, pp.Offset+len(chans) < total)
	WriteJSON(w, http.StatusOK, Page[allowlist.Channel]{Count: total, Next: next, Previous: prev, Results: chans})
	return nil
}

// channelsPath is the allowlist's collection (§4.8); a channel is at channelsPath{id}/.
const channelsPath = "/api/v4/allowlist/channels/"

func (a *API) addChannel(w http.ResponseWriter, r *http.Request) error {
	o, err := a.allowlistOwner(r)
	if err != nil {
		return err
	}
	var in allowlist.AddInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	c, created, err := a.Allowlist.Add(r.Context(), o, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", channelsPath+c.ID+"/") // 201: the channel's address (its DELETE)
	}
	WriteJSON(w, status, c)
	return nil
}

func (a *API) removeChannel(w http.ResponseWriter, r *http.Request) error {
	o, err := a.allowlistOwner(r)
	if err != nil {
		return err
	}
	if err := a.Allowlist.Remove(r.Context(), o, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
