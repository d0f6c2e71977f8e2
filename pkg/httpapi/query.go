package httpapi

import (
	"net/url"

	"musiccatalog/pkg/errs"
)

// msgRepeated answers a single-valued query parameter sent more than once
// with different values: which one the caller meant is not ours to guess
// (Go would read the first, Django the last).
const msgRepeated = "Send this parameter once; it was given different values."

// Repeated returns the 400 field error naming each of names that q
// carries more than once with different values, or nil. The same value
// repeated is harmless and accepted.
func Repeated(op string, q url.Values, names ...string) error {
	var fields map[string][]string
	for _, name := range names {
		vals := q[name]
		for _, v := range vals[min(1, len(vals)):] {
			if v != vals[0] {
				if fields == nil {
					fields = map[string][]string{}
				}
				fields[name] = []string{msgRepeated}
				break
			}
		}
	}
	if fields == nil {
		return nil
	}
	return &errs.Error{Op: op, Kind: errs.Invalid, Fields: fields}
}
