package app

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// Deviations from interface.md found by the conformance audit of the
// whole API (each test failed on the code before its fix).

// licenseErrorOf checks that r is the license error shape of §7.1 with
// code and a message, and returns the message.
func licenseErrorOf(t *testing.T, what string, r *apitest.Response, status int, code string) string {
	t.Helper()
	m := r.Map(t)
	e, _ := m["error"].(map[string]any)
	if r.Status != status || m["success"] != false || e == nil || e["code"] != code {
		t.Errorf("%s: %d %s; want %d {success: false, error: {code: %s}}", what, r.Status, r.Body, status, code)
		return ""
	}
	msg, _ := e["message"].(string)
	if msg == "" {
		t.Errorf("%s: error without a message: %s", what, r.Body)
	}
	return msg
}

// TestLicenseAPIAnswersEveryErrorInItsShape: §7.1 gives the license
// endpoint its own error shape, so a wrong method, a path with a trailing
// slash, an unknown v1 path or a reserved `format` there answer in it
// too (they were {detail}), GET of the generate path is a wrong method
// rather than a lookup of license "generate", and a bad page parameter
// of the listing carries a message (it was "").
func TestLicenseAPIAnswersEveryErrorInItsShape(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	auth := map[string]string{"Authorization": "Bearer " + key, "X-User-ID": "creator-1"}
	for _, c := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", generatePath, 405, "method_not_allowed", "POST"},
		{"DELETE", generatePath, 405, "method_not_allowed", "POST"},
		{"POST", licensesPath, 405, "method_not_allowed", "GET, HEAD"},
		{"POST", generatePath + "/", 404, "not_found", ""},
		{"GET", "/api/v1/nothing-here", 404, "not_found", ""},
		{"GET", licensesPath + "?format=xml", 404, "not_found", ""},
		{"GET", licensesPath + "?limit=0", 400, "validation_error", ""},
		{"GET", licensesPath + "?offset=x", 400, "validation_error", ""},
	} {
		what := c.method + " " + c.path
		r := e.c.Do(apitest.Request{Method: c.method, Path: c.path, Header: auth,
			Body: []byte(`{"track_id": "` + e.tracks[0].ID + `"}`)})
		msg := licenseErrorOf(t, what, r, c.status, c.code)
		if got := r.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s: Allow %q; want %q", what, got, c.allow)
		}
		if c.path == generatePath+"/" && !strings.Contains(msg, "Did you mean "+generatePath+" ") {
			t.Errorf("%s: %q names no path", what, msg)
		}
	}
	// Nothing above issued a license.
	if n := e.count(t, key); n != 0 {
		t.Errorf("%v licenses after refused requests", n)
	}
	// v4 paths keep {detail}.
	r := e.c.Do(apitest.Request{Method: "DELETE", Path: "/api/v4/search/ai/by-text/"})
	if m := r.Map(t); r.Status != 405 || m["detail"] == nil {
		t.Errorf("v4 405: %d %s", r.Status, r.Body)
	}
}

// TestLicenseIDsAreCaseInsensitive: a license id is 32 hex characters,
// and hex does not depend on case; an id written in capitals (as some
// clients print hex) names the same license in the lookup and on the
// public page (it was 404).
func TestLicenseIDsAreCaseInsensitive(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	e.clock.Advance(time.Second)
	r, g := e.generate(t, key, nil, map[string]any{"track_id": e.tracks[0].ID})
	if r.Status != 200 {
		t.Fatalf("generate: %d %s", r.Status, r.Body)
	}
	upper := strings.ToUpper(g.License.LicenseID)
	r, m := e.get(t, key, licensesPath+upper)
	if l, _ := m["license"].(map[string]any); r.Status != 200 || l["license_id"] != g.License.LicenseID {
		t.Errorf("lookup %s: %d %s", upper, r.Status, r.Body)
	}
	if r := e.c.Do(apitest.Request{Method: "GET", Path: "/v/" + upper + ".json"}); r.Status != 200 {
		t.Errorf("page %s: %d %s", upper, r.Status, r.Body)
	}
}

// TestBodiesThatAreNotUTF8AreRefused: a playlist created or renamed with
// bytes that are not UTF-8 (a JSON body, or a multipart field, which can
// carry any bytes) was stored with U+FFFD in their place; it is a 400
// naming the problem and nothing is stored. The license body alike.
func TestBodiesThatAreNotUTF8AreRefused(t *testing.T) {
	e := newPlaylistEnv(t)
	as := func(ct string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + e.owner, "Content-Type": ct}
	}
	bad := []byte("{\"name\": \"Mix \xff\xfe\"}")
	if r := e.c.Do(apitest.Request{Method: "POST", Path: mePlaylists, Header: as("application/json"), Body: bad}); r.Status != 400 ||
		!strings.Contains(string(r.Body), "UTF-8") {
		t.Errorf("create: %d %s", r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "GET", mePlaylists, nil); r.Status != 200 || m["count"] != 0.0 {
		t.Errorf("a refused create left %s", r.Body)
	}
	slug := e.create(e.owner, "Valid")["slug"].(string)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("name", "Mix \xff")
	_ = mw.Close()
	r := e.c.Do(apitest.Request{Method: "PATCH", Path: mePlaylists + slug + "/", Header: as(mw.FormDataContentType()), Body: form.Bytes()})
	if m := r.Map(t); r.Status != 400 || m["name"] == nil {
		t.Errorf("multipart rename: %d %s", r.Status, r.Body)
	}
	if _, got := e.do(e.owner, "GET", mePlaylists+slug+"/", nil); got["name"] != "Valid" {
		t.Errorf("a refused rename changed the name to %q", got["name"])
	}

	le := newLicenseEnv(t)
	_, key := le.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	lr, g := le.generate(t, key, nil, "{\"track_id\": \""+le.tracks[0].ID+"\", \"project_name\": \"Promo \xff\"}")
	if lr.Status != 400 || g.Error == nil || g.Error.Code != "validation_error" || !strings.Contains(string(g.Error.Details), "UTF-8") {
		t.Errorf("license: %d %s", lr.Status, lr.Body)
	}
	if n := le.count(t, key); n != 0 {
		t.Errorf("%v licenses after a refused generate", n)
	}
}

