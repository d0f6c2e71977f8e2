package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
)

// eventCase is what one sample event must produce when fed, in order,
// through the function's real Lambda handler.
type eventCase struct {
	file   string
	status int
	check  func(t *testing.T, body map[string]any)
}

// lambdaEvents lists every sample event per function; the test fails when
// an event file exists that no case covers.
var lambdaEvents = map[string]struct {
	group httpapi.Group
	cases []eventCase
}{
	"api-allowlist": {httpapi.GroupAllowlist, []eventCase{
		{"add-by-url.json", 201, func(t *testing.T, b map[string]any) {
			if b["provider"] != "youtube" || b["channel_id"] != "@GoogleDevelopers" {
				t.Errorf("added %v", b)
			}
		}},
		{"list-for-end-user.json", 200, func(t *testing.T, b map[string]any) {
			next, _ := b["next"].(string)
			if b["count"] != float64(1) || next != "" {
				t.Errorf("listed %v", b)
			}
		}},
		{"list-without-key.json", 401, nil},
		{"add-invalid-provider.json", 400, func(t *testing.T, b map[string]any) {
			if b["provider"] == nil {
				t.Errorf("body %v", b)
			}
		}},
		{"remove-missing.json", 404, nil},
	}},
}

func TestLambdaSampleEvents(t *testing.T) {
	root := filepath.Join("..", "..", "events")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		fn := dir.Name()
		spec, ok := lambdaEvents[fn]
		if !ok {
			t.Errorf("events/%s has no test cases", fn)
			continue
		}
		t.Run(fn, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(root, fn, "*.json"))
			if len(files) != len(spec.cases) {
				t.Errorf("%d event files, %d cases", len(files), len(spec.cases))
			}
			d, creds := newTestDeps(t)
			handler := lambdarun.NewHTTPHandler(d.API().Handler(spec.group))
			for _, c := range spec.cases {
				raw, err := os.ReadFile(filepath.Join(root, fn, c.file))
				if err != nil {
					t.Fatal(err)
				}
				raw = []byte(strings.ReplaceAll(string(raw), "{{PARTNER_KEY}}", creds.Partner.Key))
				var ev events.APIGatewayV2HTTPRequest
				if err := json.Unmarshal(raw, &ev); err != nil {
					t.Fatalf("%s: %v", c.file, err)
				}
				resp, err := handler(context.Background(), ev)
				if err != nil {
					t.Fatalf("%s: %v", c.file, err)
				}
				if resp.StatusCode != c.status {
					t.Errorf("%s: status %d %s; want %d", c.file, resp.StatusCode, resp.Body, c.status)
					continue
				}
				if ct := resp.Headers["Content-Type"]; resp.Body != "" && ct != "application/json" {
					t.Errorf("%s: content type %q", c.file, ct)
				}
				if c.check != nil {
					var body map[string]any
					if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
						t.Fatalf("%s: body %q: %v", c.file, resp.Body, err)
					}
					c.check(t, body)
				}
			}
		})
	}
}
