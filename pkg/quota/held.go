package quota

import (
	"context"
	"errors"
	"fmt"

	"musiccatalog/pkg/store"
)

// ErrFull: a Held counter is at its cap; nothing more may be added until
// something is removed.
var ErrFull = errors.New("quota: limit of held items reached")

// Held counts what a subject holds without a window (the channels of an
// allowlist, the playlists a user owns) against a fixed cap. The count
// changes only in the transaction that adds or removes the thing counted
// (Take and Release return that transaction's counter op), so no number of
// concurrent adds can pass the cap and no crash can make the count drift.
//
// A subject whose things were written before it was counted gets its
// counter on its first Take: the things are counted (count) and the
// counter is created in one conditional write. A Release of such a subject
// before that bumps a fence attribute in its own transaction instead of
// the count, and the creating write is conditional on the fence it read
// before counting, so a remove that lands during the count makes the
// creation fail and start over instead of counting a removed thing.
type Held struct {
	st    store.Store
	scope string
}

// NewHeld returns the counters of scope (for instance "allowlist") on st's
// Quotas table.
func NewHeld(st store.Store, scope string) *Held { return &Held{st: st, scope: scope} }

// Counter attributes: heldAttr is the count (absent until the subject is
// counted), releasedAttr the fence (removes while it was not counted).
const (
	heldAttr     = "held"
	releasedAttr = "released_uncounted"
	// maxCountAttempts bounds the rounds of counting a subject's
	// existing things while removes keep landing.
	maxCountAttempts = 10
)

func (h *Held) key(subject string) store.Key {
	return store.Key{PK: "HELD#" + h.scope + "#" + subject, SK: "COUNT"}
}

// Take returns the op that counts one more thing of subject, for the
// transaction that writes it: the transaction fails (store.ErrConditionFailed)
// when the count reached cap meanwhile, and the caller's retry calls Take
// again. Take itself returns ErrFull when the count is at cap already, and
// counts the subject's things with count the first time (see Held).
func (h *Held) Take(ctx context.Context, subject string, cap int64, count func(context.Context) (int64, error)) (store.TxOp, error) {
	for range maxCountAttempts {
		it, err := h.read(ctx, subject)
		if err != nil {
			return store.TxOp{}, err
		}
		if _, counted := it.Attrs[heldAttr]; counted {
			if it.Int(heldAttr) >= cap {
				return store.TxOp{}, ErrFull
			}
			return store.TxUpdate(store.Quotas, h.key(subject), store.Update{Add: map[string]int64{heldAttr: 1}},
				store.LessThan(heldAttr, cap)), nil
		}
		n, err := count(ctx)
		if err != nil {
			return store.TxOp{}, fmt.Errorf("quota: count %s %s: %w", h.scope, subject, err)
		}
		fence := store.AttrNotExists(releasedAttr)
		if r := it.Int(releasedAttr); r != 0 {
			fence = store.Equals(releasedAttr, r)
		}
		_, err = h.st.Update(ctx, store.Quotas, h.key(subject), store.Update{Set: map[string]any{heldAttr: n}},
			store.And(store.AttrNotExists(heldAttr), fence))
		if err != nil && !errors.Is(err, store.ErrConditionFailed) {
			return store.TxOp{}, fmt.Errorf("quota: start counting %s %s: %w", h.scope, subject, err)
		}
		// Counted now (by us, or by a concurrent Take), or a remove moved
		// the fence: read again.
	}
	return store.TxOp{}, fmt.Errorf("quota: counting %s %s: %w", h.scope, subject, store.ErrContention)
}

// Counting returns a count for Take: how many items query q of table t
// finds (q.Cursor and q.Limit are the pages'). Table queries are strongly
// consistent (index queries are not: count items of a table).
func Counting(st store.Store, t store.Table, q store.Query) func(context.Context) (int64, error) {
	return func(ctx context.Context) (int64, error) {
		var n int64
		q.Limit, q.Cursor = 1000, ""
		for {
			page, err := st.Query(ctx, t, q)
			if err != nil {
				return 0, err
			}
			n += int64(len(page.Items))
			if q.Cursor = page.Cursor; q.Cursor == "" {
				return n, nil
			}
		}
	}
}

// Release returns the op that counts one thing of subject less, for the
// transaction that removes it. It is conditional on the counter's state
// as read, so a transaction that fails on it is retried (with a new
// Release) like one that lost any other race.
func (h *Held) Release(ctx context.Context, subject string) (store.TxOp, error) {
	it, err := h.read(ctx, subject)
	if err != nil {
		return store.TxOp{}, err
	}
	if _, counted := it.Attrs[heldAttr]; counted {
		return store.TxUpdate(store.Quotas, h.key(subject), store.Update{Add: map[string]int64{heldAttr: -1}},
			store.AttrExists(heldAttr)), nil
	}
	return store.TxUpdate(store.Quotas, h.key(subject), store.Update{Add: map[string]int64{releasedAttr: 1}},
		store.AttrNotExists(heldAttr)), nil
}

// Count returns how many things subject holds as counted, and false when
// it is not counted yet.
func (h *Held) Count(ctx context.Context, subject string) (int64, bool, error) {
	it, err := h.read(ctx, subject)
	if err != nil {
		return 0, false, err
	}
	_, counted := it.Attrs[heldAttr]
	return it.Int(heldAttr), counted, nil
}

// read returns the counter item (no attributes when absent).
func (h *Held) read(ctx context.Context, subject string) (store.Item, error) {
	if subject == "" {
		return store.Item{}, errors.New("quota: held subject is required")
	}
	it, err := h.st.Get(ctx, store.Quotas, h.key(subject))
	if errors.Is(err, store.ErrNotFound) {
		return store.Item{Attrs: map[string]any{}}, nil
	}
	if err != nil {
		return store.Item{}, fmt.Errorf("quota: read %s %s: %w", h.scope, subject, err)
	}
	return it, nil
}
