package app

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
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

// httpEvents are the sample API Gateway events of one HTTP function.
type httpEvents struct {
	group httpapi.Group
	// setup, when set, prepares the deps (e.g. publishes a catalog) and
	// returns the values that replace the events' sample values (sampleValues).
	setup func(t *testing.T, d *Deps) map[string]string
	cases []eventCase
}

// lambdaEvents lists every sample event per HTTP function; the test fails
// when an event file exists that no case covers. Each group's file adds
// its own entry from an init function.
var lambdaEvents = map[string]httpEvents{
	"api-allowlist": {group: httpapi.GroupAllowlist, cases: []eventCase{
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

// otherEvents runs the sample events of a function that is not behind
// API Gateway (SQS, S3, Step Functions tasks): the function's directory
// under events/ is passed whole, and the runner must cover every file in it.
var otherEvents = map[string]func(t *testing.T, dir string){}

func TestLambdaSampleEvents(t *testing.T) {
	root := filepath.Join("..", "..", "events")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { eventRecorder = nil }()
	for _, dir := range dirs {
		fn := dir.Name()
		// Each function's handlers record what they do (permissions_test.go).
		rec := &recorder{seen: map[access]bool{}}
		eventRecorder = rec
		if run, ok := otherEvents[fn]; ok {
			t.Run(fn, func(t *testing.T) {
				run(t, filepath.Join(root, fn))
				t.Run("permissions", func(t *testing.T) { checkPermissions(t, fn, rec) })
			})
			continue
		}
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
			vars := map[string]string{"PARTNER_KEY": creds.Partner.Key}
			if spec.setup != nil {
				maps.Copy(vars, spec.setup(t, d))
			}
			api := d.API()
			api.PublicBaseURL = "" // as wired on AWS: links on API Gateway's domain name
			handler := lambdarun.NewHTTPHandler(api.Handler(spec.group))
			for _, c := range spec.cases {
				raw, err := os.ReadFile(filepath.Join(root, fn, c.file))
				if err != nil {
					t.Fatal(err)
				}
				for name, v := range vars {
					raw = withSample(raw, name, v)
				}
				var ev events.APIGatewayV2HTTPRequest
				if err := json.Unmarshal(raw, &ev); err != nil {
					t.Fatalf("%s: %v", c.file, err)
				}
				resp, err := handler(eventContext(), ev)
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
			t.Run("permissions", func(t *testing.T) { checkPermissions(t, fn, rec) })
		})
	}
}
