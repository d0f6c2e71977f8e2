package idempotency

import (
	"context"
	"time"
)

// Earlier is what a create run under a RequestID needs to know of a
// record already named by that id: who made it and when.
type Earlier struct {
	Owner   string
	Created time.Time
}

// CreateID returns the id a create run under requestID (a
// Claim.RequestID, "" for a request sent without a key) gives the record
// it writes, and prior when an earlier run of the same request already
// wrote it. load reads the record named id: found false when there is
// none. The id is requestID when nothing has it yet; prior is the record
// when it is caller's and younger than Retention (the earlier run
// answered an error after its write, or died before answering); a record
// that is not (a key reused much later) leaves the new record a fresh()
// id. Every create that names its record with a RequestID decides this
// way.
func CreateID[T any](ctx context.Context, requestID, caller string, now time.Time, fresh func() string,
	load func(ctx context.Context, id string) (rec T, e Earlier, found bool, err error)) (string, *T, error) {
	if requestID == "" {
		return fresh(), nil, nil
	}
	rec, e, found, err := load(ctx, requestID)
	switch {
	case err != nil:
		return "", nil, err
	case !found:
		return requestID, nil, nil
	case e.Owner == caller && now.Sub(e.Created) < Retention:
		return requestID, &rec, nil
	}
	return fresh(), nil, nil
}
