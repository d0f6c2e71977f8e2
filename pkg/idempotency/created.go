package idempotency

import (
	"context"
	"strconv"
	"time"

	"musiccatalog/pkg/ids"
)

// Earlier is what a create run under a RequestID needs to know of a
// record already named by that id: who made it and when.
type Earlier struct {
	Owner   string
	Created time.Time
}

// MaxSuccessors bounds the ids a create run tries after its RequestID
// (successorID) before it falls back to a fresh random one.
const MaxSuccessors = 8

// CreateID returns the id a create run under requestID (a
// Claim.RequestID, "" for a request sent without a key) gives the record
// it writes, and prior when an earlier run of the same request already
// wrote it. load reads the record named id: found false when there is
// none. The candidates are requestID, then successorID(requestID, 2..
// MaxSuccessors): the first that nothing has is the id; one that is
// caller's and younger than Retention is prior (the earlier run answered
// an error after its write, or died before answering); one that is not (a
// key reused much later, another's record) passes to the next. So a key
// and body reused after Retention, whose answer is lost, names the same
// new record on every run; only when every candidate is taken does the
// record get a fresh() id. Every create that names its record with a
// RequestID decides this way.
func CreateID[T any](ctx context.Context, requestID, caller string, now time.Time, fresh func() string,
	load func(ctx context.Context, id string) (rec T, e Earlier, found bool, err error)) (string, *T, error) {
	if requestID == "" {
		return fresh(), nil, nil
	}
	for n := 1; n <= MaxSuccessors; n++ {
		id := successorID(requestID, n)
		rec, e, found, err := load(ctx, id)
		switch {
		case err != nil:
			return "", nil, err
		case !found:
			return id, nil, nil
		case e.Owner == caller && now.Sub(e.Created) < Retention:
			return id, &rec, nil
		}
	}
	return fresh(), nil, nil
}

// successorID is the n-th candidate id of requestID's record: requestID
// itself, then name-based UUIDs of requestID+"#n".
func successorID(requestID string, n int) string {
	if n == 1 {
		return requestID
	}
	return ids.NameUUID("idempotency", requestID+"#"+strconv.Itoa(n))
}
