package app

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

const mePlaylists = "/api/v4/me/playlists/"

// playlistEnv is a devserver wiring with a small catalog and users of one
// partner client (subscriber plan, sound effects off): an owner, a
// collaborator-to-be and a stranger, plus a user of another client.
type playlistEnv struct {
	t                                   *testing.T
	d                                   *Deps
	c                                   *apitest.Client
	cat                                 *catalog.Catalog
	partnerKey                          string
	owner, collab, stranger, outsider   string // tokens
	ownerID, collabID, strangerID       string
	collabName, outsiderID, outsiderTok string
}

func newPlaylistEnv(t *testing.T, opts ...func(*Config)) *playlistEnv {
	t.Helper()
	d, creds := newTestDeps(t, opts...)
	e := &playlistEnv{t: t, d: d, cat: publishTestCatalog(t, d), partnerKey: creds.Partner.Key}
	e.c = apitest.New(t, d.LocalHandler())
	ctx := context.Background()
	cl, _, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: "Partner", Plan: identity.PlanSubscriber})
	if err != nil {
		t.Fatal(err)
	}
	user := func(name string) (string, string) {
		u, tok, err := d.Identity.CreateUser(ctx, cl.ID, name, strings.ToUpper(name[:1])+name[1:])
		if err != nil {
			t.Fatal(err)
		}
		return u.ID, tok
	}
	e.ownerID, e.owner = user("olivia")
	e.collabID, e.collab = user("carl")
	e.collabName = "carl"
	e.strangerID, e.stranger = user("stan")
	u, tok := userOfNewClient(t, d, "Other", identity.PlanEnterprise, "otto", "Otto")
	e.outsiderID, e.outsider, e.outsiderTok = u.ID, tok, tok
	return e
}

// userOfNewClient creates a partner client on plan and one user of it,
// and returns the user and their token.
func userOfNewClient(t *testing.T, d *Deps, client string, plan identity.Plan, username, name string) (identity.User, string) {
	t.Helper()
	ctx := context.Background()
	c, _, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: client, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	u, tok, err := d.Identity.CreateUser(ctx, c.ID, username, name)
	if err != nil {
		t.Fatal(err)
	}
	return u, tok
}

// do sends a request as token ("" = none) with a JSON body (nil = none).
func (e *playlistEnv) do(token, method, path string, body any) (*apitest.Response, map[string]any) {
	e.t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	r := e.c.Do(apitest.Request{Method: method, Path: path, Header: h, JSON: body})
	var m map[string]any
	if len(r.Body) > 0 && r.Body[0] == '{' {
		m = r.Map(e.t)
	}
	return r, m
}

func (e *playlistEnv) track(i int) string { return e.cat.Tracks()[i].ID }

// create makes a playlist as token and returns its JSON.
func (e *playlistEnv) create(token, name string, tracks ...string) map[string]any {
	e.t.Helper()
	body := map[string]any{"name": name}
	if tracks != nil {
		body["tracks"] = tracks
	}
	r, m := e.do(token, "POST", mePlaylists, body)
	if r.Status != 201 {
		e.t.Fatalf("create %q: %d %s", name, r.Status, r.Body)
	}
	return m["playlist"].(map[string]any)
}

func (e *playlistEnv) share(slug, userID string) {
	e.t.Helper()
	if r, _ := e.do(e.owner, "POST", mePlaylists+slug+"/collaborators/", map[string]any{"user_id": userID, "permission": "can_edit"}); r.Status != 201 {
		e.t.Fatalf("share: %d %s", r.Status, r.Body)
	}
}

func (e *playlistEnv) itemIDs(token, slug string) []string {
	e.t.Helper()
	r, m := e.do(token, "GET", "/api/v4/en/tracks/?limit=100&user_playlist="+url.QueryEscape(slug), nil)
	if r.Status != 200 {
		e.t.Fatalf("listing: %d %s", r.Status, r.Body)
	}
	var out []string
	for _, x := range m["results"].([]any) {
		out = append(out, x.(map[string]any)["id"].(string))
	}
	return out
}

