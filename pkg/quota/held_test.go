package quota_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// things is a set of items counted by a quota.Held: each add and remove
// is one transaction with the counter's op, as the services write them.
type things struct {
	st   store.Store
	held *quota.Held
	pk   string
}

func (th things) key(i int) store.Key { return store.Key{PK: th.pk, SK: fmt.Sprintf("T#%03d", i)} }

func (th things) count(ctx context.Context) (int64, error) {
	page, err := th.st.Query(ctx, store.Accounts, store.Query{PK: th.pk, SKPrefix: "T#"})
	return int64(len(page.Items)), err
}

func (th things) add(ctx context.Context, i int, cap int64) error {
	for {
		take, err := th.held.Take(ctx, th.pk, cap, th.count)
		if err != nil {
			return err
		}
		err = th.st.Transact(ctx, []store.TxOp{store.TxPut(store.Accounts, store.Item{Key: th.key(i), Attrs: map[string]any{"n": i}}, store.NotExists()), take})
		if !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrContention) {
			return err
		}
	}
}

func (th things) remove(ctx context.Context, i int) error {
	for {
		rel, err := th.held.Release(ctx, th.pk)
		if err != nil {
			return err
		}
		err = th.st.Transact(ctx, []store.TxOp{store.TxDelete(store.Accounts, th.key(i), store.Exists()), rel})
		if !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrContention) {
			return err
		}
	}
}

func (th things) check(t *testing.T, want int64) {
	t.Helper()
	n, counted, err := th.held.Count(t.Context(), th.pk)
	stored, cerr := th.count(t.Context())
	if err != nil || cerr != nil || !counted || n != want || stored != want {
		t.Errorf("count %d (counted %v, %v), stored %d (%v); want %d", n, counted, err, stored, cerr, want)
	}
}

// TestHeldNeverPassesTheCap: concurrent adds of distinct things stop
// exactly at the cap; removes make room again.
func TestHeldNeverPassesTheCap(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		th := things{st, quota.NewHeld(st, "test"), "SET#a"}
		const cap = 5
		var wg sync.WaitGroup
		res := make(chan error, 20)
		for i := range 20 {
			wg.Add(1)
			go func() { defer wg.Done(); res <- th.add(ctx, i, cap) }()
		}
		wg.Wait()
		close(res)
		ok := 0
		for err := range res {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, quota.ErrFull):
				t.Error(err)
			}
		}
		if ok != cap {
			t.Errorf("%d adds succeeded, want %d", ok, cap)
		}
		th.check(t, cap)
		page, err := st.Query(ctx, store.Accounts, store.Query{PK: th.pk})
		if err != nil {
			t.Fatal(err)
		}
		var first int
		fmt.Sscanf(page.Items[0].SK, "T#%d", &first)
		if err := th.remove(ctx, first); err != nil {
			t.Fatal(err)
		}
		th.check(t, cap-1)
		if err := th.add(ctx, 100, cap); err != nil {
			t.Fatal(err)
		}
		th.check(t, cap)
	})
}

// racingRemove is a store where, during the first count of things (the
// Query that creates the counter), another caller removes one of them.
type racingRemove struct {
	store.Store
	th   *things
	once sync.Once
	err  error
}

func (r *racingRemove) Query(ctx context.Context, t store.Table, q store.Query) (store.Page, error) {
	page, err := r.Store.Query(ctx, t, q)
	if q.SKPrefix == "T#" {
		r.once.Do(func() { r.err = r.th.remove(ctx, 0) })
	}
	return page, err
}

// TestHeldCountsThingsWrittenBeforeIt: a subject whose things were stored
// before they were counted gets them counted on its first add; a remove
// landing while they are counted is not counted as held (the fence).
func TestHeldCountsThingsWrittenBeforeIt(t *testing.T) {
	twintest.Run(t, func(t *testing.T, inner store.Store) {
		ctx := t.Context()
		rr := &racingRemove{Store: inner}
		th := things{rr, quota.NewHeld(rr, "test"), "SET#old"}
		rr.th = &th
		for i := range 4 { // written before counting began
			if err := inner.Put(ctx, store.Accounts, store.Item{Key: th.key(i), Attrs: map[string]any{"n": i}}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := th.remove(ctx, 3); err != nil { // a remove before any count
			t.Fatal(err)
		}
		if err := th.add(ctx, 10, 4); err != nil { // counts 3, and the racing remove of 0
			t.Fatal(err)
		}
		if rr.err != nil {
			t.Fatal(rr.err)
		}
		th.check(t, 3) // 1, 2, 10
		if err := th.add(ctx, 11, 4); err != nil {
			t.Fatal(err)
		}
		if err := th.add(ctx, 12, 4); !errors.Is(err, quota.ErrFull) {
			t.Errorf("fifth thing under a cap of 4: %v", err)
		}
		th.check(t, 4)
	})
}
