package storetest

import (
	"errors"
	"fmt"
	"testing"

	"musiccatalog/pkg/store"
)

type condCase struct {
	cond store.Condition
	want bool
}

func (c condCase) String() string { return fmt.Sprintf("%#v", c.cond) }

// presentCases run against an item with the attributes of presentAttrs.
var presentAttrs = attrs(
	"s", "b", "n", int64(5), "f", 2.5, "t", true, "y", []byte{1, 2},
)

var presentCases = []condCase{
	{store.Exists(), true},
	{store.NotExists(), false},
	{store.AttrExists("s"), true},
	{store.AttrExists("zz"), false},
	{store.AttrNotExists("zz"), true},
	{store.AttrNotExists("s"), false},

	{store.Equals("s", "b"), true},
	{store.Equals("s", "c"), false},
	{store.Equals("s", int64(5)), false},
	{store.Equals("n", int64(5)), true},
	{store.Equals("n", 5), true},
	{store.Equals("n", int32(5)), true},
	{store.Equals("n", 5.0), true},
	{store.Equals("n", "5"), false},
	{store.Equals("n", 6), false},
	{store.Equals("f", 2.5), true},
	{store.Equals("t", true), true},
	{store.Equals("t", false), false},
	{store.Equals("y", []byte{1, 2}), true},
	{store.Equals("y", []byte{1}), false},
	{store.Equals("zz", "b"), false},

	{store.LessThan("n", 6), true},
	{store.LessThan("n", 5), false},
	{store.LessThan("n", 4), false},
	{store.LessThan("n", 5.5), true},
	{store.LessThan("f", 3), true},
	{store.LessThan("f", int64(2)), false},
	{store.LessThan("f", 2.5), false},
	{store.LessThan("s", "c"), true},
	{store.LessThan("s", "ba"), true},
	{store.LessThan("s", "b"), false},
	{store.LessThan("s", "a"), false},
	{store.LessThan("s", 10), false},
	{store.LessThan("n", "z"), false},
	{store.LessThan("y", []byte{1, 3}), true},
	{store.LessThan("y", []byte{1, 2}), false},
	{store.LessThan("zz", 10), false},

	{store.And(store.Exists(), store.Equals("n", 5)), true},
	{store.And(store.Exists(), store.Equals("n", 6)), false},
	{store.And(store.Equals("s", "b")), true},
	{store.Or(store.Equals("n", 6), store.Equals("s", "b")), true},
	{store.Or(store.Equals("n", 6), store.NotExists()), false},
	{store.Or(store.NotExists()), false},
	{store.And(
		store.Or(store.NotExists(), store.LessThan("n", 10)),
		store.Or(store.AttrNotExists("t"), store.Equals("t", true)),
	), true},
	{store.And(
		store.Or(store.NotExists(), store.LessThan("n", 10)),
		store.Or(store.AttrNotExists("t"), store.Equals("t", false)),
	), false},
	{store.Or(store.And(store.Exists(), store.LessThan("n", 0)), store.And(store.Exists(), store.AttrExists("y"))), true},
}

var absentCases = []condCase{
	{store.Exists(), false},
	{store.NotExists(), true},
	{store.AttrExists("s"), false},
	{store.AttrNotExists("s"), true},
	{store.Equals("s", "b"), false},
	{store.LessThan("n", 100), false},
	{store.Or(store.NotExists(), store.Equals("s", "b")), true},
	{store.And(store.NotExists(), store.AttrNotExists("s")), true},
	{store.And(store.NotExists(), store.Equals("s", "b")), false},
	{store.Or(store.AttrNotExists("n"), store.LessThan("n", 20)), true},
}

// testConditionsOnPresentItem evaluates each condition through a no-op
// Update and through a transaction check; both must agree with the case.
func testConditionsOnPresentItem(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("cond", "present")
	it := store.Item{Key: k, Attrs: presentAttrs}
	f.mustPut(t, store.Quotas, it)
	for _, c := range presentCases {
		_, err := f.s.Update(ctx, store.Quotas, k, store.Update{}, c.cond)
		checkOutcome(t, "Update", c, err)
		err = f.s.Transact(ctx, []store.TxOp{store.TxCheck(store.Quotas, k, c.cond)})
		checkOutcome(t, "TxCheck", c, err)
	}
	f.wantItem(t, store.Quotas, it)
}

// testConditionsOnAbsentItem evaluates each condition through a
// transaction check and a conditional Put, which creates the item only
// when the condition holds.
func testConditionsOnAbsentItem(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("cond", "absent")
	for _, c := range absentCases {
		err := f.s.Transact(ctx, []store.TxOp{store.TxCheck(store.Quotas, k, c.cond)})
		checkOutcome(t, "TxCheck", c, err)
		f.wantAbsent(t, store.Quotas, k)

		err = f.s.Put(ctx, store.Quotas, store.Item{Key: k, Attrs: attrs("made", true)}, c.cond)
		checkOutcome(t, "Put", c, err)
		if c.want {
			f.mustGet(t, store.Quotas, k)
			wantOK(t, "cleanup", f.s.Delete(ctx, store.Quotas, k, nil))
		} else {
			f.wantAbsent(t, store.Quotas, k)
		}
	}
}

func checkOutcome(t *testing.T, via string, c condCase, err error) {
	t.Helper()
	switch {
	case c.want && err != nil:
		t.Errorf("%s with %v: %v, want success", via, c, err)
	case !c.want && !errors.Is(err, store.ErrConditionFailed):
		t.Errorf("%s with %v: err = %v, want ErrConditionFailed", via, c, err)
	}
}
