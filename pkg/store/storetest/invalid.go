package storetest

import (
	"math"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/store"
)

// testInvalid checks that requests DynamoDB would refuse fail with
// ErrInvalid on every adapter and change nothing.
func testInvalid(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("inv", "x")
	puts := map[string]store.Item{
		"unsupported type":      {Key: k, Attrs: attrs("a", uint8(1))},
		"nil value":             {Key: k, Attrs: attrs("a", nil)},
		"reserved name PK":      {Key: k, Attrs: attrs("PK", "x")},
		"reserved name expires": {Key: k, Attrs: attrs(store.ExpiresAtAttr, int64(1))},
		"empty name":            {Key: k, Attrs: attrs("", "x")},
		"empty sort key":        {Key: store.Key{PK: k.PK}},
		"empty partition key":   {Key: store.Key{SK: "x"}},
		"NaN":                   {Key: k, Attrs: attrs("a", math.NaN())},
		"infinity":              {Key: k, Attrs: attrs("a", math.Inf(1))},
		"index key not string":  {Key: k, Attrs: attrs("GSI1PK", int64(1), "GSI1SK", "x")},
		"empty index key":       {Key: k, Attrs: attrs("GSI1PK", "", "GSI1SK", "x")},
		"oversized":             {Key: k, Attrs: attrs("a", strings.Repeat("x", store.MaxItemSize))},
		"expiry before 1970":    {Key: k, ExpiresAt: time.Unix(-5, 0)},
	}
	for name, it := range puts {
		wantErr(t, "Put "+name, f.s.Put(ctx, store.Playlists, it, nil), store.ErrInvalid)
	}
	wantErr(t, "Put into an unknown table", f.s.Put(ctx, "Nope", store.Item{Key: k}, nil), store.ErrInvalid)
	_, err := f.s.Get(ctx, store.Playlists, store.Key{PK: k.PK})
	wantErr(t, "Get with an empty sort key", err, store.ErrInvalid)

	conds := map[string]store.Condition{
		"LessThan bool":     store.LessThan("a", true),
		"Equals nil":        store.Equals("a", nil),
		"Equals struct":     store.Equals("a", struct{}{}),
		"empty And":         store.And(),
		"empty Or":          store.Or(),
		"nil member":        store.And(store.Exists(), nil),
		"reserved attr":     store.AttrExists("PK"),
		"empty attr":        store.AttrNotExists(""),
		"nested bad member": store.Or(store.Exists(), store.And(store.Equals("a", uint(1)))),
	}
	for name, c := range conds {
		wantErr(t, "Put with condition "+name, f.s.Put(ctx, store.Playlists, store.Item{Key: k}, c), store.ErrInvalid)
	}

	updates := map[string]store.Update{
		"Set and Remove":   {Set: attrs("a", 1), Remove: []string{"a"}},
		"Set and Add":      {Set: attrs("a", 1), Add: map[string]int64{"a": 1}},
		"Add to index key": {Add: map[string]int64{"GSI1SK": 1}},
		"Remove PK":        {Remove: []string{"PK"}},
		"Set bad value":    {Set: attrs("a", []int{1})},
	}
	for name, u := range updates {
		_, err := f.s.Update(ctx, store.Playlists, k, u, nil)
		wantErr(t, "Update "+name, err, store.ErrInvalid)
	}
	f.wantAbsent(t, store.Playlists, k)

	f.mustPut(t, store.Playlists, store.Item{Key: k, Attrs: attrs("s", "text")})
	_, err = f.s.Update(ctx, store.Playlists, k, store.Update{Add: map[string]int64{"s": 1}}, nil)
	wantErr(t, "Add to a string", err, store.ErrInvalid)
	_, err = f.s.Update(ctx, store.Playlists, k, store.Update{Set: attrs("big", strings.Repeat("x", store.MaxItemSize))}, nil)
	wantErr(t, "Update growing the item past the size limit", err, store.ErrInvalid)
	f.wantItem(t, store.Playlists, store.Item{Key: k, Attrs: attrs("s", "text")})

	queries := map[string]store.Query{
		"no partition":     {},
		"unknown index":    {PK: "x", Index: "GSI9"},
		"prefix and range": {PK: "x", SKPrefix: "a", SKFrom: "a"},
		"negative limit":   {PK: "x", Limit: -1},
	}
	for name, q := range queries {
		_, err := f.s.Query(ctx, store.Playlists, q)
		wantErr(t, "Query "+name, err, store.ErrInvalid)
	}
	_, err = f.s.Query(ctx, store.Quotas, store.Query{PK: "x", Index: "GSI1"})
	wantErr(t, "Query of an index Quotas lacks", err, store.ErrInvalid)

	a, b := f.key("inv", "a"), f.key("inv", "b")
	many := make([]store.TxOp, store.MaxTxOps+1)
	for i := range many {
		many[i] = store.TxDelete(store.Jobs, f.key("inv", strings.Repeat("x", i+1)), nil)
	}
	txs := map[string][]store.TxOp{
		"too many ops": many,
		"same item twice": {
			store.TxPut(store.Jobs, store.Item{Key: a}, nil),
			store.TxUpdate(store.Jobs, a, store.Update{Set: attrs("x", 1)}, nil),
		},
		"check without condition": {store.TxPut(store.Jobs, store.Item{Key: a}, nil), store.TxCheck(store.Jobs, b, nil)},
		"unknown kind":            {{Table: store.Jobs, Key: a}},
		"update changing nothing": {store.TxUpdate(store.Jobs, a, store.Update{}, store.NotExists())},
		"bad item":                {store.TxPut(store.Jobs, store.Item{Key: b}, nil), store.TxPut(store.Jobs, store.Item{Key: a, Attrs: attrs("a", nil)}, nil)},
	}
	for name, ops := range txs {
		wantErr(t, "Transact "+name, f.s.Transact(ctx, ops), store.ErrInvalid)
	}
	f.wantAbsent(t, store.Jobs, a)
	f.wantAbsent(t, store.Jobs, b)
}
