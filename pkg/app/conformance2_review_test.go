package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/soundtrack/render"
)

// Review of the second conformance audit: what its fixes missed.

// TestRepeatedIdenticalParametersEverywhere: the audit's rule is "the same
// value twice is accepted, different values are a 400 naming the
// parameter". The download GET's include_stems and confirm_personal_use
// refused the same value twice as "Must be true or false." (and named no
// other bad field), and `format=json` twice was a 404 although json is
// the one format.
func TestRepeatedIdenticalParametersEverywhere(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanEnterprise, true, true)
	tr := f.tracks[0].ID
	if r := f.get(tr, key, "type=track&include_stems=false&include_stems=false&confirm_personal_use=true&confirm_personal_use=true"); r.Status != 302 {
		t.Errorf("the same booleans twice: %d %s, want 302", r.Status, r.Body)
	}
	r := f.get(tr, key, "type=track&include_stems=true&include_stems=false")
	if msgs, _ := r.Map(t)["include_stems"].([]any); r.Status != 400 || len(msgs) != 1 || !strings.Contains(msgs[0].(string), "different values") {
		t.Errorf("include_stems true and false: %d %s, want 400 {include_stems: [repeated]}", r.Status, r.Body)
	}
	r = f.get(tr, key, "include_stems=maybe")
	if m := r.Map(t); r.Status != 400 || m["include_stems"] == nil || m["type"] == nil {
		t.Errorf("a bad boolean and no type: %d %s, want 400 naming both", r.Status, r.Body)
	}
	if r := f.get(tr, key, "type=track&format=json&format=json"); r.Status != 302 {
		t.Errorf("format=json twice: %d %s, want 302", r.Status, r.Body)
	}
	if r := f.get(tr, key, "type=track&format=json&format=xml"); r.Status != 404 {
		t.Errorf("format=json and xml: %d %s, want 404", r.Status, r.Body)
	}
}

// TestLicenseUserIDWithACommaAnswersAlikeOnBothPaths: API Gateway (payload
// 2.0) joins repeated headers with commas and aws-lambda-go-api-proxy
// splits every header but a few singletons on commas, so on AWS an
// X-User-ID of "acme,42" arrives as two values and was refused as "Send
// exactly one X-User-ID header", while the devserver issued a license to
// "acme,42". Both now refuse a comma with the same message, as the
// allowlist's X-User-ID does.
func TestLicenseUserIDWithACommaAnswersAlikeOnBothPaths(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	body := `{"track_id":"` + e.tracks[0].ID + `"}`
	detail := func(raw []byte) string {
		var b struct {
			Error struct {
				Code    string
				Details map[string][]string
			}
		}
		_ = json.Unmarshal(raw, &b)
		return b.Error.Code + " " + strings.Join(b.Error.Details["X-User-ID"], "; ")
	}
	local, _ := e.generate(t, key, map[string]string{"X-User-ID": "acme,42"}, body)
	api := e.d.API()
	api.PublicBaseURL = ""
	handler := lambdarun.NewHTTPHandler(api.Handler(httpapi.GroupLicenses))
	resp, err := handler(context.Background(), v2Event("POST", "/api/v1/licenses/generate", "",
		map[string]string{"authorization": "Bearer " + key, "x-user-id": "acme,42", "content-type": "application/json"}, body))
	if err != nil {
		t.Fatal(err)
	}
	if local.Status != 400 || resp.StatusCode != 400 || detail(local.Body) != detail([]byte(resp.Body)) ||
		!strings.Contains(detail(local.Body), "comma") {
		t.Errorf("X-User-ID acme,42: devserver %d %s; Lambda %d %s; want the same 400 naming the comma",
			local.Status, local.Body, resp.StatusCode, resp.Body)
	}
	if r, _ := e.generate(t, key, map[string]string{"X-User-ID": "acme 42"}, body); r.Status != 200 {
		t.Errorf("X-User-ID without a comma: %d %s", r.Status, r.Body)
	}
}

