package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

const (
	generatePath = "/api/v1/licenses/generate"
	licensesPath = "/api/v1/licenses/"
)

type licenseBody struct {
	LicenseID   string  `json:"license_id"`
	LicenseURL  string  `json:"license_url"`
	TrackID     string  `json:"track_id"`
	TrackName   string  `json:"track_name"`
	ArtistName  string  `json:"artist_name"`
	UserID      string  `json:"user_id"`
	ProjectName *string `json:"project_name"`
	CreatedAt   string  `json:"created_at"`
	ExpiresAt   *string `json:"expires_at"`
}

type generateBody struct {
	Success bool        `json:"success"`
	License licenseBody `json:"license"`
	Usage   struct {
		DailyUsed    int64 `json:"daily_used"`
		MonthlyUsed  int64 `json:"monthly_used"`
		DailyLimit   int64 `json:"daily_limit"`
		MonthlyLimit int64 `json:"monthly_limit"`
	} `json:"usage"`
	Error *struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	} `json:"error"`
}

// licenseEnv is the devserver wiring with a catalog (track 3 is
// enterprise-only, see publishTestCatalog) and a manual clock for the
// license service, so quota windows and Retry-After are exact.
//
// The clock stands at 22:59:30 UTC of the day after the real one: the
// store hides expired items by the real time, so the service's clock must
// not fall behind it (a fixed date made the 60-s idempotency lease look
// expired as soon as that date had passed).
type licenseEnv struct {
	d      *Deps
	c      *apitest.Client
	creds  DemoCredentials
	clock  *clock.Manual
	start  time.Time // where clock started
	tracks []*catalog.Track
}

func newLicenseEnv(t *testing.T) *licenseEnv {
	t.Helper()
	d, creds := newTestDeps(t)
	cat := publishTestCatalog(t, d)
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(24*time.Hour + 22*time.Hour + 59*time.Minute + 30*time.Second)
	clk := clock.NewManual(start)
	d.Clock = clk
	d.newLicensing()
	return &licenseEnv{d: d, c: apitest.New(t, d.LocalHandler()), creds: creds, clock: clk, start: start, tracks: cat.Tracks()}
}

// created is the clock's start as the API writes created_at.
func (e *licenseEnv) created() string { return e.start.Format(time.RFC3339) }

