package app

import (
	"strings"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
)

// keyedPlaylistEnv is a playlist env whose store loses the answer of the
// next playlist write once armed (its deletes' with deletes set), and a
// sender of the owner's requests under an optional Idempotency-Key.
func keyedPlaylistEnv(t *testing.T, deletes bool) (*playlistEnv, *lostCreateAnswer, func(method, path, key string, body map[string]any) *apitest.Response) {
	e := newPlaylistEnv(t)
	st := &lostCreateAnswer{Store: e.d.Store, deletes: deletes}
	e.d.Playlists = playlists.New(st, e.d.Blob, e.d.CatalogSource(), e.d.Identity, e.d.Clock, ids.Random{}, nil)
	e.c = apitest.New(t, e.d.LocalHandler())
	return e, st, func(method, path, key string, body map[string]any) *apitest.Response {
		t.Helper()
		h := map[string]string{"Authorization": "Bearer " + e.owner}
		if key != "" {
			h["Idempotency-Key"] = key
		}
		return e.c.Do(apitest.Request{Method: method, Path: path, JSON: body, Header: h})
	}
}

// TestRetriedChangeWithIdempotencyKeyAnswersTheCommittedOne: an add of
// tracks and a rename whose writes committed but whose answers failed
// (500) are retried with the same Idempotency-Key. The add's retry
// answers what the committed add did (2 added), not "duplicated"; the
// rename's retry does not rename again over a rename made meanwhile.
// Before, the retries ran afresh: the add answered added 0 with both
// tracks duplicated, and the rename undid the later one.
func TestRetriedChangeWithIdempotencyKeyAnswersTheCommittedOne(t *testing.T) {
	e, st, send := keyedPlaylistEnv(t, false)
	if r := send("POST", mePlaylists, "", map[string]any{"name": "Mix"}); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	add := map[string]any{"action": "add", "tracks": []string{e.track(0), e.track(2)}}
	st.armed.Store(true)
	if r := send("POST", mePlaylists+"mix/tracks/", "add-1", add); r.Status != 500 {
		t.Fatalf("add whose answer failed: %d %s", r.Status, r.Body)
	}
	r := send("POST", mePlaylists+"mix/tracks/", "add-1", add)
	if m := r.Map(t); r.Status != 200 || m["added"] != float64(2) || len(m["duplicated"].([]any)) != 0 {
		t.Fatalf("retried add: %d %s; want the committed answer, 2 added", r.Status, r.Body)
	}
	if again := send("POST", mePlaylists+"mix/tracks/", "add-1", add); again.Status != 200 || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(r.Body) {
		t.Errorf("a third send: %d %s; want the retry's answer replayed", again.Status, again.Body)
	}

	st.armed.Store(true)
	if r := send("PATCH", mePlaylists+"mix/", "rename-1", map[string]any{"name": "Renamed"}); r.Status != 500 {
		t.Fatalf("rename whose answer failed: %d %s", r.Status, r.Body)
	}
	if r := send("PATCH", mePlaylists+"mix/", "", map[string]any{"name": "Other"}); r.Status != 200 {
		t.Fatalf("a later rename: %d %s", r.Status, r.Body)
	}
	r = send("PATCH", mePlaylists+"mix/", "rename-1", map[string]any{"name": "Renamed"})
	if m := r.Map(t); r.Status != 200 || m["name"] != "Other" || m["tracks"] != float64(2) {
		t.Errorf("retried rename: %d %s; want 200 with the playlist as it is (name Other)", r.Status, r.Body)
	}
}

// TestRetriedDeleteWithIdempotencyKeyAnswersTheCommittedOne: a DELETE
// whose write committed but whose answer failed (500) is retried with the
// same Idempotency-Key after the owner made a new playlist of the same
// name (so the same slug). The retry answers 204 and leaves the new
// playlist alone; before, DELETE ignored the key and the retry deleted
// the new playlist.
func TestRetriedDeleteWithIdempotencyKeyAnswersTheCommittedOne(t *testing.T) {
	e, st, send := keyedPlaylistEnv(t, true)
	if r := send("POST", mePlaylists, "", map[string]any{"name": "Mix"}); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	st.armed.Store(true)
	if r := send("DELETE", mePlaylists+"mix/", "delete-1", nil); r.Status != 500 {
		t.Fatalf("delete whose answer failed: %d %s", r.Status, r.Body)
	}
	if r := send("POST", mePlaylists, "", map[string]any{"name": "Mix", "tracks": []string{e.track(1)}}); r.Status != 201 || r.Map(t)["playlist"].(map[string]any)["slug"] != "mix" {
		t.Fatalf("create again: %d %s", r.Status, r.Body)
	}
	if r := send("DELETE", mePlaylists+"mix/", "delete-1", nil); r.Status != 204 {
		t.Errorf("retried delete: %d %s; want the committed delete's 204", r.Status, r.Body)
	}
	if r := send("GET", mePlaylists+"mix/", "", nil); r.Status != 200 || r.Map(t)["tracks"] != float64(1) {
		t.Errorf("the new playlist after the retried delete: %d %s; want it untouched", r.Status, r.Body)
	}
}

// TestKeyedDeleteRefusalsChangeNothing: a playlist DELETE under a
// malformed Idempotency-Key is 400 invalid_idempotency_key, under a key
// already used for another request 422 idempotency_key_reused, and by a
// collaborator 403 (not kept: the owner's later delete under the same key
// runs); none of them deletes anything.
func TestKeyedDeleteRefusalsChangeNothing(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Mix", e.track(0))
	e.share("mix", e.collabID)
	del := func(token, key string) *apitest.Response {
		t.Helper()
		return e.c.Do(apitest.Request{Method: "DELETE", Path: mePlaylists + "mix/",
			Header: map[string]string{"Authorization": "Bearer " + token, "Idempotency-Key": key}})
	}
	for _, key := range []string{strings.Repeat("k", 256), "tab\there"} {
		if r := del(e.owner, key); r.Status != 400 || r.Map(t)["error_code"] != "invalid_idempotency_key" {
			t.Errorf("key %q: %d %s", key, r.Status, r.Body)
		}
	}
	if r, _ := e.do(e.owner, "PATCH", mePlaylists+"mix/", map[string]any{"description": "x"}); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if r := e.c.Do(apitest.Request{Method: "PATCH", Path: mePlaylists + "mix/", JSON: map[string]any{"description": "y"},
		Header: map[string]string{"Authorization": "Bearer " + e.owner, "Idempotency-Key": "used"}}); r.Status != 200 {
		t.Fatalf("keyed patch: %d %s", r.Status, r.Body)
	}
	if r := del(e.owner, "used"); r.Status != 422 || r.Map(t)["error_code"] != "idempotency_key_reused" {
		t.Errorf("reused key: %d %s", r.Status, r.Body)
	}
	if r := del(e.collab, "collab-1"); r.Status != 403 {
		t.Errorf("collaborator's keyed delete: %d %s", r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "GET", mePlaylists+"mix/", nil); r.Status != 200 || m["tracks"] != float64(1) {
		t.Fatalf("after the refusals: %d %s; want the playlist untouched", r.Status, r.Body)
	}
	if r := del(e.owner, "owner-1"); r.Status != 204 {
		t.Errorf("the owner's keyed delete: %d %s", r.Status, r.Body)
	}
	if r := del(e.owner, "owner-1"); r.Status != 204 || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("its repeat: %d %s %v; want the 204 replayed", r.Status, r.Body, r.Header)
	}
}
