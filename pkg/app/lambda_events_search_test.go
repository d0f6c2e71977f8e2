package app

import (
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/search/searchtest"
)

// The api-search events run on the demo catalog's metadata; the sample track id
// is the first track visible to every plan (the by-id seed).
func init() {
	var seed *catalog.Track
	lambdaEvents["api-search"] = httpEvents{
		group: httpapi.GroupSearch,
		setup: func(t *testing.T, d *Deps) map[string]string {
			cat := catalogtest.Publish(t, d.Blob, searchtest.DemoContents(t, demo.DefaultTracks, demo.DefaultSeed, true))
			for _, tr := range cat.Tracks() {
				if catalog.Visible("", tr) {
					seed = tr
					break
				}
			}
			return map[string]string{"TRACK_ID": seed.ID}
		},
		cases: []eventCase{
			{"by-text.json", 200, func(t *testing.T, b map[string]any) {
				rs := results(b)
				dym, _ := b["did_you_mean"].(map[string]any)
				if len(rs) != 0 || dym["genre"] != "Rock" {
					t.Errorf("genre=rok: %d results, did_you_mean %v", len(rs), b["did_you_mean"])
				}
			}},
			{"by-prompt-highlights.json", 200, func(t *testing.T, b map[string]any) {
				rs := results(b)
				if len(rs) != 3 || rs[0]["genre_name"] != "Cinematic" || len(rs[0]["highlights"].([]any)) == 0 {
					t.Errorf("by-prompt: %v", rs)
				}
				if next, _ := b["next"].(string); !strings.HasPrefix(next, "https://abc123.execute-api.eu-west-1.amazonaws.com/") {
					t.Errorf("next %q", next)
				}
			}},
			{"by-prompt-bad-time-limit.json", 400, func(t *testing.T, b map[string]any) {
				if b["time_limit"] == nil {
					t.Errorf("body %v", b)
				}
			}},
			{"by-id-missing-track.json", 404, func(t *testing.T, b map[string]any) {
				if b["detail"] == nil {
					t.Errorf("body %v", b)
				}
			}},
			{"by-id.json", 200, func(t *testing.T, b map[string]any) {
				rs := results(b)
				if len(rs) != 5 {
					t.Errorf("by-id: %d results", len(rs))
				}
				for _, r := range rs {
					if r["id"] == seed.ID || (r["vocals"] != "" && r["vocals"] != nil) { // null: vocals unknown, not known to be sung
						t.Errorf("by-id with suppress_vocals: %v", r)
					}
				}
			}},
			{"filters.json", 200, func(t *testing.T, b map[string]any) {
				if b["genres"] == nil || b["bpm"] == nil {
					t.Errorf("body %v", b)
				}
			}},
		},
	}
}

// results is a search response's results.
func results(b map[string]any) []map[string]any {
	var out []map[string]any
	rs, _ := b["results"].([]any)
	for _, r := range rs {
		out = append(out, r.(map[string]any))
	}
	return out
}