// newClient creates a partner client and returns its key.
func (e *licenseEnv) newClient(t *testing.T, plan identity.Plan, scopes []string, q identity.Quotas) (identity.Client, string) {
	t.Helper()
	c, key, err := e.d.Identity.CreateClient(context.Background(), identity.NewClient{
		Name: "Client " + string(plan), Plan: plan, Scopes: scopes, Quotas: q})
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// generate posts body (raw when it is a string) with the given headers;
// "Authorization" is "Bearer key" unless headers set it ("" removes it).
func (e *licenseEnv) generate(t *testing.T, key string, headers map[string]string, body any) (*apitest.Response, generateBody) {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + key, "X-User-ID": "creator-1", "Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	req := apitest.Request{Method: "POST", Path: generatePath, Header: h}
	switch b := body.(type) {
	case string:
		req.Body = []byte(b)
	default:
		raw, _ := json.Marshal(b)
		req.Body = raw
	}
	r := e.c.Do(req)
	var out generateBody
	r.JSON(t, &out)
	return r, out
}

func (e *licenseEnv) get(t *testing.T, key, path string) (*apitest.Response, map[string]any) {
	t.Helper()
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	r := e.c.Do(apitest.Request{Method: "GET", Path: path, Header: h})
	return r, r.Map(t)
}

func (e *licenseEnv) count(t *testing.T, key string) float64 {
	t.Helper()
	r, m := e.get(t, key, licensesPath)
	if r.Status != 200 {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	return m["count"].(float64)
}

func detailFields(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string][]string
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("details %s: %v", raw, err)
	}
	var keys []string
	for k, v := range m {
		if len(v) == 0 || v[0] == "" {
			t.Errorf("details[%s] has no message", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestLicenseErrorRows sends a request for every row of interface.md
// §7.3 (several for validation_error) and checks status, body shape and
// code, and that none of them issued a license or counted against a quota.
func TestLicenseErrorRows(t *testing.T) {
	e := newLicenseEnv(t)
	ctx := context.Background()
	free := e.tracks[0].ID
	_, key := e.newClient(t, identity.PlanCommercial, []string{identity.ScopeLicenses}, identity.Quotas{LicenseDaily: 1})
	_, noScopeKey := e.newClient(t, identity.PlanCommercial, []string{identity.ScopeComplianceCheck}, identity.Quotas{})
	inactive, inactiveKey := e.newClient(t, identity.PlanCommercial, []string{identity.ScopeLicenses}, identity.Quotas{})
	if err := e.d.Identity.SetClientStatus(ctx, inactive.ID, identity.StatusInactive); err != nil {
		t.Fatal(err)
	}
	revoked, revokedKey := e.newClient(t, identity.PlanCommercial, []string{identity.ScopeLicenses}, identity.Quotas{})
	if _, err := e.d.Identity.RevokeClientTokens(ctx, revoked.ID); err != nil {
		t.Fatal(err)
	}
	expiring, _ := e.newClient(t, identity.PlanCommercial, []string{identity.ScopeLicenses}, identity.Quotas{})
	expiredKey, err := e.d.Identity.CreateToken(ctx, expiring.ID, "", time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("ß", 256)
	valid := map[string]any{"track_id": free, "project_name": "Vlog"}
	cases := []struct {
		name    string
		key     string
		headers map[string]string
		body    any
		status  int
		code    string
		details []string
	}{
		{"body not JSON", key, nil, "track_id=" + free, 400, "validation_error", []string{"body"}},
		{"body a JSON array", key, nil, "[]", 400, "validation_error", []string{"body"}},
		{"empty body", key, nil, "", 400, "validation_error", []string{"body"}},
		{"track_id missing", key, nil, map[string]any{}, 400, "validation_error", []string{"track_id"}},
		{"track_id not a UUID", key, nil, map[string]any{"track_id": "42"}, 400, "validation_error", []string{"track_id"}},
		{"track_id not a string", key, nil, map[string]any{"track_id": 42}, 400, "validation_error", []string{"track_id"}},
		{"project_name over 255 characters", key, nil, map[string]any{"track_id": free, "project_name": long}, 400, "validation_error", []string{"project_name"}},
		{"project_name not a string", key, nil, map[string]any{"track_id": free, "project_name": []int{1}}, 400, "validation_error", []string{"project_name"}},
		{"unknown fields", key, nil, map[string]any{"track_id": free, "license_type": "sync", "territory": "EU"}, 400, "validation_error", []string{"license_type", "territory"}},
		{"wrong content type", key, map[string]string{"Content-Type": "text/plain"}, valid, 400, "validation_error", []string{"Content-Type"}},
		{"no content type", key, map[string]string{"Content-Type": ""}, valid, 400, "validation_error", []string{"Content-Type"}},
		{"oversize body", key, nil, `{"track_id":"` + free + `","project_name":"` + strings.Repeat("x", 1_100_000) + `"}`, 400, "validation_error", []string{"body"}},
		{"X-User-ID blank", key, map[string]string{"X-User-ID": "   "}, valid, 400, "validation_error", []string{"X-User-ID"}},
		{"X-User-ID over 255 characters", key, map[string]string{"X-User-ID": long}, valid, 400, "validation_error", []string{"X-User-ID"}},
		{"every bad field at once", key, map[string]string{"X-User-ID": long},
			map[string]any{"track_id": "nope", "project_name": long, "x": 1}, 400, "validation_error",
			[]string{"X-User-ID", "project_name", "track_id", "x"}},
		{"X-User-ID absent", key, map[string]string{"X-User-ID": ""}, valid, 400, "missing_user_id", nil},
		{"no Authorization", "", map[string]string{"Authorization": ""}, valid, 401, "missing_token", nil},
		{"unknown token", "mcat_nope", nil, valid, 401, "invalid_token", nil},
		{"not a bearer token", "", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, valid, 401, "invalid_token", nil},
		{"revoked token", revokedKey, nil, valid, 401, "revoked_token", nil},
		{"expired token", expiredKey, nil, valid, 401, "expired_token", nil},
		{"inactive client", inactiveKey, nil, valid, 403, "inactive_client", nil},
		{"token without licenses:generate", noScopeKey, nil, valid, 403, "missing_scope", nil},
		{"user token", e.creds.User.Token, nil, valid, 403, "missing_scope", nil},
		{"unknown track", key, nil, map[string]any{"track_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7"}, 404, "track_not_found", nil},
		{"enterprise-only track, commercial plan", key, nil, map[string]any{"track_id": e.tracks[3].ID}, 404, "track_not_found", nil},
	}
	for _, tc := range cases {
		r, b := e.generate(t, tc.key, tc.headers, tc.body)
		if r.Status != tc.status || b.Success || b.Error == nil || b.Error.Code != tc.code || b.Error.Message == "" {
			t.Errorf("%s: %d %.300s; want %d %s", tc.name, r.Status, r.Body, tc.status, tc.code)
			continue
		}
		if tc.details != nil {
			if got := detailFields(t, b.Error.Details); !slices.Equal(got, tc.details) {
				t.Errorf("%s: details name %v; want %v", tc.name, got, tc.details)
			}
		} else if len(b.Error.Details) > 0 {
			t.Errorf("%s: details %s; want none", tc.name, b.Error.Details)
		}
		if tc.status == 401 && r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
	}
	if n := e.count(t, key); n != 0 {
		t.Fatalf("%v licenses after only failed calls", n)
	}

	// 429 throttled: the daily limit is 1; Retry-After counts the seconds
	// to the day's end (the clock stands at 22:59:30 UTC).
	r, first := e.generate(t, key, nil, valid)
	if r.Status != 200 || first.Usage.DailyUsed != 1 || first.Usage.DailyLimit != 1 {
		t.Fatalf("first license: %d %s", r.Status, r.Body)
	}
	r, b := e.generate(t, key, map[string]string{"X-User-ID": "creator-2"}, valid)
	if r.Status != 429 || b.Error == nil || b.Error.Code != "throttled" {
		t.Fatalf("over the daily limit: %d %s", r.Status, r.Body)
	}
	if ra := r.Header.Get("Retry-After"); ra != strconv.Itoa(3600+30) {
		t.Errorf("Retry-After %q; want 3630", ra)
	}
	var d struct {
		Window   string `json:"window"`
		Limit    int    `json:"limit"`
		Used     int    `json:"used"`
		ResetsAt string `json:"resets_at"`
	}
	if err := json.Unmarshal(b.Error.Details, &d); err != nil || d.Window != "daily" || d.Limit != 1 || d.Used != 1 || d.ResetsAt != e.start.Truncate(24*time.Hour).Add(24*time.Hour).Format(time.RFC3339) {
		t.Errorf("throttled details %s", b.Error.Details)
	}
	if n := e.count(t, key); n != 1 {
		t.Errorf("%v licenses after one success and one throttled call", n)
	}
	// The repeat of the first call is not a new license: still served.
	if r, again := e.generate(t, key, nil, valid); r.Status != 200 || again.License.LicenseID != first.License.LicenseID || again.Usage.DailyUsed != 1 {
		t.Errorf("repeat over quota: %d %s", r.Status, r.Body)
	}
	// The next day the quota is back.
	e.clock.Advance(time.Hour + 30*time.Second)
	if r, _ := e.generate(t, key, map[string]string{"X-User-ID": "creator-2"}, valid); r.Status != 200 {
		t.Errorf("after the reset: %d %s", r.Status, r.Body)
	}
}

func TestLicenseGenerateAndRepeat(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanCommercial, []string{identity.ScopeLicenses}, identity.Quotas{})
	body := map[string]any{"track_id": strings.ToUpper(e.tracks[1].ID), "project_name": "  Launch video  "}
	r, a := e.generate(t, key, map[string]string{"X-User-ID": "  creator-9  "}, body)
	if r.Status != 200 || !a.Success {
		t.Fatalf("generate: %d %s", r.Status, r.Body)
	}
	l := a.License
	if len(l.LicenseID) != 32 || l.LicenseURL != l.LicenseID || l.TrackID != e.tracks[1].ID ||
		l.TrackName != e.tracks[1].DisplayName() || l.ArtistName != "Artist" || l.UserID != "creator-9" ||
		l.ProjectName == nil || *l.ProjectName != "Launch video" || l.ExpiresAt != nil || l.CreatedAt != e.created() {
		t.Errorf("license %+v", l)
	}
	if a.Usage.DailyUsed != 1 || a.Usage.MonthlyUsed != 1 || a.Usage.DailyLimit != 1000 || a.Usage.MonthlyLimit != 30000 {
		t.Errorf("usage %+v; want 1/1 of the default 1000/30000", a.Usage)
	}
	// The same (user, track, project) is the same license and counts nothing.
	e.clock.Advance(time.Minute)
	r, b := e.generate(t, key, map[string]string{"X-User-ID": "creator-9"}, map[string]any{"track_id": e.tracks[1].ID, "project_name": "Launch video"})
	if r.Status != 200 || string(mustJSON(b.License)) != string(mustJSON(a.License)) || b.Usage.DailyUsed != 1 {
		t.Errorf("repeat: %d %s", r.Status, r.Body)
	}
	// Another project, or none, is another license.
	r, c := e.generate(t, key, map[string]string{"X-User-ID": "creator-9"}, map[string]any{"track_id": e.tracks[1].ID, "project_name": nil})
	if r.Status != 200 || c.License.LicenseID == a.License.LicenseID || c.License.ProjectName != nil || c.Usage.DailyUsed != 2 {
		t.Errorf("no project: %d %s", r.Status, r.Body)
	}
}

// TestLicensePermissions is the Licenses row of interface.md §5 on every
// license endpoint: a token, scope licenses:generate, X-User-ID to
// generate; the public page needs nothing.
func TestLicensePermissions(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	_, noScopeKey := e.newClient(t, identity.PlanEnterprise, nil, identity.Quotas{})
	r, lic := e.generate(t, key, nil, map[string]any{"track_id": e.tracks[0].ID})
	if r.Status != 200 {
		t.Fatalf("generate: %d %s", r.Status, r.Body)
	}
	id := lic.License.LicenseID
	type cell struct {
		who    string
		key    string
		status int
		code   string
	}
	cells := []cell{
		{"no token", "", 401, "missing_token"},
		{"unknown token", "mcat_x", 401, "invalid_token"},
		{"partner key without the scope", noScopeKey, 403, "missing_scope"},
		{"user token", e.creds.User.Token, 403, "missing_scope"},
		{"partner key with the scope", key, 200, ""},
	}
	for _, path := range []string{licensesPath, licensesPath + id} {
		for _, c := range cells {
			r, m := e.get(t, c.key, path)
			if r.Status != c.status {
				t.Errorf("GET %s as %s: %d %s; want %d", path, c.who, r.Status, r.Body, c.status)
				continue
			}
			if c.code != "" && (m["success"] != false || m["error"].(map[string]any)["code"] != c.code) {
				t.Errorf("GET %s as %s: %s; want code %s", path, c.who, r.Body, c.code)
			}
		}
	}
	for _, c := range cells[:4] {
		h := map[string]string{}
		if c.key == "" {
			h["Authorization"] = ""
		}
		if r, b := e.generate(t, c.key, h, map[string]any{"track_id": e.tracks[0].ID}); r.Status != c.status || b.Error.Code != c.code {
			t.Errorf("generate as %s: %d %s", c.who, r.Status, r.Body)
		}
	}
	if r, b := e.generate(t, key, map[string]string{"X-User-ID": ""}, map[string]any{"track_id": e.tracks[0].ID}); r.Status != 400 || b.Error.Code != "missing_user_id" {
		t.Errorf("generate without X-User-ID: %d %s", r.Status, r.Body)
	}
	// The public page is public, whatever Authorization says.
	for _, auth := range []string{"", "Bearer mcat_garbage"} {
		r := e.c.Do(apitest.Request{Method: "GET", Path: "/v/" + id, Header: map[string]string{"Authorization": auth}})
		if r.Status != 200 {
			t.Errorf("page with Authorization %q: %d", auth, r.Status)
		}
	}
}

func TestLicenseLookupAndListing(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	_, otherKey := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	var made []licenseBody
	for i := range 5 {
		e.clock.Advance(time.Second)
		r, b := e.generate(t, key, map[string]string{"X-User-ID": []string{"ann", "bob"}[i%2]},
			map[string]any{"track_id": e.tracks[i%2].ID, "project_name": fmt.Sprint("p", i)})
		if r.Status != 200 {
			t.Fatalf("generate %d: %d %s", i, r.Status, r.Body)
		}
		made = append(made, b.License)
	}
	r, m := e.get(t, key, licensesPath+made[2].LicenseID)
	if r.Status != 200 || m["success"] != true || m["license"].(map[string]any)["project_name"] != "p2" {
		t.Errorf("lookup: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct{ key, id string }{{otherKey, made[2].LicenseID}, {key, strings.Repeat("a", 32)}, {key, "not-an-id"}} {
		r, m := e.get(t, c.key, licensesPath+c.id)
		if r.Status != 404 || m["error"].(map[string]any)["code"] != "license_not_found" {
			t.Errorf("lookup %s: %d %s; want 404 license_not_found", c.id, r.Status, r.Body)
		}
	}
	list := func(query string) (int, []string, map[string]any) {
		t.Helper()
		r, m := e.get(t, key, licensesPath+query)
		if r.Status != 200 {
			t.Fatalf("list %s: %d %s", query, r.Status, r.Body)
		}
		var projects []string
		for _, x := range m["results"].([]any) {
			projects = append(projects, *strPtr(x.(map[string]any)["project_name"]))
		}
		return int(m["count"].(float64)), projects, m
	}
	n, got, m := list("")
	if n != 5 || strings.Join(got, ",") != "p4,p3,p2,p1,p0" || m["next"] != nil || m["previous"] != nil {
		t.Errorf("list = %d %v", n, got)
	}
	n, got, m = list("?user_id=ann&limit=2")
	if n != 3 || strings.Join(got, ",") != "p4,p2" || m["next"] == nil {
		t.Errorf("ann's first page = %d %v %v", n, got, m["next"])
	}
	if next, _ := m["next"].(string); !strings.Contains(next, "offset=2") || !strings.Contains(next, "user_id=ann") {
		t.Errorf("next = %s", next)
	}
	if n, got, _ = list("?user_id=bob&track_id=" + e.tracks[1].ID); n != 2 || strings.Join(got, ",") != "p3,p1" {
		t.Errorf("bob's licenses of track 1 = %d %v", n, got)
	}
	if n, got, _ = list("?track_id=" + e.tracks[0].ID + "&offset=1&limit=500"); n != 3 || strings.Join(got, ",") != "p2,p0" {
		t.Errorf("track 0 from offset 1 = %d %v", n, got)
	}
	if n := e.count(t, otherKey); n != 0 {
		t.Errorf("another client sees %v licenses", n)
	}
	for _, q := range []string{"?track_id=x", "?limit=0", "?offset=-1", "?user_id=%20"} {
		r, m := e.get(t, key, licensesPath+q)
		if r.Status != 400 || m["error"].(map[string]any)["code"] != "validation_error" {
			t.Errorf("list %s: %d %s", q, r.Status, r.Body)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func strPtr(v any) *string {
	s, _ := v.(string)
	return &s
}

// TestLicenseConcurrencyOverHTTP runs both concurrency properties through
// the devserver wiring (bbolt); pkg/licensing runs them on DynamoDB too.
func TestLicenseConcurrencyOverHTTP(t *testing.T) {
	e := newLicenseEnv(t)
	quotas := identity.Quotas{LicenseBurst: 100, LicenseDaily: 5}
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, quotas)
	_, key2 := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, quotas)
	type outcome struct {
		status int
		id     string
		retry  string
	}
	run := func(key string, n int, body func(i int) (map[string]string, any)) []outcome {
		out := make([]outcome, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				h, b := body(i)
				r, g := e.generate(t, key, h, b)
				out[i] = outcome{r.Status, g.License.LicenseID, r.Header.Get("Retry-After")}
			})
		}
		wg.Wait()
		return out
	}
	same := run(key, 30, func(int) (map[string]string, any) {
		return nil, map[string]any{"track_id": e.tracks[0].ID, "project_name": "same"}
	})
	for i, o := range same {
		if o.status != 200 || o.id != same[0].id {
			t.Errorf("identical call %d: %+v (call 0 got %s)", i, o, same[0].id)
		}
	}
	if n := e.count(t, key); n != 1 {
		t.Fatalf("%v licenses after 30 identical calls", n)
	}
	distinct := run(key2, 50, func(i int) (map[string]string, any) {
		return map[string]string{"X-User-ID": fmt.Sprint("user-", i)}, map[string]any{"track_id": e.tracks[0].ID}
	})
	ok, throttled := 0, 0
	for i, o := range distinct {
		switch {
		case o.status == 200:
			ok++
		case o.status == http.StatusTooManyRequests && o.retry == "3630":
			throttled++
		default:
			t.Errorf("distinct call %d: %+v", i, o)
		}
	}
	if ok != 5 || throttled != 45 {
		t.Errorf("%d licensed, %d throttled; want 5 and 45", ok, throttled)
	}
	if n := e.count(t, key2); n != 5 {
		t.Errorf("%v licenses; want exactly the daily limit of 5", n)
	}
}

// TestLicensePage checks the public page's facts, headers and 404s over
// HTTP; TestLicensePageInBrowser renders it.
func TestLicensePage(t *testing.T) {
	e := newLicenseEnv(t)
	c, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	r, g := e.generate(t, key, map[string]string{"X-User-ID": "channel-<b>&co"},
		map[string]any{"track_id": e.tracks[1].ID, "project_name": "Episode 12 <script>alert(1)</script>"})
	if r.Status != 200 {
		t.Fatalf("generate: %d %s", r.Status, r.Body)
	}
	id := g.License.LicenseID
	page := e.c.Do(apitest.Request{Method: "GET", Path: "/v/" + id})
	html := string(page.Body)
	if page.Status != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
		page.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("page: %d %v", page.Status, page.Header)
	}
	for _, want := range []string{`<html lang="en">`, `name="viewport"`, "<main", "<header", "<footer",
		"Sakura Drive (Instrumental)", "Artist", "channel-&lt;b&gt;&amp;co", "Episode 12 &lt;script&gt;",
		c.Name, id, e.tracks[1].ID, `datetime="` + e.created() + `"`, e.start.Format("2 January 2006"), "No expiry",
		"recorded in the Music Catalog license registry", "/v/" + id + ".json"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, secret := range []string{key, c.ID, "<script>"} {
		if strings.Contains(html, secret) {
			t.Errorf("page shows %q", secret)
		}
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}

	r, m := e.get(t, "", "/v/"+id+".json")
	if r.Status != 200 || r.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		m["license_id"] != id || m["status"] != "valid" || m["licensee"] != "channel-<b>&co" || m["issued_by"] != c.Name ||
		m["track_name"] != "Sakura Drive (Instrumental)" || m["project_name"] != "Episode 12 <script>alert(1)</script>" ||
		!strings.HasSuffix(m["page_url"].(string), "/v/"+id) || m["created_at"] != e.created() {
		t.Errorf("page JSON: %d %s", r.Status, r.Body)
	}
	if strings.Contains(string(r.Body), c.ID) || strings.Contains(string(r.Body), key) {
		t.Errorf("page JSON shows the client's id or key")
	}

	// LICENSE_PAGE_BASE names where pages live.
	e.d.Config.LicensePageBase = "https://licenses.example.com"
	base := apitest.New(t, e.d.LocalHandler())
	if r := base.Do(apitest.Request{Method: "GET", Path: "/v/" + id + ".json"}); !strings.Contains(string(r.Body), `"page_url":"https://licenses.example.com/v/`+id+`"`) {
		t.Errorf("page_url with LICENSE_PAGE_BASE: %s", r.Body)
	}

	for _, unknown := range []string{strings.Repeat("0", 32), "nonsense"} { // hex ids are case-insensitive (TestLicenseIDsAreCaseInsensitive)
		p := e.c.Do(apitest.Request{Method: "GET", Path: "/v/" + unknown})
		if p.Status != 404 || !strings.Contains(string(p.Body), "No license with this ID") || !strings.Contains(string(p.Body), `lang="en"`) ||
			p.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("page %s: %d %v", unknown, p.Status, p.Header)
		}
		j := e.c.Do(apitest.Request{Method: "GET", Path: "/v/" + unknown + ".json"})
		if j.Status != 404 || j.Map(t)["error_code"] != "license_not_found" {
			t.Errorf("page %s.json: %d %s", unknown, j.Status, j.Body)
		}
	}
}

// TestLicenseBurstIsPerKey: §8's burst limit counts per API key, the daily
// quota per partnership: a second key of the same client licenses while
// the first is throttled by its burst, and both count toward the day.
func TestLicenseBurstIsPerKey(t *testing.T) {
	e := newLicenseEnv(t)
	c, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{LicenseBurst: 2, LicenseDaily: 3})
	key2, err := e.d.Identity.CreateToken(context.Background(), c.ID, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	gen := func(key, user string) (int, generateBody) {
		r, g := e.generate(t, key, map[string]string{"X-User-ID": user}, map[string]any{"track_id": e.tracks[0].ID})
		return r.Status, g
	}
	for _, u := range []string{"a", "b"} {
		if st, _ := gen(key, u); st != 200 {
			t.Fatalf("key 1, %s: %d", u, st)
		}
	}
	if st, g := gen(key, "c"); st != 429 || !strings.Contains(g.Error.Message, "burst") {
		t.Fatalf("key 1 over its burst: %d %+v", st, g.Error)
	}
	st, g := gen(key2, "c")
	if st != 200 || g.Usage.DailyUsed != 3 {
		t.Fatalf("key 2 while key 1 is throttled: %d, usage %+v", st, g.Usage)
	}
	if st, g := gen(key2, "d"); st != 429 || !strings.Contains(g.Error.Message, "daily") {
		t.Errorf("the client's daily quota, through key 2: %d %+v", st, g.Error)
	}
}
