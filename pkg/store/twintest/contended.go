package twintest

import (
	"context"
	"fmt"
	"sync/atomic"

	"musiccatalog/pkg/store"
)

// Contended wraps a store so that its next N transactions fail with
// store.ErrContention and write nothing, as DynamoDB's do when they keep
// colliding with concurrent ones on the same items (DynamoDB Local does
// not reproduce this). Set N with N.Store.
type Contended struct {
	store.Store
	N atomic.Int64
}

// Transact fails while N is positive, counting it down.
func (c *Contended) Transact(ctx context.Context, ops []store.TxOp) error {
	if c.N.Add(-1) >= 0 {
		return fmt.Errorf("twintest: %w", store.ErrContention)
	}
	return c.Store.Transact(ctx, ops)
}
