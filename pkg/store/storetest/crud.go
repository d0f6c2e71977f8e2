package storetest

import (
	"math"
	"testing"

	"musiccatalog/pkg/store"
)

func testGetMissing(t *testing.T, f *fixture) {
	f.wantAbsent(t, store.Accounts, f.key("nobody", "profile"))
}

func testValueTypes(t *testing.T, f *fixture) {
	k := f.key("types", "all")
	f.mustPut(t, store.Accounts, store.Item{Key: k, Attrs: map[string]any{
		"str": "héllo ✓", "empty": "", "nul": "a\x00b",
		"i64": int64(-42), "max": int64(math.MaxInt64), "min": int64(math.MinInt64),
		"int": 7, "i32": int32(-9),
		"half": 2.5, "pi": math.Pi, "tiny": 1.5e-7, "huge": 1e20, "neg": -0.125, "whole": float64(3),
		"yes": true, "no": false,
		"bytes": []byte{0, 1, 2, 255}, "nobytes": []byte{},
	}})
	f.wantItem(t, store.Accounts, store.Item{Key: k, Attrs: map[string]any{
		"str": "héllo ✓", "empty": "", "nul": "a\x00b",
		"i64": int64(-42), "max": int64(math.MaxInt64), "min": int64(math.MinInt64),
		"int": int64(7), "i32": int64(-9),
		"half": 2.5, "pi": math.Pi, "tiny": 1.5e-7, "huge": 1e20, "neg": -0.125, "whole": int64(3),
		"yes": true, "no": false,
		"bytes": []byte{0, 1, 2, 255}, "nobytes": []byte{},
	}})

	bare := f.key("types", "bare")
	f.mustPut(t, store.Accounts, store.Item{Key: bare})
	if it := f.mustGet(t, store.Accounts, bare); it.Attrs == nil || len(it.Attrs) != 0 || !it.ExpiresAt.IsZero() {
		t.Errorf("item without attributes came back as %+v", it)
	}

	// Keys and attributes are stored per table.
	f.wantAbsent(t, store.Jobs, k)
}

func testPutReplaces(t *testing.T, f *fixture) {
	k := f.key("replace", "x")
	f.mustPut(t, store.Jobs, store.Item{Key: k, Attrs: attrs("a", "1", "b", int64(2)), ExpiresAt: future()})
	second := store.Item{Key: k, Attrs: attrs("c", true)}
	f.mustPut(t, store.Jobs, second)
	f.wantItem(t, store.Jobs, second)
}

func testPutConditions(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("cond", "x")
	first := store.Item{Key: k, Attrs: attrs("v", int64(1))}
	wantOK(t, "Put NotExists on absent", f.s.Put(ctx, store.Licenses, first, store.NotExists()))
	err := f.s.Put(ctx, store.Licenses, store.Item{Key: k, Attrs: attrs("v", int64(2))}, store.NotExists())
	wantErr(t, "Put NotExists on present", err, store.ErrConditionFailed)
	f.wantItem(t, store.Licenses, first)

	err = f.s.Put(ctx, store.Licenses, store.Item{Key: k, Attrs: attrs("v", int64(3))}, store.Equals("v", int64(2)))
	wantErr(t, "Put with false Equals", err, store.ErrConditionFailed)
	f.wantItem(t, store.Licenses, first)

	third := store.Item{Key: k, Attrs: attrs("v", int64(3))}
	wantOK(t, "Put with true Equals", f.s.Put(ctx, store.Licenses, third, store.Equals("v", int64(1))))
	f.wantItem(t, store.Licenses, third)

	other := f.key("cond", "absent")
	err = f.s.Put(ctx, store.Licenses, store.Item{Key: other}, store.Exists())
	wantErr(t, "Put Exists on absent", err, store.ErrConditionFailed)
	f.wantAbsent(t, store.Licenses, other)
}

func testDelete(t *testing.T, f *fixture) {
	ctx := t.Context()
	k := f.key("del", "x")
	it := store.Item{Key: k, Attrs: attrs("state", "open")}
	f.mustPut(t, store.Playlists, it)

	err := f.s.Delete(ctx, store.Playlists, k, store.Equals("state", "closed"))
	wantErr(t, "Delete with false condition", err, store.ErrConditionFailed)
	f.wantItem(t, store.Playlists, it)

	wantOK(t, "Delete with true condition", f.s.Delete(ctx, store.Playlists, k, store.Equals("state", "open")))
	f.wantAbsent(t, store.Playlists, k)

	wantOK(t, "Delete of a missing item", f.s.Delete(ctx, store.Playlists, k, nil))
	err = f.s.Delete(ctx, store.Playlists, k, store.Exists())
	wantErr(t, "Delete Exists of a missing item", err, store.ErrConditionFailed)

	f.mustPut(t, store.Playlists, it)
	wantOK(t, "Delete without condition", f.s.Delete(ctx, store.Playlists, k, nil))
	f.wantAbsent(t, store.Playlists, k)
}
