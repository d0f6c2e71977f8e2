package twintest

import (
	"context"
	"sync"

	"musiccatalog/pkg/store"
)

var _ store.Store = (*LaggingIndex)(nil)

// LaggingIndex wraps a store so that its global secondary indexes lag, as
// DynamoDB's are eventually consistent: while Lag is on, every item
// written (Put, Update, Transact) stays out of index queries until
// CatchUp. Reads of the table itself (Get, a Query without Index) see
// every write at once, as DynamoDB's strongly consistent reads do.
// Neither twin lags on its own: bbolt indexes in the same transaction,
// and DynamoDB Local updates its indexes before it answers.
type LaggingIndex struct {
	store.Store

	mu      sync.Mutex
	lag     bool
	pending map[store.Key]bool
}

// Lag makes the following writes invisible to index queries.
func (l *LaggingIndex) Lag() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lag = true
}

// CatchUp lets the indexes show every write, and stops lagging.
func (l *LaggingIndex) CatchUp() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lag, l.pending = false, nil
}

func (l *LaggingIndex) wrote(keys ...store.Key) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.lag {
		return
	}
	if l.pending == nil {
		l.pending = map[store.Key]bool{}
	}
	for _, k := range keys {
		l.pending[k] = true
	}
}

func (l *LaggingIndex) Put(ctx context.Context, t store.Table, it store.Item, c store.Condition) error {
	err := l.Store.Put(ctx, t, it, c)
	if err == nil {
		l.wrote(it.Key)
	}
	return err
}

func (l *LaggingIndex) Update(ctx context.Context, t store.Table, k store.Key, u store.Update, c store.Condition) (store.Item, error) {
	it, err := l.Store.Update(ctx, t, k, u, c)
	if err == nil {
		l.wrote(k)
	}
	return it, err
}

func (l *LaggingIndex) Transact(ctx context.Context, ops []store.TxOp) error {
	err := l.Store.Transact(ctx, ops)
	if err == nil {
		for _, op := range ops {
			if op.Kind == store.TxKindPut {
				l.wrote(op.Item.Key)
			} else {
				l.wrote(op.Key)
			}
		}
	}
	return err
}

// Query hides, from index queries, the items written while lagging.
func (l *LaggingIndex) Query(ctx context.Context, t store.Table, q store.Query) (store.Page, error) {
	page, err := l.Store.Query(ctx, t, q)
	if err != nil || q.Index == "" {
		return page, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := page.Items[:0]
	for _, it := range page.Items {
		if !l.pending[it.Key] {
			kept = append(kept, it)
		}
	}
	page.Items = kept
	return page, nil
}
