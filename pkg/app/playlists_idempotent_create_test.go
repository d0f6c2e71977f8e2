package app

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/store"
)

// lostCreateAnswer commits the next playlist create's (or change's)
// transaction and then fails it, as a timeout after the commit does; with
// deletes set, the next playlist delete's instead.
type lostCreateAnswer struct {
	store.Store
	armed   atomic.Bool
	deletes bool
}

func (l *lostCreateAnswer) Transact(ctx context.Context, ops []store.TxOp) error {
	kind := store.TxKindPut
	if l.deletes {
		kind = store.TxKindDelete
	}
	if len(ops) == 0 || ops[0].Table != store.Playlists || ops[0].Kind != kind || !l.armed.CompareAndSwap(true, false) {
		return l.Store.Transact(ctx, ops)
	}
	if err := l.Store.Transact(ctx, ops); err != nil {
		return err
	}
	return errors.New("operation error DynamoDB: TransactWriteItems: context deadline exceeded")
}

// TestRetriedCreateWithIdempotencyKeyFindsTheFirstPlaylist: a create
// whose playlist was written but whose answer failed (500: the error came
// after the commit) is retried with the same Idempotency-Key; the retry
// answers 201 with that playlist instead of writing a second one. Before,
// the 500 released the key and the retry created "Mix" a second time
// (slug mix-2). A new key still creates a new playlist.
func TestRetriedCreateWithIdempotencyKeyFindsTheFirstPlaylist(t *testing.T) {
	e := newPlaylistEnv(t)
	st := &lostCreateAnswer{Store: e.d.Store}
	e.d.Playlists = playlists.New(st, e.d.Blob, e.d.CatalogSource(), e.d.Identity, e.d.Clock, ids.Random{}, nil)
	e.c = apitest.New(t, e.d.LocalHandler())
	create := func(key string) *apitest.Response {
		t.Helper()
		return e.c.Do(apitest.Request{Method: "POST", Path: mePlaylists, JSON: map[string]any{"name": "Mix", "tracks": []string{e.track(0)}},
			Header: map[string]string{"Authorization": "Bearer " + e.owner, "Idempotency-Key": key}})
	}
	st.armed.Store(true)
	if r := create("mix-1"); r.Status != 500 {
		t.Fatalf("create whose answer failed: %d %s", r.Status, r.Body)
	}
	r := create("mix-1")
	if r.Status != 201 {
		t.Fatalf("retry: %d %s", r.Status, r.Body)
	}
	pl := r.Map(t)["playlist"].(map[string]any)
	if pl["slug"] != "mix" {
		t.Errorf("retry answered slug %v; want the first playlist, mix", pl["slug"])
	}
	list, m := e.do(e.owner, "GET", mePlaylists, nil)
	if list.Status != 200 || m["count"] != float64(1) {
		t.Fatalf("after the retry: %d %s; want one playlist", list.Status, list.Body)
	}
	if again := create("mix-1"); again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(r.Body) {
		t.Errorf("a third send: %d %s %v; want the retry's answer replayed", again.Status, again.Body, again.Header)
	}
	if other := create("mix-2"); other.Status != 201 || other.Map(t)["playlist"].(map[string]any)["slug"] != "mix-2" {
		t.Errorf("a new key: %d %s; want a second playlist", other.Status, other.Body)
	}
}
