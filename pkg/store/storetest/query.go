package storetest

import (
	"fmt"
	"slices"
	"testing"

	"musiccatalog/pkg/store"
)

// sortKeys of the query partition, in order. "a#1\x00" sorts between
// "a#1" and "a#2" and catches key encodings that lose the order.
var sortKeys = []string{"a", "a#1", "a#1\x00", "a#2", "a#3", "b#1", "b#2", "c"}

// putPartition fills partition pk with one item per sort key, and
// partitions whose names extend pk with decoys.
func putPartition(t *testing.T, f *fixture, pk string) {
	t.Helper()
	for _, p := range []string{pk, pk + "p", pk + "#", pk + "\x00"} {
		for _, sk := range sortKeys {
			f.mustPut(t, store.Licenses, store.Item{Key: store.Key{PK: p, SK: sk}, Attrs: attrs("sk", sk)})
		}
	}
}

func sortKeysOf(items []store.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.SK
	}
	return out
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func testQuery(t *testing.T, f *fixture) {
	pk := f.ns + "q"
	putPartition(t, f, pk)
	aKeys := []string{"a#1", "a#1\x00", "a#2", "a#3"}
	cases := []struct {
		name string
		q    store.Query
		want []string
	}{
		{"all", store.Query{}, sortKeys},
		{"all descending", store.Query{Descending: true}, reversed(sortKeys)},
		{"prefix", store.Query{SKPrefix: "a#"}, aKeys},
		{"prefix descending", store.Query{SKPrefix: "a#", Descending: true}, reversed(aKeys)},
		{"prefix equal to a key", store.Query{SKPrefix: "c"}, []string{"c"}},
		{"prefix matching nothing", store.Query{SKPrefix: "d"}, nil},
		{"range", store.Query{SKFrom: "a#2", SKTo: "b#1"}, []string{"a#2", "a#3", "b#1"}},
		{"range descending", store.Query{SKFrom: "a#2", SKTo: "b#1", Descending: true}, []string{"b#1", "a#3", "a#2"}},
		{"from", store.Query{SKFrom: "b"}, []string{"b#1", "b#2", "c"}},
		{"to", store.Query{SKTo: "a#2"}, []string{"a", "a#1", "a#1\x00", "a#2"}},
		{"to descending", store.Query{SKTo: "a#1", Descending: true}, []string{"a#1", "a"}},
		{"single key range", store.Query{SKFrom: "a#1", SKTo: "a#1"}, []string{"a#1"}},
		{"empty range", store.Query{SKFrom: "b", SKTo: "a"}, nil},
	}
	for _, c := range cases {
		c.q.PK = pk
		p := f.query(t, store.Licenses, c.q)
		if got := sortKeysOf(p.Items); !slices.Equal(got, c.want) {
			t.Errorf("%s: sort keys %q, want %q", c.name, got, c.want)
		}
		if p.Cursor != "" {
			t.Errorf("%s: cursor %q on the only page", c.name, p.Cursor)
		}
	}
	p := f.query(t, store.Licenses, store.Query{PK: f.ns + "nobody"})
	if len(p.Items) != 0 || p.Cursor != "" {
		t.Errorf("query of an empty partition = %+v", p)
	}
	one := f.query(t, store.Licenses, store.Query{PK: pk, SKPrefix: "b#2"})
	if len(one.Items) != 1 {
		t.Fatalf("prefix b#2 found %d items", len(one.Items))
	}
	assertItem(t, one.Items[0], store.Item{Key: store.Key{PK: pk, SK: "b#2"}, Attrs: attrs("sk", "b#2")})
}

// collect reads every page of q and checks that each page but the last is
// full and only the last has an empty cursor.
func collect(t *testing.T, f *fixture, table store.Table, q store.Query) []store.Item {
	t.Helper()
	var all []store.Item
	for page := 1; ; page++ {
		p := f.query(t, table, q)
		all = append(all, p.Items...)
		if p.Cursor == "" {
			if q.Limit > 0 && len(p.Items) == 0 && page > 1 {
				t.Errorf("%+v: empty last page %d; the previous page should have had no cursor", q, page)
			}
			return all
		}
		if len(p.Items) != q.Limit {
			t.Fatalf("%+v: page %d has %d items and a cursor; want %d", q, page, len(p.Items), q.Limit)
		}
		if page > 1000 {
			t.Fatalf("%+v: pagination does not end", q)
		}
		q.Cursor = p.Cursor
	}
}

func testQueryPagination(t *testing.T, f *fixture) {
	pk := f.ns + "pages"
	putPartition(t, f, pk)
	shapes := []struct {
		q    store.Query
		want []string
	}{
		{store.Query{}, sortKeys},
		{store.Query{SKPrefix: "a#"}, sortKeys[1:5]},
		{store.Query{SKFrom: "a#1", SKTo: "b#2"}, sortKeys[1:7]},
	}
	for _, sh := range shapes {
		for _, desc := range []bool{false, true} {
			want := sh.want
			if desc {
				want = reversed(want)
			}
			for _, limit := range []int{1, 2, 3, len(want) - 1, len(want), len(want) + 1, 0} {
				q := sh.q
				q.PK, q.Descending, q.Limit = pk, desc, limit
				if got := sortKeysOf(collect(t, f, store.Licenses, q)); !slices.Equal(got, want) {
					t.Errorf("%+v: visited %q, want %q", q, got, want)
				}
			}
		}
	}
}

