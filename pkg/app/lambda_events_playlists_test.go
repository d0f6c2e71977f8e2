package app

import (
	"context"
	"testing"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/identity"
)

func init() {
	lambdaEvents["api-playlists"] = httpEvents{
		group: httpapi.GroupPlaylists,
		setup: func(t *testing.T, d *Deps) map[string]string {
			tracks := publishTestCatalog(t, d).Tracks()
			cl, _, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "Partner", Plan: identity.PlanSubscriber})
			if err != nil {
				t.Fatal(err)
			}
			_, tok, err := d.Identity.CreateUser(context.Background(), cl.ID, "driver", "Driver")
			if err != nil {
				t.Fatal(err)
			}
			return map[string]string{"USER_TOKEN": tok, "TRACK_0": tracks[0].ID, "TRACK_2": tracks[2].ID,
				"TRACK_ENTERPRISE": tracks[3].ID}
		},
		// In order: each event acts on what the ones before it left.
		cases: []eventCase{
			{"create.json", 201, func(t *testing.T, b map[string]any) {
				p := b["playlist"].(map[string]any)
				if p["slug"] != "road-trip" || p["tracks"] != 1.0 || len(b["skipped"].([]any)) != 1 || len(b["duplicated"].([]any)) != 1 {
					t.Errorf("created %v", b)
				}
			}},
			{"create-without-name.json", 400, func(t *testing.T, b map[string]any) {
				if b["name"] == nil {
					t.Errorf("body %v", b)
				}
			}},
			{"add-tracks.json", 200, func(t *testing.T, b map[string]any) {
				if b["added"] != 1.0 || len(b["duplicated"].([]any)) != 1 {
					t.Errorf("added %v", b)
				}
			}},
			{"reorder.json", 200, func(t *testing.T, b map[string]any) {
				if b["total_items"] != 2.0 {
					t.Errorf("reordered %v", b)
				}
			}},
			{"retrieve.json", 200, func(t *testing.T, b map[string]any) {
				if b["tracks"] != 2.0 || b["permission"] != "owner" {
					t.Errorf("retrieved %v", b)
				}
			}},
			{"list.json", 200, func(t *testing.T, b map[string]any) {
				if b["count"] != 1.0 {
					t.Errorf("listed %v", b)
				}
			}},
			{"list-tracks.json", 200, func(t *testing.T, b map[string]any) {
				res := b["results"].([]any)
				if len(res) != 2 || res[0].(map[string]any)["name"] != "Track 2" {
					t.Errorf("tracks %v", b)
				}
			}},
			{"list-without-token.json", 401, nil},
			{"retrieve-with-partner-key.json", 403, nil},
			{"delete.json", 204, nil},
			{"retrieve-deleted.json", 404, nil},
		},
	}
}
