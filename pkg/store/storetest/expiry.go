package storetest

import (
	"slices"
	"testing"

	"musiccatalog/pkg/store"
)

func testExpiredItemsAreAbsent(t *testing.T, f *fixture) {
	ctx := t.Context()
	exp := future()
	live := store.Item{Key: f.key("ttl", "live"), Attrs: attrs("n", int64(1), "GSI1PK", f.ns+"g", "GSI1SK", "live"), ExpiresAt: exp}
	f.mustPut(t, store.Jobs, live)
	live.ExpiresAt = seconds(exp)
	f.wantItem(t, store.Jobs, live)

	dead := f.key("ttl", "dead")
	f.mustPut(t, store.Jobs, store.Item{Key: dead, Attrs: attrs("n", int64(5), "GSI1PK", f.ns+"g", "GSI1SK", "dead"), ExpiresAt: past()})
	f.wantAbsent(t, store.Jobs, dead)

	for _, q := range []store.Query{
		{PK: f.ns + "ttl"},
		{PK: f.ns + "ttl", Descending: true, Limit: 1},
		{Index: "GSI1", PK: f.ns + "g"},
	} {
		if got := sortKeysOf(collect(t, f, store.Jobs, q)); !slices.Equal(got, []string{"live"}) {
			t.Errorf("%+v found %q, want only the live item", q, got)
		}
	}

	for _, c := range absentCases {
		err := f.s.Transact(ctx, []store.TxOp{store.TxCheck(store.Jobs, dead, c.cond)})
		checkOutcome(t, "TxCheck on an expired item", c, err)
		_, err = f.s.Update(ctx, store.Jobs, dead, store.Update{}, store.And(store.Exists(), c.cond))
		wantErr(t, "Update Exists of an expired item", err, store.ErrConditionFailed)
	}
	err := f.s.Delete(ctx, store.Jobs, dead, store.Exists())
	wantErr(t, "Delete Exists of an expired item", err, store.ErrConditionFailed)
	wantOK(t, "Delete of an expired item", f.s.Delete(ctx, store.Jobs, dead, nil))
	f.wantAbsent(t, store.Jobs, dead)
}

// testWritesOverExpiredItems checks that a write treats an expired item
// as absent: conditions see no item, and nothing of it survives.
func testWritesOverExpiredItems(t *testing.T, f *fixture) {
	ctx := t.Context()
	stale := func(sk string) store.Key {
		k := f.key("stale", sk)
		f.mustPut(t, store.Quotas, store.Item{Key: k, Attrs: attrs("n", int64(100), "old", "yes"), ExpiresAt: past()})
		return k
	}

	k := stale("put")
	fresh := store.Item{Key: k, Attrs: attrs("new", "yes")}
	wantOK(t, "Put NotExists over an expired item", f.s.Put(ctx, store.Quotas, fresh, store.NotExists()))
	f.wantItem(t, store.Quotas, fresh)

	k = stale("update")
	got, err := f.s.Update(ctx, store.Quotas, k, store.Update{Add: map[string]int64{"n": 1}}, store.NotExists())
	wantOK(t, "Update NotExists of an expired item", err)
	want := store.Item{Key: k, Attrs: attrs("n", int64(1))}
	assertItem(t, got, want)
	f.wantItem(t, store.Quotas, want)

	k = stale("capped")
	_, err = f.s.Update(ctx, store.Quotas, k, store.Update{Add: map[string]int64{"n": 1}},
		store.Or(store.AttrNotExists("n"), store.LessThan("n", 20)))
	wantOK(t, "capped Add on an expired counter", err)
	f.wantItem(t, store.Quotas, store.Item{Key: k, Attrs: attrs("n", int64(1))})

	k = stale("plain")
	got, err = f.s.Update(ctx, store.Quotas, k, store.Update{Set: attrs("new", "yes")}, nil)
	wantOK(t, "Update of an expired item", err)
	assertItem(t, got, store.Item{Key: k, Attrs: attrs("new", "yes")})

	k = stale("refused")
	_, err = f.s.Update(ctx, store.Quotas, k, store.Update{Set: attrs("new", "yes")}, store.Equals("old", "yes"))
	wantErr(t, "Update conditioned on an expired item's attribute", err, store.ErrConditionFailed)
	f.wantAbsent(t, store.Quotas, k)

	k1, k2 := stale("tx1"), stale("tx2")
	err = f.s.Transact(ctx, []store.TxOp{
		store.TxPut(store.Quotas, store.Item{Key: k1, Attrs: attrs("new", "yes")}, store.NotExists()),
		store.TxUpdate(store.Quotas, k2, store.Update{Add: map[string]int64{"n": 2}}, store.NotExists()),
	})
	wantOK(t, "Transact over expired items", err)
	f.wantItem(t, store.Quotas, store.Item{Key: k1, Attrs: attrs("new", "yes")})
	f.wantItem(t, store.Quotas, store.Item{Key: k2, Attrs: attrs("n", int64(2))})
}
