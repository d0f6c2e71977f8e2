package idempotency

import (
	"context"
	"errors"
	"fmt"
	"time"

	"musiccatalog/pkg/store"
)

// A change to an existing record cannot be named by its RequestID the way
// a created record is (CreateID). Instead the write that makes the change
// also writes a marker beside the record, in the same transaction: the
// record's partition, sort key "REQ#<RequestID>", with what the change
// answered. A run of the same request (a retry whose first run committed
// its write but answered an error: a timeout, a lost connection, a
// failure after the commit) finds the marker and answers the committed
// result instead of applying the change again, which for a relative change
// (add these items, move these by 3) would apply it twice or undo what
// another request did meanwhile. Markers expire after Retention, with the
// key's own record.

// appliedResultAttr holds the answer of the change that wrote a marker.
const appliedResultAttr = "result"

func appliedKey(pk, requestID string) store.Key { return store.Key{PK: pk, SK: "REQ#" + requestID} }

// AppliedOp is the transaction op that marks the change of requestID to
// the record of partition pk as made, with its answer result (nil: none).
// It fails the transaction (store.ErrConditionFailed) when a run of the
// same request already made it.
func AppliedOp(t store.Table, pk, requestID string, now time.Time, result []byte) store.TxOp {
	it := store.Item{Key: appliedKey(pk, requestID), ExpiresAt: now.Add(Retention), Attrs: map[string]any{}}
	if len(result) > 0 {
		it.Attrs[appliedResultAttr] = result
	}
	return store.TxPut(t, it, store.NotExists())
}

// FindApplied reports whether a run of requestID already changed the
// record of partition pk, and what it answered.
func FindApplied(ctx context.Context, st store.Store, t store.Table, pk, requestID string) ([]byte, bool, error) {
	it, err := st.Get(ctx, t, appliedKey(pk, requestID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("idempotency: read applied marker: %w", err)
	}
	return it.Bytes(appliedResultAttr), true, nil
}