// TestRepeatsThroughAPIGatewayV2: what the audit's fixes see on AWS, where
// API Gateway (payload 2.0) passes the query as rawQueryString (repeats
// kept, which the adapter prefers to the comma-joined
// queryStringParameters) and joins two Authorization headers into one
// "Bearer a,Bearer b" value.
func TestRepeatsThroughAPIGatewayV2(t *testing.T) {
	d, creds := newTestDeps(t)
	publishTestCatalog(t, d)
	api := d.API()
	api.PublicBaseURL = ""
	search := lambdarun.NewHTTPHandler(api.Handler(httpapi.GroupSearch))
	allow := lambdarun.NewHTTPHandler(api.Handler(httpapi.GroupAllowlist))
	for _, c := range []struct {
		handler lambdarun.HTTPHandler
		path    string
		query   string
		headers map[string]string
		status  int
		field   string
	}{
		{search, "/api/v4/search/ai/by-text/", "text=rock&text=jazz", nil, 400, "text"},
		{search, "/api/v4/search/ai/by-text/", "text=rock&text=rock&limit=2&limit=2", nil, 200, ""},
		{allow, "/api/v4/allowlist/channels/", "", map[string]string{"authorization": "Bearer " + creds.Partner.Key}, 200, ""},
		{allow, "/api/v4/allowlist/channels/", "", map[string]string{"authorization": "Bearer " + creds.Partner.Key + ",Bearer " + creds.Partner.Key}, 401, ""},
	} {
		resp, err := c.handler(context.Background(), v2Event("GET", c.path, c.query, c.headers, ""))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(resp.Body), &m)
		if resp.StatusCode != c.status || c.field != "" && m[c.field] == nil {
			t.Errorf("%s?%s %v: %d %s, want %d %s", c.path, c.query, c.headers, resp.StatusCode, resp.Body, c.status, c.field)
		}
	}
}

// v2Event is the API Gateway HTTP API (payload 2.0) event of a request.
func v2Event(method, path, query string, headers map[string]string, body string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{"host": "abc123.execute-api.eu-west-1.amazonaws.com"}
	for k, v := range headers {
		h[k] = v
	}
	return events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: path, RawQueryString: query, Headers: h, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			DomainName: "abc123.execute-api.eu-west-1.amazonaws.com", Stage: "$default",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.7"},
		},
	}
}

// TestEveryCreatedSaysWhere: the audit gave Location to the 201s of
// recognition submit and soundtrack upload; the other 201s (allowlist
// add, collaborator add, the two upload-url) still had none, which reads
// as "created at the request URI" (RFC 9110 §15.3.2).
func TestEveryCreatedSaysWhere(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Shared")
	r, m := e.do(e.partnerKey, "POST", channelsPath, map[string]any{"provider": "youtube", "channel_id": "UC_x5XG1OV2P6uZZ5FSM9Ttw", "name": "Dev"})
	if loc := r.Header.Get("Location"); r.Status != 201 || loc != channelsPath+m["id"].(string)+"/" {
		t.Errorf("allowlist add: %d Location %q %s", r.Status, loc, r.Body)
	} else if d, _ := e.do(e.partnerKey, "DELETE", loc, nil); d.Status != 204 {
		t.Errorf("DELETE Location: %d %s", d.Status, d.Body)
	}
	r, m = e.do(e.owner, "POST", mePlaylists+"shared/collaborators/", map[string]any{"user_id": e.collabID, "permission": "can_edit"})
	if loc := r.Header.Get("Location"); r.Status != 201 || loc != mePlaylists+"shared/collaborators/"+m["id"].(string)+"/" {
		t.Errorf("collaborator add: %d Location %q %s", r.Status, loc, r.Body)
	} else if d, _ := e.do(e.owner, "DELETE", loc, nil); d.Status/100 != 2 {
		t.Errorf("DELETE Location: %d %s", d.Status, d.Body)
	}
	for _, c := range []struct{ token, path string }{
		{e.partnerKey, "/api/v4/video-recognition/upload-url/"},
		{e.owner, "/api/v4/soundtrack/video/upload-url/"},
	} {
		r, m := e.do(c.token, "POST", c.path, map[string]any{"filename": "clip.mp4"})
		if r.Status != 201 || r.Header.Get("Location") == "" || r.Header.Get("Location") != m["upload_url"] {
			t.Errorf("%s: %d Location %q %s, want the upload_url", c.path, r.Status, r.Header.Get("Location"), r.Body)
		}
	}
}

