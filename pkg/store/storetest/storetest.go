package storetest

import (
	"crypto/rand"
	"errors"
	"reflect"
	"testing"
	"time"

	"musiccatalog/pkg/store"
)

// Run checks everything the store.Store port promises against the stores
// newStore returns (called once per subtest). Every subtest writes under
// fresh random keys, so stores may share one server and its tables. The
// stores must use the real clock: expired items are written with expiries
// in the past.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	suites := []struct {
		name string
		run  func(*testing.T, *fixture)
	}{
		{"GetMissing", testGetMissing},
		{"ValueTypes", testValueTypes},
		{"PutReplaces", testPutReplaces},
		{"PutConditions", testPutConditions},
		{"Delete", testDelete},
		{"ConditionsOnPresentItem", testConditionsOnPresentItem},
		{"ConditionsOnAbsentItem", testConditionsOnAbsentItem},
		{"Update", testUpdate},
		{"UpdateConditions", testUpdateConditions},
		{"UpdateExpiry", testUpdateExpiry},
		{"ConcurrentCounter", testConcurrentCounter},
		{"ConcurrentCappedCounter", testConcurrentCappedCounter},
		{"Transact", testTransact},
		{"TransactFailureChangesNothing", testTransactFailureChangesNothing},
		{"Query", testQuery},
		{"QueryPagination", testQueryPagination},
		{"QueryBadCursor", testQueryBadCursor},
		{"IndexQuery", testIndexQuery},
		{"IndexMaintenance", testIndexMaintenance},
		{"ExpiredItemsAreAbsent", testExpiredItemsAreAbsent},
		{"WritesOverExpiredItems", testWritesOverExpiredItems},
		{"Invalid", testInvalid},
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			s.run(t, &fixture{s: newStore(t), ns: rand.Text()[:12] + "/"})
		})
	}
}

// fixture is one subtest's store and key namespace.
type fixture struct {
	s  store.Store
	ns string
}

// key returns a key in the subtest's namespace.
func (f *fixture) key(pk, sk string) store.Key { return store.Key{PK: f.ns + pk, SK: sk} }

func (f *fixture) mustPut(t *testing.T, table store.Table, it store.Item) {
	t.Helper()
	if err := f.s.Put(t.Context(), table, it, nil); err != nil {
		t.Fatalf("Put %s %v: %v", table, it.Key, err)
	}
}

func (f *fixture) mustGet(t *testing.T, table store.Table, k store.Key) store.Item {
	t.Helper()
	it, err := f.s.Get(t.Context(), table, k)
	if err != nil {
		t.Fatalf("Get %s %v: %v", table, k, err)
	}
	return it
}

func (f *fixture) wantAbsent(t *testing.T, table store.Table, k store.Key) {
	t.Helper()
	if it, err := f.s.Get(t.Context(), table, k); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get %s %v = %+v, %v; want ErrNotFound", table, k, it, err)
	}
}

func (f *fixture) wantItem(t *testing.T, table store.Table, want store.Item) {
	t.Helper()
	assertItem(t, f.mustGet(t, table, want.Key), want)
}

func (f *fixture) query(t *testing.T, table store.Table, q store.Query) store.Page {
	t.Helper()
	p, err := f.s.Query(t.Context(), table, q)
	if err != nil {
		t.Fatalf("Query %s %+v: %v", table, q, err)
	}
	return p
}

// assertItem compares items the way the port defines them: values with
// their normalized types, nil and empty attribute maps alike, expiries as
// instants.
func assertItem(t *testing.T, got, want store.Item) {
	t.Helper()
	if got.Key != want.Key {
		t.Errorf("key = %v, want %v", got.Key, want.Key)
	}
	if (len(got.Attrs) != 0 || len(want.Attrs) != 0) && !reflect.DeepEqual(got.Attrs, want.Attrs) {
		t.Errorf("item %v attrs =\n  %#v\nwant\n  %#v", want.Key, got.Attrs, want.Attrs)
	}
	if !got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Errorf("item %v expires at %v, want %v", want.Key, got.ExpiresAt, want.ExpiresAt)
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v, want %v", what, err, target)
	}
}

func wantOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// seconds truncates like the port does, for expected expiries.
func seconds(tm time.Time) time.Time { return time.Unix(tm.Unix(), 0) }

// past and future are expiries well clear of clock skew between this
// process and a store server.
func past() time.Time   { return time.Now().Add(-time.Hour) }
func future() time.Time { return time.Now().Add(time.Hour) }

func attrs(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
