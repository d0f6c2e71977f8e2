package boltstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"musiccatalog/pkg/store"
)

// TestGroupCommitKeepsEachCallsOutcome: concurrent writes share commits,
// yet a call whose condition fails (a single op, or a transaction whose
// second op fails) writes nothing and the others of its batch commit.
func TestGroupCommitKeepsEachCallsOutcome(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "s.db"))
	ctx := t.Context()
	contested := store.Key{PK: "c", SK: "c"}
	guard := store.Key{PK: "g", SK: "g"}
	if err := s.Put(ctx, store.Jobs, store.Item{Key: guard}, nil); err != nil {
		t.Fatal(err)
	}
	const n = 64
	var wg sync.WaitGroup
	wins := make(chan int, n)
	for i := range n {
		wg.Go(func() {
			own := store.Item{Key: store.Key{PK: "own", SK: fmt.Sprint(i)}}
			if err := s.Put(ctx, store.Jobs, own, store.NotExists()); err != nil {
				t.Errorf("own put %d: %v", i, err)
			}
			err := s.Put(ctx, store.Jobs, store.Item{Key: contested, Attrs: map[string]any{"by": i}}, store.NotExists())
			switch {
			case err == nil:
				wins <- i
			case !errors.Is(err, store.ErrConditionFailed):
				t.Errorf("contested put %d: %v", i, err)
			}
			// The first op would succeed; the second fails (guard exists).
			err = s.Transact(ctx, []store.TxOp{
				store.TxPut(store.Jobs, store.Item{Key: store.Key{PK: "tx", SK: fmt.Sprint(i)}}, nil),
				store.TxPut(store.Jobs, store.Item{Key: guard}, store.NotExists()),
			})
			if !errors.Is(err, store.ErrConditionFailed) {
				t.Errorf("transaction %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	close(wins)
	if len(wins) != 1 {
		t.Errorf("%d winners of the contested put", len(wins))
	}
	page, err := s.Query(ctx, store.Jobs, store.Query{PK: "own"})
	if err != nil || len(page.Items) != n {
		t.Errorf("own items: %d %v", len(page.Items), err)
	}
	if page, _ := s.Query(ctx, store.Jobs, store.Query{PK: "tx"}); len(page.Items) != 0 {
		t.Errorf("failed transactions left %d writes", len(page.Items))
	}
}