func testQueryBadCursor(t *testing.T, f *fixture) {
	ctx := t.Context()
	pk := f.ns + "cur"
	putPartition(t, f, pk)
	_, err := f.s.Query(ctx, store.Licenses, store.Query{PK: pk, Cursor: "not a cursor!"})
	wantErr(t, "Query with a garbage cursor", err, store.ErrInvalid)

	p := f.query(t, store.Licenses, store.Query{PK: pk, Limit: 2})
	_, err = f.s.Query(ctx, store.Licenses, store.Query{PK: pk + "p", Limit: 2, Cursor: p.Cursor})
	wantErr(t, "Query with another partition's cursor", err, store.ErrInvalid)
}

// indexed are the Playlists items of the index tests: key, GSI1PK suffix
// ("" for none), GSI1SK ("" for none).
type indexed struct{ sk, gpk, gsk string }

func putIndexed(t *testing.T, f *fixture, items []indexed) {
	t.Helper()
	for _, x := range items {
		a := attrs("title", "t-"+x.sk)
		if x.gpk != "" {
			a["GSI1PK"] = f.ns + x.gpk
		}
		if x.gsk != "" {
			a["GSI1SK"] = x.gsk
		}
		f.mustPut(t, store.Playlists, store.Item{Key: f.key("owner", x.sk), Attrs: a})
	}
}

// indexView renders index results as "GSI1SK=SK". Runs of equal GSI1SK
// are sorted by SK, as the port leaves the order of ties open.
func indexView(items []store.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprintf("%v=%s", it.Attrs["GSI1SK"], it.SK)
	}
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j].Attrs["GSI1SK"] == items[i].Attrs["GSI1SK"] {
			j++
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

func testIndexQuery(t *testing.T, f *fixture) {
	putIndexed(t, f, []indexed{
		{"l1", "vis#u1", "2024-01"},
		{"l2", "vis#u1", "2024-02"},
		{"l3", "vis#u1", "2024-02"},
		{"l4", "vis#u1", "2024-03"},
		{"l5", "vis#u1", "2023-12"},
		{"l6", "vis#u2", "2024-01"},
		{"l7", "", ""},
		{"l8", "vis#u1", ""},
	})
	all := []string{"2023-12=l5", "2024-01=l1", "2024-02=l2", "2024-02=l3", "2024-03=l4"}
	cases := []struct {
		q    store.Query
		want []string
	}{
		{store.Query{}, all},
		{store.Query{Descending: true}, []string{"2024-03=l4", "2024-02=l2", "2024-02=l3", "2024-01=l1", "2023-12=l5"}},
		{store.Query{SKPrefix: "2024-"}, all[1:]},
		{store.Query{SKFrom: "2024-01", SKTo: "2024-02"}, all[1:4]},
		{store.Query{SKTo: "2024-01", Descending: true}, []string{"2024-01=l1", "2023-12=l5"}},
	}
	for _, c := range cases {
		for _, limit := range []int{0, 1, 2} {
			q := c.q
			q.Index, q.PK, q.Limit = "GSI1", f.ns+"vis#u1", limit
			if got := indexView(collect(t, f, store.Playlists, q)); !slices.Equal(got, c.want) {
				t.Errorf("%+v: got %q, want %q", q, got, c.want)
			}
		}
	}

	p := f.query(t, store.Playlists, store.Query{Index: "GSI1", PK: f.ns + "vis#u2"})
	if len(p.Items) != 1 {
		t.Fatalf("index partition vis#u2 has %d items, want 1", len(p.Items))
	}
	assertItem(t, p.Items[0], store.Item{Key: f.key("owner", "l6"), Attrs: attrs(
		"title", "t-l6", "GSI1PK", f.ns+"vis#u2", "GSI1SK", "2024-01")})
}

func testIndexMaintenance(t *testing.T, f *fixture) {
	ctx := t.Context()
	putIndexed(t, f, []indexed{{"m1", "u1", "1"}, {"m2", "u1", "2"}, {"m3", "u1", "3"}})
	view := func(gpk string) []string {
		t.Helper()
		return indexView(f.query(t, store.Playlists, store.Query{Index: "GSI1", PK: f.ns + gpk}).Items)
	}
	check := func(step string, gpk string, want ...string) {
		t.Helper()
		if got := view(gpk); !slices.Equal(got, want) {
			t.Errorf("after %s: index %s = %q, want %q", step, gpk, got, want)
		}
	}
	check("setup", "u1", "1=m1", "2=m2", "3=m3")

	_, err := f.s.Update(ctx, store.Playlists, f.key("owner", "m1"), store.Update{Set: attrs("GSI1PK", f.ns+"u2")}, nil)
	wantOK(t, "moving m1", err)
	check("moving m1", "u1", "2=m2", "3=m3")
	check("moving m1", "u2", "1=m1")

	_, err = f.s.Update(ctx, store.Playlists, f.key("owner", "m2"), store.Update{Set: attrs("GSI1SK", "4")}, nil)
	wantOK(t, "re-sorting m2", err)
	check("re-sorting m2", "u1", "3=m3", "4=m2")

	_, err = f.s.Update(ctx, store.Playlists, f.key("owner", "m1"), store.Update{Remove: []string{"GSI1SK"}}, nil)
	wantOK(t, "removing m1's GSI1SK", err)
	check("removing m1's GSI1SK", "u2")

	f.mustPut(t, store.Playlists, store.Item{Key: f.key("owner", "m2"), Attrs: attrs("title", "plain")})
	check("replacing m2", "u1", "3=m3")

	wantOK(t, "deleting m3", f.s.Delete(ctx, store.Playlists, f.key("owner", "m3"), nil))
	check("deleting m3", "u1")
}