// TestRenderLinkIsNotGuessable: the render's link is served without
// credentials, so it must not be computable from what is not secret. Its
// key is a hash of the video id, the track and the volumes (defaults 1, 1,
// 0): anyone who knew a public video's id could fetch a render someone
// else made, without an account, a plan that covers the track, or (for a
// private video) being its creator. The link now carries a token of the
// build's random id; the key alone, or with another token, is a 404.
func TestRenderLinkIsNotGuessable(t *testing.T) {
	f := newRenderFixture(t)
	body := map[string]any{"track_id": f.tracks[0].ID}
	if r := f.post(f.videoID, "Bearer "+f.user, body); r.Status != 202 {
		t.Fatalf("render: %d %s", r.Status, r.Body)
	}
	r := f.await(t, f.videoID, body)
	if r.Status != 200 {
		t.Fatalf("built: %d %s", r.Status, r.Body)
	}
	link := r.Map(t)["url"].(string)
	if resp, _ := f.fetch(t, link); resp.StatusCode != 302 {
		t.Fatalf("the answer's link: %d", resp.StatusCode)
	}
	guessed := f.d.Config.PublicBaseURL + "/api/v4/soundtrack/video/" + f.videoID + "/download/" +
		render.Key(f.videoID, render.Params{TrackID: f.tracks[0].ID, VideoVolume: 1, TrackVolume: 1}) + "/"
	if !strings.HasPrefix(link, strings.TrimSuffix(guessed, "/")) {
		t.Fatalf("link %q does not start with the key %q", link, guessed)
	}
	otherToken := strings.TrimSuffix(guessed, "/") + strings.Repeat("0", 32) + "/"
	for _, u := range []string{guessed, otherToken} {
		if resp, _ := f.fetch(t, u); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", u, resp.StatusCode)
		}
	}
}

// TestPlaylistUpdateRefusesNullInAnyCase: the JSON decoder matches field
// names in any case ("Description" sets description), but the audit's
// null check looked for the exact lower-case key, so {"Description": null}
// still answered 200 and kept the old value.
func TestPlaylistUpdateRefusesNullInAnyCase(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Cased")
	e.do(e.owner, "PATCH", mePlaylists+"cased/", map[string]any{"description": "kept"})
	if r, m := e.do(e.owner, "PATCH", mePlaylists+"cased/", map[string]any{"Description": nil}); r.Status != 400 || m["description"] == nil {
		t.Errorf(`{"Description": null}: %d %s, want 400 {description}`, r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "PATCH", mePlaylists+"cased/", map[string]any{"Description": "new"}); r.Status != 200 || m["description"] != "new" {
		t.Errorf(`{"Description": "new"}: %d %s`, r.Status, r.Body)
	}
}

// TestAllowlistUserIDRefusesControlCharacters: the audit refused control
// characters in stored names; the allowlist's X-User-ID (stored in the
// channel's keys) still took a tab or a C1 control, which the license
// API's X-User-ID refuses ("only printable characters").
func TestAllowlistUserIDRefusesControlCharacters(t *testing.T) {
	e := newPlaylistEnv(t)
	for _, user := range []string{"a\tb", "a\u0085b"} {
		r := e.c.Do(apitest.Request{Method: "GET", Path: channelsPath,
			Header: map[string]string{"Authorization": "Bearer " + e.partnerKey, "X-User-ID": user}})
		if r.Status != 400 || !strings.Contains(string(r.Body), "printable") {
			t.Errorf("X-User-ID %q: %d %s, want 400", user, r.Status, r.Body)
		}
	}
	r := e.c.Do(apitest.Request{Method: "GET", Path: channelsPath,
		Header: map[string]string{"Authorization": "Bearer " + e.partnerKey, "X-User-ID": "Zoë 42"}})
	if r.Status != 200 {
		t.Errorf("X-User-ID Zoë 42: %d %s", r.Status, r.Body)
	}
}
