package app

import (
	"context"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/soundtrack"
)

// idemClient is a partner client with the given daily recognition cap,
// so that every charge shows.
func idemClient(t *testing.T, d *Deps, dailyCap int64) *apitest.Client {
	t.Helper()
	_, key, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "Idem", Plan: identity.PlanCommercial,
		Scopes: []string{identity.ScopeComplianceCheck}, Quotas: identity.Quotas{RecognitionDailyCap: dailyCap}})
	if err != nil {
		t.Fatal(err)
	}
	c := apitest.New(t, d.LocalHandler())
	c.Token = key
	return c
}

// submitWithKey posts a multipart submit of content, built afresh (a new
// random boundary, as a client's retry would) with Idempotency-Key key.
func submitWithKey(t *testing.T, c *apitest.Client, key, name string, content []byte) *apitest.Response {
	t.Helper()
	ct, body := multipartFile(t, name, content, nil)
	h := map[string]string{"Content-Type": ct}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	return c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: h})
}

func recognitionUploads(t *testing.T, d *Deps) int {
	t.Helper()
	objs, err := d.Blob.List(context.Background(), "video-recognition/")
	if err != nil {
		t.Fatal(err)
	}
	return len(objs)
}

func TestIdempotentRecognitionSubmitRetry(t *testing.T) {
	d, _ := newTestDeps(t)
	c := idemClient(t, d, 2)
	video := []byte("garbage video bytes, the job fails later")

	first := submitWithKey(t, c, "retry-1", "clip.mp4", video)
	if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first submit: %d %s %v", first.Status, first.Body, first.Header)
	}
	retry := submitWithKey(t, c, "retry-1", "clip.mp4", video)
	if retry.Status != 201 || string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" ||
		retry.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("retry: %d %s %v; want the first response %s", retry.Status, retry.Body, retry.Header, first.Body)
	}
	// The same key with another body (another file name, other bytes) is refused, and runs nothing.
	for _, tc := range []struct {
		name    string
		content []byte
	}{{"other.mp4", video}, {"clip.mp4", append([]byte("x"), video...)}} {
		r := submitWithKey(t, c, "retry-1", tc.name, tc.content)
		if m := r.Map(t); r.Status != 422 || m["error_code"] != "idempotency_key_reused" || m["detail"] == nil {
			t.Errorf("same key, other body: %d %s", r.Status, r.Body)
		}
	}
	// The same key and body with another X-User-ID is another request.
	ct, body := multipartFile(t, "clip.mp4", video, nil)
	r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": "retry-1", "X-User-ID": "end-user-7"}})
	if r.Status != 422 {
		t.Errorf("same key, other X-User-ID: %d %s", r.Status, r.Body)
	}
	// One charge so far: one unit of the cap of 2 is left.
	if r := submitWithKey(t, c, "", "clip.mp4", video); r.Status != 201 {
		t.Fatalf("second real submit: %d %s; the retry was charged", r.Status, r.Body)
	}
	if r := submitWithKey(t, c, "", "clip.mp4", video); r.Status != 429 || r.Map(t)["used"] != float64(2) {
		t.Errorf("third real submit: %d %s", r.Status, r.Body)
	}
	if n := recognitionUploads(t, d); n != 2 {
		t.Errorf("%d uploads stored for 2 jobs", n)
	}
	// The replay still answers after the cap is reached: it charges nothing.
	if r := submitWithKey(t, c, "retry-1", "clip.mp4", video); r.Status != 201 || string(r.Body) != string(first.Body) {
		t.Errorf("replay at the cap: %d %s", r.Status, r.Body)
	}
	// Keys are per client: another client's same key runs its own request.
	other := idemClient(t, d, 1)
	if r := submitWithKey(t, other, "retry-1", "clip.mp4", video); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" ||
		r.Map(t)["job_id"] == first.Map(t)["job_id"] {
		t.Errorf("another client's key: %d %s", r.Status, r.Body)
	}
}

func TestIdempotentSubmitFailuresAreNotKept(t *testing.T) {
	d, _ := newTestDeps(t)
	c := idemClient(t, d, 1)
	video := []byte("garbage video bytes")
	// A 400 changed nothing and is not kept: the corrected retry with the same key runs.
	if r := submitWithKey(t, c, "k-400", "clip.exe", video); r.Status != 400 {
		t.Fatalf("bad extension: %d %s", r.Status, r.Body)
	}
	ok := submitWithKey(t, c, "k-400", "clip.mp4", video)
	if ok.Status != 201 || ok.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("corrected retry: %d %s", ok.Status, ok.Body)
	}
	// A 429 is not kept either: after the reset (here: another key on the
	// same spent cap) it would run; the same key is still 429, not a replay.
	for range 2 {
		if r := submitWithKey(t, c, "k-429", "clip.mp4", video); r.Status != 429 || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("over the cap: %d %s %v", r.Status, r.Body, r.Header)
		}
	}
	if n := recognitionUploads(t, d); n != 1 {
		t.Errorf("%d uploads kept for 1 job", n)
	}
}

