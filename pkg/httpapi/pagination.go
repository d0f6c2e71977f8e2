package httpapi

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"musiccatalog/pkg/errs"
)

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
	if s := q.Get("limit"); s != "" {
		n, ok := nonNegative(s)
		if !ok || n < 1 {
			return p, errs.Field(op, "limit", "Ensure this value is a positive integer.")
		}
		p.Limit = min(n, maxLimit)
	}
	if s := q.Get("offset"); s != "" {
		n, ok := nonNegative(s)
		if !ok {
			return p, errs.Field(op, "offset", "Ensure this value is an integer greater than or equal to 0.")
		}
		p.Offset = n
	}
	return p, nil
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

// absoluteURL is the request's own URL as the client addressed it.
func absoluteURL(r *http.Request) *url.URL {
	u := *r.URL
	if u.Scheme == "" {
		u.Scheme = "http"
		if r.TLS != nil {
			u.Scheme = "https"
		}
		if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
			u.Scheme = p
		}
	}
	if u.Host == "" {
		u.Host = r.Host
	}
	u.Fragment = ""
	return &u
}

// PageLinks builds absolute next/previous URLs that keep every other query
// parameter. hasMore says whether results exist past this page.
func PageLinks(r *http.Request, p PageParams, hasMore bool) (next, previous *string) {
	link := func(offset int) *string {
		u := absoluteURL(r)
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
