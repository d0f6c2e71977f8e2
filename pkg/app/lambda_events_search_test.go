package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/search/searchtest"
)

// The api-search events need a published catalog, which the shared HTTP
// event runner does not set up, so they run here: the demo catalog's
// metadata is published, then each event goes through the real API
// Gateway v2 handler of the search group.
func init() {
	otherEvents["api-search"] = runSearchEvents
}

func runSearchEvents(t *testing.T, dir string) {
	d, creds := newTestDeps(t)
	cat := catalogtest.Publish(t, d.Blob, searchtest.DemoContents(t, demo.DefaultTracks, demo.DefaultSeed, true))
	var seed *catalog.Track
	for _, tr := range cat.Tracks() {
		if catalog.Visible("", tr) {
			seed = tr
			break
		}
	}
	results := func(b map[string]any) []map[string]any {
		var out []map[string]any
		rs, _ := b["results"].([]any)
		for _, r := range rs {
			out = append(out, r.(map[string]any))
		}
		return out
	}
	cases := map[string]struct {
		status int
		check  func(t *testing.T, b map[string]any)
	}{
		"by-text.json": {200, func(t *testing.T, b map[string]any) {
			rs := results(b)
			dym, _ := b["did_you_mean"].(map[string]any)
			if len(rs) != 0 || dym["genre"] != "Rock" {
				t.Errorf("genre=rok: %d results, did_you_mean %v", len(rs), b["did_you_mean"])
			}
		}},
		"by-prompt-highlights.json": {200, func(t *testing.T, b map[string]any) {
			rs := results(b)
			if len(rs) != 3 || rs[0]["genre_name"] != "Cinematic" || len(rs[0]["highlights"].([]any)) == 0 {
				t.Errorf("by-prompt: %v", rs)
			}
			if next, _ := b["next"].(string); !strings.HasPrefix(next, "https://abc123.execute-api.eu-west-1.amazonaws.com/") {
				t.Errorf("next %q", next)
			}
		}},
		"by-prompt-bad-time-limit.json": {400, func(t *testing.T, b map[string]any) {
			if b["time_limit"] == nil {
				t.Errorf("body %v", b)
			}
		}},
		"by-id-missing-track.json": {404, func(t *testing.T, b map[string]any) {
			if b["detail"] == nil {
				t.Errorf("body %v", b)
			}
		}},
		"by-id.json": {200, func(t *testing.T, b map[string]any) {
			rs := results(b)
			if len(rs) != 5 {
				t.Errorf("by-id: %d results", len(rs))
			}
			for _, r := range rs {
				if r["id"] == seed.ID || r["vocals"] != "" {
					t.Errorf("by-id with suppress_vocals: %v", r)
				}
			}
		}},
		"filters.json": {200, func(t *testing.T, b map[string]any) {
			if b["genres"] == nil || b["bpm"] == nil {
				t.Errorf("body %v", b)
			}
		}},
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != len(cases) {
		t.Errorf("%d event files, %d cases", len(files), len(cases))
	}
	handler := lambdarun.NewHTTPHandler(d.API().Handler(httpapi.GroupSearch))
	for _, f := range files {
		c, ok := cases[filepath.Base(f)]
		if !ok {
			t.Errorf("%s has no case", f)
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(raw), "{{PARTNER_KEY}}", creds.Partner.Key)
		s = strings.ReplaceAll(s, "{{TRACK_ID}}", seed.ID)
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal([]byte(s), &ev); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		resp, err := handler(context.Background(), ev)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d %s; want %d", f, resp.StatusCode, resp.Body, c.status)
			continue
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
			t.Fatalf("%s: body %q: %v", f, resp.Body, err)
		}
		c.check(t, body)
	}
}