func TestIdempotencyKeyFormat(t *testing.T) {
	d, _ := newTestDeps(t)
	c := idemClient(t, d, 5)
	ct, body := multipartFile(t, "clip.mp4", []byte("garbage"), nil)
	for _, key := range []string{strings.Repeat("k", 256), "tab\there", "caf\u00e9"} {
		r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct, "Idempotency-Key": key}})
		if m := r.Map(t); r.Status != 400 || m["error_code"] != "invalid_idempotency_key" {
			t.Errorf("key %q: %d %s", key, r.Status, r.Body)
		}
	}
	if n := recognitionUploads(t, d); n != 0 {
		t.Errorf("a refused key stored %d uploads", n)
	}
	// 255 printable characters, spaces included, are a key.
	key := strings.Repeat("K ~", 85)
	if r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct, "Idempotency-Key": key}}); r.Status != 201 {
		t.Errorf("255-character key: %d %s", r.Status, r.Body)
	}
	// Without credentials the key changes nothing: 401 as ever.
	if r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body,
		Header: map[string]string{"Content-Type": ct, "Idempotency-Key": "k", "Authorization": ""}}); r.Status != 401 {
		t.Errorf("no token: %d %s", r.Status, r.Body)
	}
}

func TestIdempotentConcurrentSubmitsMakeOneJob(t *testing.T) {
	d, _ := newTestDeps(t)
	c := idemClient(t, d, 1) // a second charge would be a 429
	video := []byte("garbage video bytes for twenty retries")
	const n = 20
	responses := make([]*apitest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { responses[i] = submitWithKey(t, c, "burst", "clip.mp4", video) })
	}
	wg.Wait()
	jobs := map[any]int{}
	for _, r := range responses {
		switch r.Status {
		case 201:
			jobs[r.Map(t)["job_id"]]++
		case 409: // waited longer than the server's wait (a very slow machine): retry now
			if m := r.Map(t); m["error_code"] != "idempotency_key_in_progress" || r.Header.Get("Retry-After") == "" {
				t.Errorf("409: %s %v", r.Body, r.Header)
			}
			r = submitWithKey(t, c, "burst", "clip.mp4", video)
			if r.Status != 201 {
				t.Fatalf("retry after 409: %d %s", r.Status, r.Body)
			}
			jobs[r.Map(t)["job_id"]]++
		default:
			t.Errorf("status %d %s", r.Status, r.Body)
		}
	}
	if len(jobs) != 1 {
		t.Fatalf("%d concurrent identical submits made jobs %v; want one", n, jobs)
	}
	if u := recognitionUploads(t, d); u != 1 {
		t.Errorf("%d uploads stored", u)
	}
	if r := submitWithKey(t, c, "", "clip.mp4", video); r.Status != 429 || r.Map(t)["used"] != float64(1) {
		t.Errorf("after the burst: %d %s; want the cap of 1 used once", r.Status, r.Body)
	}
}

func TestIdempotentSoundtrackCreate(t *testing.T) {
	needFFmpeg(t)
	d, creds, c := partnerClient(t)
	video := songVideo(t, 1, 6)
	post := func(key string, fields map[string]string) *apitest.Response {
		ct, body := multipartFile(t, "v.mp4", video, fields)
		return c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, Body: body, Header: map[string]string{"Content-Type": ct, "Idempotency-Key": key}})
	}
	stored := func() int {
		objs, err := d.Blob.List(context.Background(), soundtrack.UploadPrefix)
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}
	first := post("st-1", map[string]string{"is_public": "true"})
	if first.Status != 201 {
		t.Fatalf("create: %d %s", first.Status, first.Body)
	}
	before := stored()
	again := post("st-1", map[string]string{"is_public": "true"})
	if again.Status != 201 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("retry: %d %s %v", again.Status, again.Body, again.Header)
	}
	if after := stored(); after != before {
		t.Errorf("the retry stored %d more objects", after-before)
	}
	if r := post("st-1", map[string]string{"is_public": "false"}); r.Status != 422 || r.Map(t)["error_code"] != "idempotency_key_reused" {
		t.Errorf("same key, other fields: %d %s", r.Status, r.Body)
	}
	// A user token is another principal: its key space is its own.
	c.Token = creds.User.Token
	if r := post("st-1", map[string]string{"is_public": "true"}); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" ||
		r.Map(t)["id"] == first.Map(t)["id"] {
		t.Errorf("a user's same key: %d %s", r.Status, r.Body)
	}
}

