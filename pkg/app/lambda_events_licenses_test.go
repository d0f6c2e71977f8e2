package app

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/licensing"
)

func init() {
	lambdaEvents["api-licenses"] = httpEvents{
		group: httpapi.GroupLicenses,
		setup: func(t *testing.T, d *Deps) map[string]string {
			track := publishTestCatalog(t, d).Tracks()[0].ID
			creds, err := EnsureDemo(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			c, err := d.Identity.GetClient(context.Background(), creds.Partner.ClientID)
			if err != nil {
				t.Fatal(err)
			}
			res, err := d.Licensing.Generate(context.Background(), c, licensing.Input{UserID: "setup-user", TrackID: track})
			if err != nil {
				t.Fatal(err)
			}
			return map[string]string{"TRACK_ID": track, "LICENSE_ID": res.License.ID}
		},
		cases: []eventCase{
			{"generate.json", 200, func(t *testing.T, b map[string]any) {
				l, _ := b["license"].(map[string]any)
				if b["success"] != true || l["user_id"] != "creator-42" || l["project_name"] != "Holiday vlog" || l["license_url"] != l["license_id"] {
					t.Errorf("generated %v", b)
				}
			}},
			{"generate-invalid-body.json", 400, func(t *testing.T, b map[string]any) {
				e, _ := b["error"].(map[string]any)
				details, _ := e["details"].(map[string]any)
				if e["code"] != "validation_error" || details["track_id"] == nil || details["license_type"] == nil {
					t.Errorf("body %v", b)
				}
			}},
			{"generate-missing-user.json", 400, func(t *testing.T, b map[string]any) {
				if e, _ := b["error"].(map[string]any); e["code"] != "missing_user_id" {
					t.Errorf("body %v", b)
				}
			}},
			{"generate-without-token.json", 401, func(t *testing.T, b map[string]any) {
				if e, _ := b["error"].(map[string]any); e["code"] != "missing_token" {
					t.Errorf("body %v", b)
				}
			}},
			{"lookup.json", 200, func(t *testing.T, b map[string]any) {
				if l, _ := b["license"].(map[string]any); l["user_id"] != "setup-user" {
					t.Errorf("looked up %v", b)
				}
			}},
			{"list-for-user.json", 200, func(t *testing.T, b map[string]any) {
				if b["count"] != float64(1) || b["next"] != nil {
					t.Errorf("listed %v", b)
				}
			}},
			{"page-json.json", 200, func(t *testing.T, b map[string]any) {
				if b["licensee"] != "setup-user" || b["issued_by"] != "Demo Partner" ||
					b["page_url"] != "https://abc123.execute-api.eu-west-1.amazonaws.com/v/"+b["license_id"].(string) {
					t.Errorf("page %v", b)
				}
			}},
			{"page-unknown.json", 404, func(t *testing.T, b map[string]any) {
				if b["error_code"] != "license_not_found" {
					t.Errorf("body %v", b)
				}
			}},
		},
	}
}

// TestLicensePageThroughLambda serves the HTML page through the API
// Gateway adapter (the sample-event runner only takes JSON bodies): the
// browser must get text, with the page's headers.
func TestLicensePageThroughLambda(t *testing.T) {
	d, creds := newTestDeps(t)
	track := publishTestCatalog(t, d).Tracks()[0].ID
	c, err := d.Identity.GetClient(context.Background(), creds.Partner.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Licensing.Generate(context.Background(), c, licensing.Input{UserID: "creator-7", TrackID: track})
	if err != nil {
		t.Fatal(err)
	}
	api := d.API()
	api.PublicBaseURL = "" // as wired on AWS: pages on API Gateway's domain name
	handler := lambdarun.NewHTTPHandler(api.Handler(httpapi.GroupLicenses))
	path := "/v/" + res.License.ID
	resp, err := handler(context.Background(), events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "GET /v/{license_id}", RawPath: path,
		Headers: map[string]string{"host": "abc123.execute-api.eu-west-1.amazonaws.com"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			DomainName: "abc123.execute-api.eu-west-1.amazonaws.com", Stage: "$default",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.7"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.IsBase64Encoded || !strings.HasPrefix(resp.Headers["Content-Type"], "text/html") ||
		resp.Headers["Cache-Control"] != "public, max-age=31536000, immutable" ||
		!strings.Contains(resp.Body, "creator-7") || !strings.Contains(resp.Body, "https://abc123.execute-api.eu-west-1.amazonaws.com/v/"+res.License.ID) {
		t.Errorf("page through Lambda: %d base64=%v %v %.200s", resp.StatusCode, resp.IsBase64Encoded, resp.Headers, resp.Body)
	}
}
