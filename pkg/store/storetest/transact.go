package storetest

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/store"
)

// txFixture is one item per table for a transaction touching them all:
// acct is absent, quota is absent, list and job exist.
type txFixture struct {
	acct, quota, list, job store.Key
	listItem, jobItem      store.Item
}

func newTxFixture(t *testing.T, f *fixture) txFixture {
	x := txFixture{
		acct:  f.key("tx", "acct"),
		quota: f.key("tx", "quota"),
		list:  f.key("tx", "list"),
		job:   f.key("tx", "job"),
	}
	x.listItem = store.Item{Key: x.list, Attrs: attrs("name", "mix")}
	x.jobItem = store.Item{Key: x.job, Attrs: attrs("status", "ready")}
	f.mustPut(t, store.Playlists, x.listItem)
	f.mustPut(t, store.Jobs, x.jobItem)
	return x
}

// ops writes to four tables; jobStatus is what the check expects of the job.
func (x txFixture) ops(jobStatus string) []store.TxOp {
	return []store.TxOp{
		store.TxPut(store.Accounts, store.Item{Key: x.acct, Attrs: attrs("plan", "free")}, store.NotExists()),
		store.TxUpdate(store.Quotas, x.quota, store.Update{Add: map[string]int64{"n": 1}}, nil),
		store.TxDelete(store.Playlists, x.list, store.Exists()),
		store.TxCheck(store.Jobs, x.job, store.Equals("status", jobStatus)),
	}
}

func testTransact(t *testing.T, f *fixture) {
	ctx := t.Context()
	x := newTxFixture(t, f)
	wantOK(t, "Transact", f.s.Transact(ctx, x.ops("ready")))
	f.wantItem(t, store.Accounts, store.Item{Key: x.acct, Attrs: attrs("plan", "free")})
	f.wantItem(t, store.Quotas, store.Item{Key: x.quota, Attrs: attrs("n", int64(1))})
	f.wantAbsent(t, store.Playlists, x.list)
	f.wantItem(t, store.Jobs, x.jobItem)

	// The same ops again: the put's NotExists now fails, so nothing happens.
	f.mustPut(t, store.Playlists, x.listItem)
	wantErr(t, "repeated Transact", f.s.Transact(ctx, x.ops("ready")), store.ErrConditionFailed)
	f.wantItem(t, store.Quotas, store.Item{Key: x.quota, Attrs: attrs("n", int64(1))})
	f.wantItem(t, store.Playlists, x.listItem)

	wantOK(t, "empty Transact", f.s.Transact(ctx, nil))

	var many []store.TxOp
	for i := range store.MaxTxOps {
		many = append(many, store.TxPut(store.Licenses, store.Item{Key: f.key("many", fmt.Sprintf("%03d", i))}, nil))
	}
	wantOK(t, "Transact of MaxTxOps ops", f.s.Transact(ctx, many))
	if p := f.query(t, store.Licenses, store.Query{PK: f.ns + "many"}); len(p.Items) != store.MaxTxOps {
		t.Errorf("Transact of %d puts left %d items", store.MaxTxOps, len(p.Items))
	}
}

func testTransactFailureChangesNothing(t *testing.T, f *fixture) {
	ctx := t.Context()
	x := newTxFixture(t, f)
	wantErr(t, "Transact with a failing check", f.s.Transact(ctx, x.ops("done")), store.ErrConditionFailed)
	f.wantAbsent(t, store.Accounts, x.acct)
	f.wantAbsent(t, store.Quotas, x.quota)
	f.wantItem(t, store.Playlists, x.listItem)
	f.wantItem(t, store.Jobs, x.jobItem)

	// A failing condition on the first op, and one on an update.
	ops := x.ops("ready")
	ops[0].Cond = store.Exists()
	wantErr(t, "Transact with a failing put", f.s.Transact(ctx, ops), store.ErrConditionFailed)
	ops = x.ops("ready")
	ops[1].Cond = store.Exists()
	wantErr(t, "Transact with a failing update", f.s.Transact(ctx, ops), store.ErrConditionFailed)
	f.wantAbsent(t, store.Accounts, x.acct)
	f.wantAbsent(t, store.Quotas, x.quota)
	f.wantItem(t, store.Playlists, x.listItem)
}