func TestIdempotentPlaylistCreate(t *testing.T) {
	e := newPlaylistEnv(t)
	post := func(key string, body map[string]any) (*apitest.Response, map[string]any) {
		r := e.c.Do(apitest.Request{Method: "POST", Path: mePlaylists, JSON: body,
			Header: map[string]string{"Authorization": "Bearer " + e.owner, "Idempotency-Key": key}})
		return r, r.Map(t)
	}
	first, m1 := post("mix-1", map[string]any{"name": "Mix"})
	retry, m2 := post("mix-1", map[string]any{"name": "Mix"})
	if first.Status != 201 || retry.Status != 201 || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("create, retry: %d %s / %d %s", first.Status, first.Body, retry.Status, retry.Body)
	}
	if m1["playlist"].(map[string]any)["slug"] != m2["playlist"].(map[string]any)["slug"] {
		t.Errorf("a retried create made a second playlist: %s vs %s", first.Body, retry.Body)
	}
	if r, m := post("mix-1", map[string]any{"name": "Other"}); r.Status != 422 || m["error_code"] != "idempotency_key_reused" {
		t.Errorf("same key, other body: %d %s", r.Status, r.Body)
	}
	r, list := e.do(e.owner, "GET", mePlaylists, nil)
	if r.Status != 200 || list["count"].(float64) != 1 {
		t.Errorf("playlists after a retried create: %d %s", r.Status, r.Body)
	}
}

func TestIdempotentLicenseGenerate(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	h := map[string]string{"Idempotency-Key": "lic-1"}
	body := map[string]any{"track_id": e.tracks[0].ID, "project_name": "Trailer"}
	first, g1 := e.generate(t, key, h, body)
	retry, g2 := e.generate(t, key, h, body)
	if first.Status != 200 || retry.Status != 200 || retry.Header.Get("Idempotent-Replayed") != "true" ||
		g1.License.LicenseID != g2.License.LicenseID {
		t.Fatalf("generate, retry: %d %s / %d %s", first.Status, first.Body, retry.Status, retry.Body)
	}
	// Another body under the same key is refused in the license error shape.
	r, g := e.generate(t, key, h, map[string]any{"track_id": e.tracks[0].ID, "project_name": "Other"})
	if r.Status != 422 || g.Error == nil || g.Error.Code != "idempotency_key_reused" {
		t.Errorf("same key, other body: %d %s", r.Status, r.Body)
	}
	// An oversize keyed body is a validation_error, not a spooled upload.
	big := `{"track_id": "` + strings.Repeat("a", 2_000_000) + `"}`
	if r, g := e.generate(t, key, map[string]string{"Idempotency-Key": "lic-2"}, big); r.Status != 400 || g.Error == nil || g.Error.Code != "validation_error" {
		t.Errorf("oversize keyed body: %d %.200s", r.Status, r.Body)
	}
	if n := e.count(t, key); n != 1 {
		t.Errorf("licenses after retries: %v, want 1", n)
	}
}

// TestIdempotencyKeyCheckedAfterTheEndpointsAuth: a valid key whose
// credentials the endpoint refuses (no licenses scope; a partner key
// where a signed-in user is required) is answered 403/401 as without an
// Idempotency-Key, not 400 for a malformed key (before, only
// authentication ran first).
func TestIdempotencyKeyCheckedAfterTheEndpointsAuth(t *testing.T) {
	d, _ := newTestDeps(t)
	c := idemClient(t, d, 5) // compliance_check only
	for _, tc := range []struct{ path, body string }{
		{generatePath, `{"track_id": 1}`},
		{mePlaylists, `{"name": "x"}`},
	} {
		plain := c.Do(apitest.Request{Method: "POST", Path: tc.path, Body: []byte(tc.body), Header: map[string]string{"Content-Type": "application/json"}})
		bad := c.Do(apitest.Request{Method: "POST", Path: tc.path, Body: []byte(tc.body),
			Header: map[string]string{"Content-Type": "application/json", "Idempotency-Key": "tab\there"}})
		if plain.Status != 401 && plain.Status != 403 {
			t.Fatalf("%s without a key: %d %s; want the endpoint's 401/403", tc.path, plain.Status, plain.Body)
		}
		if bad.Status != plain.Status || string(bad.Body) != string(plain.Body) {
			t.Errorf("%s with a malformed key: %d %s; want %d %s", tc.path, bad.Status, bad.Body, plain.Status, plain.Body)
		}
	}
}