// TestUploadsAuthenticateBeforeTheSizeCheck: recognition submit and
// soundtrack create answered an oversize upload's 400 {"file": [...]} to
// callers without valid credentials; §7.2 gives them 401 (no or a bad
// key) and 403 (a token without compliance_check), as every other
// endpoint answers before looking at the body. The body is still unread.
func TestUploadsAuthenticateBeforeTheSizeCheck(t *testing.T) {
	d, creds := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	for _, tc := range []struct {
		path, token string
		status      int
	}{
		{recognitionPath, "", 401},
		{recognitionPath, "mcat_not-a-key", 401},
		{recognitionPath, creds.User.Token, 403},
		{soundtrackPath, "", 401},
		{soundtrackPath, "mcat_not-a-key", 401},
		{recognitionPath, creds.Partner.Key, 400}, // authenticated: the size answer
	} {
		head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.mp4\"\r\n\r\n"
		var read atomic.Int64
		req, _ := http.NewRequest("POST", c.Server.URL+tc.path, &countingBody{limit: 150_000_000, read: &read, head: []byte(head)})
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		req.ContentLength = 150_000_000
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.status != 400) != strings.Contains(string(b), `"detail"`) {
			t.Errorf("%s as %q: %d %s; want %d", tc.path, tc.token, resp.StatusCode, b, tc.status)
		}
		if n := read.Load(); n > 10_000_000 {
			t.Errorf("%s: %d bytes read", tc.path, n)
		}
	}
}

// TestLiteralPathsAnswerWrongMethods: a GET of a POST-only literal path
// that a wildcard GET route also matches was served by that route – a
// poll of job "upload-url", a lookup of video "upload-url" (404) – where
// the client is owed 405 with Allow: POST.
func TestLiteralPathsAnswerWrongMethods(t *testing.T) {
	d, creds := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	for _, tc := range []struct{ method, path, token, allow string }{
		{"GET", "/api/v4/video-recognition/upload-url/", creds.Partner.Key, "POST"},
		{"HEAD", "/api/v4/video-recognition/upload-url/", creds.Partner.Key, "POST"},
		{"GET", soundtrackPath + "upload-url/", creds.User.Token, "POST"},
		{"DELETE", "/api/v4/allowlist/channels/", creds.Partner.Key, "GET, HEAD, POST"},
	} {
		r := c.Do(apitest.Request{Method: tc.method, Path: tc.path, Header: map[string]string{"Authorization": "Bearer " + tc.token}})
		if r.Status != 405 || r.Header.Get("Allow") != tc.allow || (tc.method != "HEAD" && r.Map(t)["detail"] == nil) {
			t.Errorf("%s %s: %d Allow %q %s; want 405 Allow %q", tc.method, tc.path, r.Status, r.Header.Get("Allow"), r.Body, tc.allow)
		}
	}
	// The wildcard routes still serve their own paths.
	r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/video-recognition/" + strings.Repeat("0", 8) + "-0000-0000-0000-000000000000/",
		Header: map[string]string{"Authorization": "Bearer " + creds.Partner.Key}})
	if r.Status != 404 {
		t.Errorf("poll of an unknown job: %d %s", r.Status, r.Body)
	}
}

// TestEmptyBodiesNameTheRequiredFields: a POST without a body answered
// "JSON parse error - expected a JSON object." on most endpoints, naming
// nothing, while render and the upload endpoints named what is required;
// every JSON endpoint now reads no body as an object without fields and
// answers which field is missing (§7.1 {field: [...]}). The license
// endpoint keeps its own answer, a validation_error whose details.body
// spells out the object to send (TestLicenseErrorRows).
func TestEmptyBodiesNameTheRequiredFields(t *testing.T) {
	e := newPlaylistEnv(t)
	slug := e.create(e.owner, "Mix")["slug"].(string)
	track := e.track(0)
	for _, tc := range []struct{ token, path, field string }{
		{e.partnerKey, "/api/v4/download/audio/" + track + "/", "type"},
		{e.partnerKey, "/api/v4/video-recognition/upload-url/", "filename"},
		{e.owner, mePlaylists, "name"},
		{e.owner, mePlaylists + slug + "/tracks/", "action"},
		{e.owner, mePlaylists + slug + "/tracks/reorder/", "items"},
	} {
		for _, ct := range []string{"", "application/json"} {
			h := map[string]string{"Authorization": "Bearer " + tc.token}
			if ct != "" {
				h["Content-Type"] = ct
			}
			r := e.c.Do(apitest.Request{Method: "POST", Path: tc.path, Header: h})
			if m := r.Map(t); r.Status != 400 || m[tc.field] == nil {
				t.Errorf("POST %s without a body (Content-Type %q): %d %s; want 400 naming %s", tc.path, ct, r.Status, r.Body, tc.field)
			}
		}
	}
}
