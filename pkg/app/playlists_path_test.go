package app

import (
	"slices"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// A playlist's url must reach that playlist for the caller who reads it,
// whatever other playlist of the same slug the caller owns or sees: an
// edit sent to the url given for a shared playlist must not land on the
// caller's own one (review A of 2026-12-07 found it did).
func TestPlaylistURLReachesThatPlaylist(t *testing.T) {
	e := newPlaylistEnv(t)
	// The collaborator owns "Road Trip" before the owner shares theirs.
	mine := e.create(e.collab, "Road Trip", e.track(1))
	theirs := e.create(e.owner, "Road Trip", e.track(0))
	if mine["slug"] != "road-trip" || theirs["slug"] != "road-trip" {
		t.Fatalf("slugs: %v, %v", mine["slug"], theirs["slug"])
	}
	e.share("road-trip", e.collabID)
	urls := map[string]string{}
	_, m := e.do(e.collab, "GET", mePlaylists, nil)
	for _, x := range m["results"].([]any) {
		p := x.(map[string]any)
		urls[p["id"].(string)] = p["url"].(string)
	}
	if urls[mine["id"].(string)] != mePlaylists+"road-trip/" || urls[theirs["id"].(string)] != mePlaylists+theirs["id"].(string)+"/" {
		t.Fatalf("collaborator's urls: %v", urls)
	}
	if _, m := e.do(e.collab, "GET", urls[theirs["id"].(string)], nil); m["id"] != theirs["id"] || m["url"] != urls[theirs["id"].(string)] {
		t.Fatalf("retrieve by the shared one's url: %v", m)
	}
	if r, _ := e.do(e.collab, "POST", urls[theirs["id"].(string)]+"tracks/", map[string]any{"action": "add", "tracks": []string{e.track(2)}}); r.Status != 200 {
		t.Fatalf("add: %d %s", r.Status, r.Body)
	}
	if got := e.itemIDs(e.owner, "road-trip"); !slices.Equal(got, []string{e.track(0), e.track(2)}) {
		t.Errorf("owner's playlist after the collaborator's add: %v", got)
	}
	if got := e.itemIDs(e.collab, "road-trip"); !slices.Equal(got, []string{e.track(1)}) {
		t.Errorf("collaborator's own playlist changed: %v", got)
	}
	// The owner's own view keeps the slug.
	if _, m := e.do(e.owner, "GET", mePlaylists+"road-trip/", nil); m["url"] != mePlaylists+"road-trip/" {
		t.Errorf("owner's url: %v", m["url"])
	}

	// Shared first: a playlist the collaborator then creates under the same
	// name takes another slug, so the shared one keeps its slug path.
	e.create(e.owner, "Gym", e.track(0))
	e.share("gym", e.collabID)
	gym := e.create(e.collab, "Gym", e.track(3))
	if gym["slug"] != "gym-2" || gym["url"] != mePlaylists+"gym-2/" {
		t.Errorf("collaborator's new playlist beside a shared one: slug %v url %v", gym["slug"], gym["url"])
	}
	if _, m := e.do(e.collab, "GET", mePlaylists+"gym/", nil); m["owner"].(map[string]any)["id"] != e.ownerID || m["url"] != mePlaylists+"gym/" {
		t.Errorf("shared gym: %v", m)
	}

	// Two owners share a "gym" with the collaborator: each listed url, and
	// each retrieved one, reaches its own playlist.
	e.create(e.stranger, "Gym", e.track(4))
	if r, _ := e.do(e.stranger, "POST", mePlaylists+"gym/collaborators/", map[string]any{"user_id": e.collabID}); r.Status != 201 {
		t.Fatalf("stranger shares: %d %s", r.Status, r.Body)
	}
	_, m = e.do(e.collab, "GET", mePlaylists, nil)
	paths := map[string]bool{}
	for _, x := range m["results"].([]any) {
		p := x.(map[string]any)
		u := p["url"].(string)
		if paths[u] {
			t.Errorf("two listed playlists share the url %s", u)
		}
		paths[u] = true
		if _, got := e.do(e.collab, "GET", u, nil); got["id"] != p["id"] || got["url"] != u {
			t.Errorf("%s (%s) reached %v at %v", u, p["id"], got["id"], got["url"])
		}
	}
	if len(paths) != 5 {
		t.Errorf("collaborator's list: %v", m)
	}

	// A name shaped like a playlist id does not become a slug that could
	// take another playlist's id path.
	idLike := "0b7c2f7e-1111-4222-8333-444455556666"
	if p := e.create(e.collab, idLike); p["slug"] != idLike+"-2" {
		t.Errorf("slug of a name shaped like an id: %v", p["slug"])
	}
}

// A user adds only what their plan covers (§4.7: skipped holds "restricted
// content outside their tier"): on the free plan, paid-tier and restricted
// tracks and their stems are skipped, not only enterprise-only ones.
func TestPlaylistSkipsTracksOutsideTheTier(t *testing.T) {
	d, _ := newTestDeps(t)
	c := catalogtest.Contents(6, 3)
	c.Tracks[1].AccessTier = catalog.TierSubscriber
	c.Tracks[2].Restricted = true
	c.Tracks[3].AccessTier = catalog.TierEnterprise
	cat := catalogtest.Publish(t, d.Blob, c)
	_, tok := userOfNewClient(t, d, "Free", identity.PlanFree, "fran", "Fran")
	tr := cat.Tracks()
	var all, stems []string
	for _, x := range tr {
		all = append(all, x.ID)
		if len(x.Stems) > 0 {
			stems = append(stems, x.Stems[0].ID)
		}
	}
	cl := apitest.New(t, d.LocalHandler())
	r := cl.Do(apitest.Request{Method: "POST", Path: mePlaylists, Header: map[string]string{"Authorization": "Bearer " + tok},
		JSON: map[string]any{"name": "Free finds", "tracks": all, "stems": stems}})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	m := r.Map(t)
	want := []string{tr[1].ID, tr[2].ID, tr[3].ID}
	for _, x := range tr[1:4] {
		if len(x.Stems) > 0 {
			want = append(want, x.Stems[0].ID)
		}
	}
	if got := anyStrings(m["skipped"]); !slices.Equal(got, want) {
		t.Errorf("skipped %v, want %v", got, want)
	}
	if n, kept := m["playlist"].(map[string]any)["tracks"], len(all)+len(stems)-len(want); n != float64(kept) {
		t.Errorf("items %v, want %d", n, kept)
	}
}
