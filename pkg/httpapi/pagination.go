package httpapi

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"musiccatalog/pkg/errs"
)

// Page is a paginated list response: the total count, the links to the
// next and previous pages (null at either end) and this page's results.
type Page[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}

// PageParams are a request's limit and offset.
type PageParams struct {
	Limit, Offset int
}

// ParsePage reads limit/offset with the endpoint's default and maximum. A
// limit over the maximum is clamped (as the reference API does); a
// non-integer or negative value is a 400 field error.
func ParsePage(r *http.Request, defaultLimit, maxLimit int) (PageParams, error) {
	const op = "httpapi.ParsePage"
	q := r.URL.Query()
	p := PageParams{Limit: defaultLimit}
	bad := map[string][]string{} // every bad parameter at once
	if s := q.Get("limit"); s != "" {
		n, ok := nonNegative(s)
		if !ok || n < 1 {
			bad["limit"] = []string{"Ensure this value is a positive integer."}
		} else {
			p.Limit = min(n, maxLimit)
		}
	}
	if s := q.Get("offset"); s != "" {
		n, ok := nonNegative(s)
		if !ok {
			bad["offset"] = []string{"Ensure this value is an integer greater than or equal to 0."}
		} else {
			p.Offset = n
		}
	}
	if len(bad) > 0 {
		return p, MergeFieldErrors(&errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}, Repeated(op, q, "limit", "offset"))
	}
	return p, Repeated(op, q, "limit", "offset")
}

// nonNegative parses a non-negative decimal integer; one too large for an
// int saturates (a limit of 10^20 is clamped like 101, an offset that far
// is past every list) instead of being called malformed.
func nonNegative(s string) (int, bool) {
	n, err := strconv.ParseInt(s, 10, 0)
	if errors.Is(err, strconv.ErrRange) && s[0] != '-' {
		return math.MaxInt32, true // far past any list, and offset+limit cannot overflow
	}
	if err != nil || n < 0 {
		return 0, false
	}
	return int(n), true
}

// publicBase is the API's public address, scheme://host[/prefix]:
// PublicBaseURL when configured, else the origin the platform vouches for
// (on Lambda the adapter builds r.URL from API Gateway's domain name), else
// "" (links are then relative). Never the client's Host or X-Forwarded-*
// headers: a link built from them points wherever the client says.
func (a *API) publicBase(r *http.Request) string {
	if b, err := url.Parse(a.PublicBaseURL); a.PublicBaseURL != "" && err == nil && b.Host != "" {
		return b.Scheme + "://" + b.Host + strings.TrimRight(b.Path, "/")
	}
	if r.URL.Host != "" && r.URL.Scheme != "" {
		return r.URL.Scheme + "://" + r.URL.Host
	}
	return ""
}

// linkURL is this request's path and query at publicBase.
func (a *API) linkURL(r *http.Request) *url.URL {
	u := &url.URL{Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	if b, err := url.Parse(a.publicBase(r)); err == nil && b.Host != "" {
		u.Scheme, u.Host, u.Path = b.Scheme, b.Host, b.Path+u.Path
	}
	return u
}

// PageLinks builds absolute next/previous URLs that keep every other query
// parameter. hasMore says whether results exist past this page.
func (a *API) PageLinks(r *http.Request, p PageParams, hasMore bool) (next, previous *string) {
	link := func(offset int) *string {
		u := a.linkURL(r)
		q := u.Query()
		q.Set("limit", strconv.Itoa(p.Limit))
		if offset > 0 {
			q.Set("offset", strconv.Itoa(offset))
		} else {
			q.Del("offset")
		}
		u.RawQuery = q.Encode()
		s := u.String()
		return &s
	}
	if hasMore {
		next = link(p.Offset + p.Limit)
	}
	if p.Offset > 0 {
		previous = link(max(0, p.Offset-p.Limit))
	}
	return next, previous
}