func TestPlaylistAuthentication(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Mine")
	routes := []struct{ method, path string }{
		{"GET", mePlaylists}, {"POST", mePlaylists}, {"GET", mePlaylists + "mine/"}, {"PATCH", mePlaylists + "mine/"},
		{"PUT", mePlaylists + "mine/"}, {"DELETE", mePlaylists + "mine/"}, {"POST", mePlaylists + "mine/tracks/"},
		{"POST", mePlaylists + "mine/tracks/reorder/"}, {"GET", mePlaylists + "mine/collaborators/"},
		{"POST", mePlaylists + "mine/collaborators/"}, {"DELETE", mePlaylists + "mine/collaborators/" + e.collabID + "/"},
		{"GET", "/api/v4/en/tracks/?user_playlist=mine"},
	}
	for _, rt := range routes {
		var body any
		if rt.method != "GET" && rt.method != "DELETE" {
			body = map[string]any{}
		}
		if r, m := e.do("", rt.method, rt.path, body); r.Status != 401 || m["detail"] != "Authentication credentials were not provided." {
			t.Errorf("%s %s without a token: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
		if r, m := e.do("nope", rt.method, rt.path, body); r.Status != 401 || m["detail"] != "Invalid token." {
			t.Errorf("%s %s with a bad token: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
		// §5: the user identity comes from the token; a partner key has none.
		if r, m := e.do(e.partnerKey, rt.method, rt.path, body); r.Status != 403 || m["detail"] != "This endpoint requires a signed-in user token." {
			t.Errorf("%s %s with a partner key: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
	}
	if r, _ := e.do(e.owner, "GET", mePlaylists+"mine/", nil); r.Status != 200 {
		t.Fatalf("the playlist is gone: %d", r.Status)
	}
}

func TestPlaylistCreateRetrieveList(t *testing.T) {
	e := newPlaylistEnv(t)
	tr := e.cat.Tracks()
	fx := e.cat.SoundFXs()[0].ID
	// Track 3 is enterprise-only (the client is a subscriber) and sound
	// effects are off for this client: both skipped; a repeat collapses.
	r, m := e.do(e.owner, "POST", mePlaylists, map[string]any{
		"name": "  Late Night Drive  ", "description": "For the road.",
		"tracks": []string{tr[0].ID, tr[3].ID, tr[2].ID, strings.ToUpper(tr[0].ID)}, "soundfxs": []string{fx},
		"stems": []string{tr[0].Stems[0].ID},
	})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if !slices.Equal(anyStrings(m["skipped"]), []string{tr[3].ID, fx}) || !slices.Equal(anyStrings(m["duplicated"]), []string{tr[0].ID}) || m["success"] != true {
		t.Errorf("skipped %v duplicated %v", m["skipped"], m["duplicated"])
	}
	p := m["playlist"].(map[string]any)
	wantDuration := float64(tr[0].Length + tr[2].Length + tr[0].Stems[0].Length)
	if p["name"] != "Late Night Drive" || p["slug"] != "late-night-drive" || p["permission"] != "owner" ||
		p["playlist_type"] != "user" || p["tracks"] != 3.0 || p["duration"] != wantDuration ||
		p["url"] != mePlaylists+"late-night-drive/" || len(p["collaborators"].([]any)) != 0 ||
		p["owner"].(map[string]any)["id"] != e.ownerID || p["owner"].(map[string]any)["username"] != "olivia" ||
		p["blurhash"] != nil || p["all_image_sizes"] != nil || r.Header.Get("Location") != p["url"] {
		t.Errorf("created: %v", p)
	}
	r, got := e.do(e.owner, "GET", p["url"].(string), nil)
	if r.Status != 200 || got["id"] != p["id"] || got["tracks"] != 3.0 || got["duration"] != wantDuration {
		t.Errorf("retrieve: %d %v", r.Status, got)
	}
	// The playlist's id names it too.
	if r, got := e.do(e.owner, "GET", mePlaylists+p["id"].(string)+"/", nil); r.Status != 200 || got["slug"] != "late-night-drive" {
		t.Errorf("retrieve by id: %d %v", r.Status, got)
	}
	// Same name again: a new slug, unique per owner.
	second := e.create(e.owner, "Late night drive")
	if second["slug"] != "late-night-drive-2" {
		t.Errorf("second slug %v", second["slug"])
	}
	// Another owner may use the same slug.
	if other := e.create(e.stranger, "Late Night Drive"); other["slug"] != "late-night-drive" {
		t.Errorf("other owner's slug %v", other["slug"])
	}
	// List: slim shape, newest first.
	r, list := e.do(e.owner, "GET", mePlaylists, nil)
	res := list["results"].([]any)
	if r.Status != 200 || list["count"] != 2.0 || len(res) != 2 || res[0].(map[string]any)["id"] != second["id"] || res[1].(map[string]any)["id"] != p["id"] {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	for _, k := range []string{"tracks", "duration", "playlist_type", "collaborators"} {
		if _, ok := res[0].(map[string]any)[k]; ok {
			t.Errorf("the list shape has %s", k)
		}
	}
	// Pagination: limit clamps at 100, bad values are 400.
	if r, m := e.do(e.owner, "GET", mePlaylists+"?limit=1", nil); r.Status != 200 || len(m["results"].([]any)) != 1 || m["next"] == nil || m["previous"] != nil {
		t.Errorf("limit=1: %s", r.Body)
	}
	if r, m := e.do(e.owner, "GET", mePlaylists+"?limit=1&offset=1", nil); r.Status != 200 || m["results"].([]any)[0].(map[string]any)["id"] != p["id"] || m["next"] != nil || m["previous"] == nil {
		t.Errorf("offset=1: %s", r.Body)
	}
	if r, _ := e.do(e.owner, "GET", mePlaylists+"?limit=1000", nil); r.Status != 200 {
		t.Errorf("limit=1000 is clamped, not refused: %d", r.Status)
	}
	for _, q := range []string{"limit=0", "limit=x", "offset=-1"} {
		if r, m := e.do(e.owner, "GET", mePlaylists+"?"+q, nil); r.Status != 400 || m["detail"] != nil {
			t.Errorf("%s: %d %s", q, r.Status, r.Body)
		}
	}
}

func anyStrings(v any) []string {
	out := []string{}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestPlaylistValidation(t *testing.T) {
	e := newPlaylistEnv(t)
	field := func(r *apitest.Response, m map[string]any, name string) bool {
		_, ok := m[name].([]any)
		return r.Status == 400 && ok
	}
	long := strings.Repeat("x", 256)
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "name"},
		{map[string]any{"name": "  "}, "name"},
		{map[string]any{"name": long}, "name"},
		{map[string]any{"name": 5}, "name"},
		{map[string]any{"name": "ok", "tracks": []string{"not-a-uuid"}}, "tracks"},
		{map[string]any{"name": "ok", "tracks": "x"}, "tracks"},
		{map[string]any{"name": "ok", "description": strings.Repeat("d", 5001)}, "description"},
	} {
		if r, m := e.do(e.owner, "POST", mePlaylists, c.body); !field(r, m, c.field) {
			t.Errorf("create %v: %d %s", c.body, r.Status, r.Body)
		}
	}
	raw := func(method, path, ct string, body []byte) *apitest.Response {
		return e.c.Do(apitest.Request{Method: method, Path: path, Body: body,
			Header: map[string]string{"Authorization": "Bearer " + e.owner, "Content-Type": ct}})
	}
	if r := raw("POST", mePlaylists, "application/json", []byte("[1]")); r.Status != 400 {
		t.Errorf("non-object body: %d", r.Status)
	}
	if r := raw("POST", mePlaylists, "text/plain", []byte(`{"name":"x"}`)); r.Status != 415 {
		t.Errorf("text/plain: %d", r.Status)
	}
	p := e.create(e.owner, "Valid")
	slug := p["slug"].(string)
	if r, m := e.do(e.owner, "PATCH", mePlaylists+slug+"/", map[string]any{"name": ""}); !field(r, m, "name") {
		t.Errorf("blank rename: %d %s", r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "PATCH", mePlaylists+slug+"/", map[string]any{"image": "data"}); !field(r, m, "image") {
		t.Errorf("JSON image: %d %s", r.Status, r.Body)
	}
	items := mePlaylists + slug + "/tracks/"
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{"tracks": []string{e.track(0)}}, "action"},
		{map[string]any{"action": "move", "tracks": []string{e.track(0)}}, "action"},
		{map[string]any{"action": "add"}, ""},
		{map[string]any{"action": "add", "stems": []string{"nope"}}, "stems"},
	} {
		r, m := e.do(e.owner, "POST", items, c.body)
		if c.field == "" && (r.Status != 400 || m["detail"] == nil) || c.field != "" && !field(r, m, c.field) {
			t.Errorf("items %v: %d %s", c.body, r.Status, r.Body)
		}
	}
	if r, got := e.do(e.owner, "GET", mePlaylists+slug+"/", nil); got["tracks"] != 0.0 || got["name"] != "Valid" {
		t.Errorf("refused requests changed the playlist: %d %v", r.Status, got)
	}
	if r, m := e.do(e.owner, "GET", mePlaylists+"no-such-playlist/", nil); r.Status != 404 || m["detail"] == nil {
		t.Errorf("unknown slug: %d %s", r.Status, r.Body)
	}
}

func TestPlaylistUpdateAndDelete(t *testing.T) {
	e := newPlaylistEnv(t)
	p := e.create(e.owner, "Before")
	path := mePlaylists + "before/"
	r, m := e.do(e.owner, "PATCH", path, map[string]any{"name": "After"})
	if r.Status != 200 || m["name"] != "After" || m["slug"] != "before" || m["url"] != path || m["tracks"] != 0.0 {
		t.Fatalf("rename: %d %v", r.Status, m)
	}
	r, m = e.do(e.owner, "PUT", path, map[string]any{"description": "New words"})
	if r.Status != 200 || m["description"] != "New words" || m["name"] != "After" {
		t.Fatalf("PUT: %d %v", r.Status, m)
	}
	if r, m := e.do(e.owner, "GET", p["url"].(string), nil); r.Status != 200 || m["name"] != "After" {
		t.Fatalf("the url stopped working after a rename: %d", r.Status)
	}
	if r, _ := e.do(e.owner, "DELETE", path, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r, _ := e.do(e.owner, "GET", path, nil); r.Status != 404 {
		t.Errorf("after delete: %d", r.Status)
	}
	if r, _ := e.do(e.owner, "DELETE", path, nil); r.Status != 404 {
		t.Errorf("second delete: %d", r.Status)
	}
	if _, m := e.do(e.owner, "GET", mePlaylists, nil); m["count"] != 0.0 {
		t.Errorf("deleted playlist still listed: %v", m)
	}
	// Its slug is free again.
	if again := e.create(e.owner, "Before"); again["slug"] != "before" {
		t.Errorf("slug after delete: %v", again["slug"])
	}
}

func TestPlaylistItems(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Items", e.track(0))
	items := mePlaylists + "items/tracks/"
	add := map[string]any{"action": "add", "tracks": []string{e.track(2), e.track(4), e.track(3), e.track(0), e.track(2)}}
	r, m := e.do(e.owner, "POST", items, add)
	if r.Status != 200 || m["added"] != 2.0 || !slices.Equal(anyStrings(m["skipped"]), []string{e.track(3)}) ||
		!slices.Equal(anyStrings(m["duplicated"]), []string{e.track(0), e.track(2)}) {
		t.Fatalf("add: %d %s", r.Status, r.Body)
	}
	// A retry changes nothing and says so.
	r, m = e.do(e.owner, "POST", items, add)
	if r.Status != 200 || m["added"] != 0.0 || len(anyStrings(m["duplicated"])) != 4 {
		t.Fatalf("retried add: %d %s", r.Status, r.Body)
	}
	if got := e.itemIDs(e.owner, "items"); !slices.Equal(got, []string{e.track(0), e.track(2), e.track(4)}) {
		t.Fatalf("items %v", got)
	}
	r, m = e.do(e.owner, "POST", items, map[string]any{"action": "delete", "tracks": []string{e.track(2), e.track(5)}})
	if r.Status != 200 || m["added"] != 0.0 || m["removed"] != 1.0 || !slices.Equal(anyStrings(m["skipped"]), []string{e.track(5)}) {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	_, p := e.do(e.owner, "GET", mePlaylists+"items/", nil)
	if p["tracks"] != 2.0 || p["duration"] != float64(e.cat.Tracks()[0].Length+e.cat.Tracks()[4].Length) {
		t.Errorf("totals after delete: %v %v", p["tracks"], p["duration"])
	}
}

func TestPlaylistReorder(t *testing.T) {
	e := newPlaylistEnv(t)
	ids := []string{e.track(0), e.track(2), e.track(4), e.track(5)}
	e.create(e.owner, "Order", ids...)
	reorder := mePlaylists + "order/tracks/reorder/"
	obj := func(id string) map[string]any { return map[string]any{"id": id, "type": "track"} }
	r, m := e.do(e.owner, "POST", reorder, map[string]any{"items": []any{obj(ids[0])}, "offset": 2})
	if r.Status != 200 || m["success"] != true || m["total_items"] != 4.0 {
		t.Fatalf("offset: %d %s", r.Status, r.Body)
	}
	if got := e.itemIDs(e.owner, "order"); !slices.Equal(got, []string{ids[1], ids[2], ids[0], ids[3]}) {
		t.Fatalf("after offset +2: %v", got)
	}
	if r, _ := e.do(e.owner, "POST", reorder, map[string]any{"items": []string{ids[3], ids[2], ids[1], ids[0]}}); r.Status != 200 {
		t.Fatalf("permutation: %d %s", r.Status, r.Body)
	}
	if got := e.itemIDs(e.owner, "order"); !slices.Equal(got, []string{ids[3], ids[2], ids[1], ids[0]}) {
		t.Fatalf("after permutation: %v", got)
	}
	if r, _ := e.do(e.owner, "POST", reorder, map[string]any{"item": ids[0], "position": 0}); r.Status != 200 {
		t.Fatalf("position: %d %s", r.Status, r.Body)
	}
	if got := e.itemIDs(e.owner, "order"); !slices.Equal(got, []string{ids[0], ids[3], ids[2], ids[1]}) {
		t.Fatalf("after position: %v", got)
	}
	// Offsets past either end move as far as they can (the largest ones
	// wrapped around before and moved an item to the wrong end).
	for _, c := range []struct {
		offset json.Number
		want   []string
	}{
		{"9223372036854775807", []string{ids[0], ids[3], ids[2], ids[1]}},
		{"-9223372036854775808", []string{ids[1], ids[0], ids[3], ids[2]}},
		{"9223372036854775807", []string{ids[0], ids[3], ids[2], ids[1]}},
	} {
		if r, _ := e.do(e.owner, "POST", reorder, map[string]any{"items": []any{obj(ids[1])}, "offset": c.offset}); r.Status != 200 {
			t.Fatalf("offset %s: %d %s", c.offset, r.Status, r.Body)
		}
		if got := e.itemIDs(e.owner, "order"); !slices.Equal(got, c.want) {
			t.Fatalf("after offset %s: %v", c.offset, got)
		}
	}
	want := []string{ids[0], ids[3], ids[2], ids[1]}
	many := make([]any, 501)
	for i := range many {
		many[i] = obj(ids[0])
	}
	for _, c := range []struct {
		body any
		want string // a word of the message
	}{
		{map[string]any{"items": []any{}, "offset": 1}, "empty"},
		{map[string]any{"items": many, "offset": 1}, "500"},
		{map[string]any{"items": []any{obj(e.track(1))}, "offset": 1}, e.track(1)},
		{map[string]any{"items": []any{map[string]any{"id": ids[0], "type": "video"}}, "offset": 1}, "type"},
		{map[string]any{"items": []any{obj(ids[0])}}, "required"},
		{map[string]any{"items": []string{ids[0], ids[1], ids[2], e.track(1)}}, ids[3]},
		{map[string]any{"items": []string{ids[0], ids[1], ids[2], ids[3], e.track(1)}}, e.track(1)},
		{map[string]any{"item": ids[0], "position": 4}, "between"},
		{map[string]any{"item": e.track(1), "position": 0}, e.track(1)},
		{map[string]any{}, "required"},
	} {
		r, _ := e.do(e.owner, "POST", reorder, c.body)
		if r.Status != 400 || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("reorder %v: %d %s (want %q)", c.body, r.Status, r.Body, c.want)
		}
	}
	if got := e.itemIDs(e.owner, "order"); !slices.Equal(got, want) {
		t.Errorf("refused reorders changed the order: %v", got)
	}
}

// TestPlaylistPermissions walks the §5 table: owner, collaborator
// (can_edit) and anyone else, for every action; a playlist the caller
// cannot see is 404, an action their role lacks is 403.
func TestPlaylistPermissions(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Shared", e.track(0), e.track(2))
	path := mePlaylists + "shared/"
	// Sharing: owner only, by id or username, same partner client only.
	if r, m := e.do(e.owner, "POST", path+"collaborators/", map[string]any{"username": "CARL"}); r.Status != 201 ||
		m["id"] != e.collabID || m["username"] != "carl" || m["permission"] != "can_edit" {
		t.Fatalf("share by username: %d %s", r.Status, r.Body)
	}
	if r, _ := e.do(e.owner, "POST", path+"collaborators/", map[string]any{"user_id": e.collabID}); r.Status != 200 {
		t.Errorf("sharing twice: %d %s", r.Status, r.Body)
	}
	for _, body := range []map[string]any{{"user_id": e.outsiderID}, {"username": "otto"}, {"username": "nobody"}, {"user_id": "x"},
		{}, {"user_id": e.strangerID, "username": "stan"}, {"user_id": e.ownerID}, {"user_id": e.strangerID, "permission": "can_view"}} {
		if r, _ := e.do(e.owner, "POST", path+"collaborators/", body); r.Status != 400 {
			t.Errorf("share %v: %d %s", body, r.Status, r.Body)
		}
	}
	if r, m := e.do(e.collab, "POST", path+"collaborators/", map[string]any{"user_id": e.strangerID}); r.Status != 403 || m["detail"] == nil {
		t.Errorf("collaborator sharing: %d %s", r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "GET", path+"collaborators/", nil); r.Status != 200 || m["count"] != 1.0 {
		t.Errorf("collaborators: %d %s", r.Status, r.Body)
	}

	// List: the collaborator sees it with permission can_edit.
	_, m := e.do(e.collab, "GET", mePlaylists, nil)
	if res := m["results"].([]any); len(res) != 1 || res[0].(map[string]any)["permission"] != "can_edit" || res[0].(map[string]any)["slug"] != "shared" {
		t.Errorf("collaborator's list: %v", m)
	}
	if _, m := e.do(e.stranger, "GET", mePlaylists, nil); m["count"] != 0.0 {
		t.Errorf("stranger's list: %v", m)
	}
	type action struct {
		name, method, path string
		body               any
	}
	actions := []action{
		{"retrieve", "GET", path, nil},
		{"list tracks", "GET", "/api/v4/en/tracks/?user_playlist=shared", nil},
		{"collaborators", "GET", path + "collaborators/", nil},
		{"rename", "PATCH", path, map[string]any{"name": "Shared"}},
		{"describe", "PUT", path, map[string]any{"description": "d"}},
		{"add", "POST", path + "tracks/", map[string]any{"action": "add", "tracks": []string{e.track(4)}}},
		{"remove", "POST", path + "tracks/", map[string]any{"action": "delete", "tracks": []string{e.track(4)}}},
		{"reorder", "POST", path + "tracks/reorder/", map[string]any{"items": []any{map[string]any{"id": e.track(0), "type": "track"}}, "offset": 1}},
	}
	for _, a := range actions {
		for who, tok := range map[string]string{"owner": e.owner, "collaborator": e.collab} {
			if r, _ := e.do(tok, a.method, a.path, a.body); r.Status != 200 {
				t.Errorf("%s as %s: %d %s", a.name, who, r.Status, r.Body)
			}
		}
		for who, tok := range map[string]string{"stranger": e.stranger, "other client": e.outsider} {
			if r, m := e.do(tok, a.method, a.path, a.body); r.Status != 404 || m["detail"] != "Not found." {
				t.Errorf("%s as %s: %d %s", a.name, who, r.Status, r.Body)
			}
		}
	}
	if _, m := e.do(e.owner, "GET", path, nil); m["permission"] != "owner" {
		t.Errorf("owner's permission: %v", m["permission"])
	}
	if _, m := e.do(e.collab, "GET", path, nil); m["permission"] != "can_edit" || len(m["collaborators"].([]any)) != 1 {
		t.Errorf("collaborator's view: %v", m)
	}
	// Delete: owner only; the collaborator gets 403, a stranger 404.
	if r, m := e.do(e.collab, "DELETE", path, nil); r.Status != 403 || m["detail"] != "Only the owner can delete this playlist." {
		t.Errorf("collaborator deleting: %d %s", r.Status, r.Body)
	}
	if r, _ := e.do(e.stranger, "DELETE", path, nil); r.Status != 404 {
		t.Errorf("stranger deleting: %d", r.Status)
	}
	if r, _ := e.do(e.collab, "DELETE", path+"collaborators/"+e.ownerID+"/", nil); r.Status != 403 {
		t.Errorf("collaborator removing someone else: %d", r.Status)
	}
	// Unsharing: the collaborator loses sight of it.
	if r, _ := e.do(e.owner, "DELETE", path+"collaborators/"+e.collabID+"/", nil); r.Status != 204 {
		t.Fatalf("unshare: %d %s", r.Status, r.Body)
	}
	if r, _ := e.do(e.collab, "GET", path, nil); r.Status != 404 {
		t.Errorf("after unsharing: %d", r.Status)
	}
	if _, m := e.do(e.collab, "GET", mePlaylists, nil); m["count"] != 0.0 {
		t.Errorf("unshared playlist still listed: %v", m)
	}
	// A collaborator may leave on their own.
	e.share("shared", e.strangerID)
	if r, _ := e.do(e.stranger, "DELETE", path+"collaborators/"+e.strangerID+"/", nil); r.Status != 204 {
		t.Errorf("leaving: %d", r.Status)
	}
	if r, _ := e.do(e.owner, "DELETE", path, nil); r.Status != 204 {
		t.Errorf("owner deleting: %d", r.Status)
	}
}

func TestPlaylistCoverImage(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Cover")
	e.share("cover", e.collabID)
	path := mePlaylists + "cover/"
	upload := func(tok string, fields map[string]string, image []byte) (*apitest.Response, map[string]any) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range fields {
			_ = mw.WriteField(k, v)
		}
		if image != nil {
			fw, _ := mw.CreateFormFile("image", "cover.png")
			fw.Write(image)
		}
		mw.Close()
		r := e.c.Do(apitest.Request{Method: "PATCH", Path: path, Body: buf.Bytes(),
			Header: map[string]string{"Authorization": "Bearer " + tok, "Content-Type": mw.FormDataContentType()}})
		var m map[string]any
		if len(r.Body) > 0 && r.Body[0] == '{' {
			m = r.Map(t)
		}
		return r, m
	}
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := range 600 {
		for x := range 800 {
			img.Set(x, y, color.RGBA{uint8(x / 4), uint8(y / 3), 200, 255})
		}
	}
	var pngBytes bytes.Buffer
	png.Encode(&pngBytes, img)
	r, m := upload(e.collab, map[string]string{"name": "Covered"}, pngBytes.Bytes())
	if r.Status != 200 || m["name"] != "Covered" || m["blurhash"] == nil || len(m["blurhash"].(string)) < 6 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	sizes := m["all_image_sizes"].(map[string]any)
	for _, size := range []string{"small", "medium", "large"} {
		u, _ := url.Parse(sizes[size].(string))
		resp, err := e.c.HTTP.Get(e.c.Server.URL + u.RequestURI())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cfg, format, err := image.DecodeConfig(bytes.NewReader(body))
		if resp.StatusCode != 200 || err != nil || format != "jpeg" || cfg.Width > 1200 {
			t.Errorf("%s: %d %s %v %v", size, resp.StatusCode, format, cfg, err)
		}
	}
	// The list shape carries the cover too.
	if _, l := e.do(e.owner, "GET", mePlaylists, nil); l["results"].([]any)[0].(map[string]any)["blurhash"] != m["blurhash"] {
		t.Errorf("list blurhash: %v", l)
	}
	if r, f := upload(e.owner, nil, []byte("%PDF-1.4 not an image")); r.Status != 400 || f["image"] == nil {
		t.Errorf("non-image: %d %s", r.Status, r.Body)
	}
	big := append(append([]byte{}, pngBytes.Bytes()...), make([]byte, 10_000_001)...)
	if r, f := upload(e.owner, nil, big); r.Status != 400 || f["image"] == nil {
		t.Errorf("over 10 MB: %d %s", r.Status, r.Body)
	}
	if r, _ := upload(e.stranger, nil, pngBytes.Bytes()); r.Status != 404 {
		t.Errorf("stranger upload: %d", r.Status)
	}
	if _, after := e.do(e.owner, "GET", path, nil); after["blurhash"] != m["blurhash"] || after["name"] != "Covered" {
		t.Errorf("refused uploads changed the playlist: %v", after)
	}
}

func TestPlaylistTrackListing(t *testing.T) {
	e := newPlaylistEnv(t)
	order := []string{e.track(5), e.track(0), e.track(2), e.track(7), e.track(4)}
	e.create(e.owner, "Listing", order...)
	fx := e.cat.Tracks()[0].Stems[0].ID
	e.do(e.owner, "POST", mePlaylists+"listing/tracks/", map[string]any{"action": "add", "stems": []string{fx}})
	if got := e.itemIDs(e.owner, "listing"); !slices.Equal(got, order) {
		t.Fatalf("order %v, want %v", got, order)
	}
	r, m := e.do(e.owner, "GET", "/api/v4/de/tracks/?user_playlist=listing&limit=2&offset=2", nil)
	res := m["results"].([]any)
	if r.Status != 200 || m["count"] != 5.0 || len(res) != 2 || res[0].(map[string]any)["id"] != order[2] || m["next"] == nil || m["previous"] == nil {
		t.Fatalf("page: %d %s", r.Status, r.Body)
	}
	e.share("listing", e.collabID)
	if got := e.itemIDs(e.collab, "listing"); !slices.Equal(got, order) {
		t.Errorf("collaborator's listing %v", got)
	}
	if r, _ := e.do(e.stranger, "GET", "/api/v4/en/tracks/?user_playlist=listing", nil); r.Status != 404 {
		t.Errorf("stranger: %d", r.Status)
	}
	if r, m := e.do(e.owner, "GET", "/api/v4/en/tracks/", nil); r.Status != 400 || m["user_playlist"] == nil {
		t.Errorf("no user_playlist: %d %s", r.Status, r.Body)
	}
	if r, _ := e.do(e.owner, "GET", "/api/v4/english/tracks/?user_playlist=listing", nil); r.Status != 404 {
		t.Errorf("bad locale: %d", r.Status)
	}
	// The stream proxy keeps its path (/api/v4/stream/tracks/ is a stream id).
	if r, _ := e.do("", "GET", "/api/v4/stream/tracks/", nil); r.Status != 404 {
		t.Errorf("stream path: %d %s", r.Status, r.Body)
	}
}

func TestSearchNamesCallersPlaylists(t *testing.T) {
	e := newPlaylistEnv(t)
	rock := e.create(e.owner, "Rock", e.track(0))
	e.create(e.owner, "Jazz", e.track(1))
	e.share("rock", e.collabID)
	ids := func(tok string) []string {
		t.Helper()
		r, m := e.do(tok, "GET", "/api/v4/search/ai/by-text/?text=rock", nil)
		if r.Status != 200 {
			t.Fatalf("search: %d %s", r.Status, r.Body)
		}
		return anyStrings(m["playlist_search"].(map[string]any)["ids"])
	}
	if got := ids(e.owner); !slices.Equal(got, []string{rock["id"].(string)}) {
		t.Errorf("owner: %v", got)
	}
	if got := ids(e.collab); !slices.Equal(got, []string{rock["id"].(string)}) {
		t.Errorf("collaborator: %v", got)
	}
	for who, tok := range map[string]string{"stranger": e.stranger, "anonymous": "", "partner": e.partnerKey} {
		if got := ids(tok); len(got) != 0 {
			t.Errorf("%s: %v", who, got)
		}
	}
}

func TestPlaylistRateLimit(t *testing.T) {
	e := newPlaylistEnv(t, func(c *Config) { c.RateAuth = 3 })
	var last *apitest.Response
	for range 4 {
		last, _ = e.do(e.owner, "GET", mePlaylists, nil)
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Errorf("4th call in a minute at 3/min: %d %v", last.Status, last.Header)
	}
}
