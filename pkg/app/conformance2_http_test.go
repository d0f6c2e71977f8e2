package app

import (
	"bytes"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/recognition"
)

// Deviations from interface.md found by the second conformance audit
// (each test failed on the code before its fix).

// TestPlaylistTrackListingSpeaksItsLocale: the {locale} of GET
// /api/v4/{locale}/tracks/?user_playlist= translates genre, subgenre and
// moods as track detail (§4.3) does, with Content-Language; the listing
// answered English whatever the locale.
func TestPlaylistTrackListingSpeaksItsLocale(t *testing.T) {
	e := newPlaylistEnv(t)
	tr := e.cat.Tracks()[0]
	e.create(e.owner, "Locales", tr.ID)
	for _, c := range []struct{ locale, lang, genre, mood string }{
		{"de", "de", tr.Genre + " (de)", "Fröhlich"},
		{"DE_at", "de", tr.Genre + " (de)", "Fröhlich"},
		{"fr", "en", tr.Genre, tr.Mood},
	} {
		r, m := e.do(e.owner, "GET", "/api/v4/"+c.locale+"/tracks/?user_playlist=locales", nil)
		res, _ := m["results"].([]any)
		if r.Status != 200 || len(res) != 1 {
			t.Fatalf("%s: %d %s", c.locale, r.Status, r.Body)
		}
		got := res[0].(map[string]any)
		if got["genre_name"] != c.genre || got["mood_name"] != c.mood || got["secondary_mood_name"] != tr.SecondaryMood ||
			r.Header.Get("Content-Language") != c.lang {
			t.Errorf("%s: genre %v, mood %v, secondary %v, Content-Language %q; want %q, %q, %q, %q",
				c.locale, got["genre_name"], got["mood_name"], got["secondary_mood_name"], r.Header.Get("Content-Language"),
				c.genre, c.mood, tr.SecondaryMood, c.lang)
		}
	}
}

// TestDownloadStemsOfATrackWithoutStems: include_stems (§4.4, "bundle the
// track's stems") for a track that has none is a 400 naming the field,
// on POST and GET, and starts no build; it built and served an archive
// named "(stems)" holding no stem.
func TestDownloadStemsOfATrackWithoutStems(t *testing.T) {
	f := newDownloadFixture(t, func(c *catalog.Contents) { c.Tracks[1].Stems = nil })
	release, builds := gateZIPBuilds(t, f.d)
	_, key := f.client(t, identity.PlanEnterprise, true, true)
	tr := f.tracks[1]
	for _, r := range []*apitest.Response{
		f.post(tr.ID, key, map[string]any{"type": "track", "include_stems": true}),
		f.post(tr.ID, key, map[string]any{"type": "track", "include_stems": true, "format": []string{"mp3", "wav"}}),
		f.get(tr.ID, key, "type=track&include_stems=true"),
	} {
		if m := r.Map(t); r.Status != 400 || m["include_stems"] == nil {
			t.Errorf("%d %s, want 400 {include_stems}", r.Status, r.Body)
		}
	}
	wantPending(t, "a track with stems", f.post(f.tracks[0].ID, key, map[string]any{"type": "track", "include_stems": true}))
	release()
	waitWorkflows(t, f.d)
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds, want 1 (the track with stems)", n)
	}
}

// TestSeveralAuthorizationHeadersAreRefused: a request with two
// Authorization headers is refused as an invalid token (401; the license
// API's invalid_token) instead of being served as whichever came first,
// as API Gateway also refuses it (it joins the values with a comma).
func TestSeveralAuthorizationHeadersAreRefused(t *testing.T) {
	d, creds := newTestDeps(t)
	h := d.LocalHandler()
	for _, c := range []struct{ method, path, body, want string }{
		{"GET", "/api/v4/allowlist/channels/", "", `"Invalid token."`},
		{"GET", "/api/v4/me/playlists/", "", `"Invalid token."`},
		{"POST", "/api/v1/licenses/generate", `{"track_id":"00000000-0000-4000-8000-000000000000"}`, `"invalid_token"`},
	} {
		for _, second := range []string{creds.User.Token, "junk", creds.Partner.Key} {
			req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			req.Header.Add("Authorization", "Bearer "+creds.Partner.Key)
			req.Header.Add("Authorization", "Bearer "+second)
			req.Header.Set("X-User-ID", "u1")
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 401 || !strings.Contains(rec.Body.String(), c.want) {
				t.Errorf("%s %s with two Authorization headers: %d %s, want 401 %s", c.method, c.path, rec.Code, rec.Body, c.want)
			}
		}
	}
}

// TestNamesRefuseControlCharacters: a playlist name (create, PATCH as
// JSON or multipart) and a channel's display name are one line of text,
// so control characters are a 400 naming the field, as license
// project_name already was; a playlist description keeps line breaks and
// tabs but refuses NUL. They were stored as sent ("a\u0000b\nc").
func TestNamesRefuseControlCharacters(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Clean")
	for _, c := range []struct {
		method, path string
		body         any
		field        string
	}{
		{"POST", mePlaylists, map[string]any{"name": "a\u0000b"}, "name"},
		{"POST", mePlaylists, map[string]any{"name": "line\nbreak"}, "name"},
		{"POST", mePlaylists, map[string]any{"name": "ok", "description": "nul\u0000"}, "description"},
		{"PATCH", mePlaylists + "clean/", map[string]any{"name": "tab\there"}, "name"},
		{"POST", channelsPath, map[string]any{"provider": "youtube", "channel_id": "UC_x5XG1OV2P6uZZ5FSM9Ttw", "name": "a\u0000b\nc"}, "name"},
	} {
		token := e.owner
		if c.path == channelsPath {
			token = e.partnerKey
		}
		if r, m := e.do(token, c.method, c.path, c.body); r.Status != 400 || m[c.field] == nil {
			t.Errorf("%s %s %v: %d %s, want 400 {%s}", c.method, c.path, c.body, r.Status, r.Body, c.field)
		}
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("name", "bell\a")
	mw.Close()
	mp := e.c.Do(apitest.Request{Method: "PATCH", Path: mePlaylists + "clean/", Body: buf.Bytes(),
		Header: map[string]string{"Authorization": "Bearer " + e.owner, "Content-Type": mw.FormDataContentType()}})
	if mp.Status != 400 || mp.Map(t)["name"] == nil {
		t.Errorf("multipart PATCH: %d %s, want 400 {name}", mp.Status, mp.Body)
	}
	if r, m := e.do(e.owner, "POST", mePlaylists, map[string]any{"name": "Notes", "description": "two\nlines\tand a tab"}); r.Status != 201 ||
		m["playlist"].(map[string]any)["description"] != "two\nlines\tand a tab" {
		t.Errorf("description with line breaks: %d %s", r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "GET", mePlaylists+"clean/", nil); r.Status != 200 || m["name"] != "Clean" {
		t.Errorf("refused PATCHes changed the playlist: %d %s", r.Status, r.Body)
	}
}

// TestLicenseThrottledCarriesUsage: §8 "429 responses carry the standard
// Retry-After header in seconds; current usage is in usage" — the 429
// throttled body has the client's usage next to its error (it had none).
func TestLicenseThrottledCarriesUsage(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{LicenseDaily: 1, LicenseMonthly: 7})
	body := map[string]any{"track_id": e.tracks[0].ID}
	if r, _ := e.generate(t, key, nil, body); r.Status != 200 {
		t.Fatalf("first license: %d %s", r.Status, r.Body)
	}
	r, _ := e.generate(t, key, map[string]string{"X-User-ID": "creator-2"}, body)
	var got struct {
		Usage *struct {
			DailyUsed    *int `json:"daily_used"`
			MonthlyUsed  *int `json:"monthly_used"`
			DailyLimit   *int `json:"daily_limit"`
			MonthlyLimit *int `json:"monthly_limit"`
		} `json:"usage"`
	}
	r.JSON(t, &got)
	u := got.Usage
	if r.Status != 429 || u == nil || u.DailyUsed == nil || *u.DailyUsed != 1 || *u.DailyLimit != 1 || *u.MonthlyUsed != 1 || *u.MonthlyLimit != 7 {
		t.Errorf("429: %d %s; want usage {daily_used 1, daily_limit 1, monthly_used 1, monthly_limit 7}", r.Status, r.Body)
	}
}

// TestDownloadFormatNullItem: a null item of `format` is a type error, as
// a number is (it was reported as the choice "").
func TestDownloadFormatNullItem(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanEnterprise, true, true)
	r := f.post(f.tracks[0].ID, key, map[string]any{"type": "track", "format": []any{"mp3", nil}})
	if got, _ := r.Map(t)["format"].([]any); r.Status != 400 || len(got) != 1 || got[0] != "Invalid type: expected a string." {
		t.Errorf("%d %s, want 400 {format: [Invalid type: expected a string.]}", r.Status, r.Body)
	}
	r = f.post(f.tracks[0].ID, key, map[string]any{"format": []any{nil, "flac"}})
	if m := r.Map(t); r.Status != 400 || len(m["format"].([]any)) != 2 || m["type"] == nil {
		t.Errorf("%d %s, want 400 naming type and both bad formats", r.Status, r.Body)
	}
}

// TestPlaylistUpdateRefusesNull: a PATCH/PUT with null for name,
// description or image is a 400 naming each (DRF's "may not be null"),
// not a 200 that silently keeps the old value (a client clearing the
// description with null was told it worked).
func TestPlaylistUpdateRefusesNull(t *testing.T) {
	e := newPlaylistEnv(t)
	e.create(e.owner, "Nulls")
	e.do(e.owner, "PATCH", mePlaylists+"nulls/", map[string]any{"description": "kept"})
	for _, method := range []string{"PATCH", "PUT"} {
		r, m := e.do(e.owner, method, mePlaylists+"nulls/", map[string]any{"name": nil, "description": nil, "image": nil})
		if r.Status != 400 || m["name"] == nil || m["description"] == nil || m["image"] == nil {
			t.Errorf("%s with nulls: %d %s, want 400 {name, description, image}", method, r.Status, r.Body)
		}
	}
	if r, m := e.do(e.owner, "GET", mePlaylists+"nulls/", nil); r.Status != 200 || m["name"] != "Nulls" || m["description"] != "kept" {
		t.Errorf("after refused updates: %d %s", r.Status, r.Body)
	}
	if r, m := e.do(e.owner, "PATCH", mePlaylists+"nulls/", map[string]any{"description": ""}); r.Status != 200 || m["description"] != "" {
		t.Errorf("clearing with \"\": %d %s", r.Status, r.Body)
	}
}

// TestCreatedAnswersSayWhere: a 201 names the created resource in
// Location (RFC 9110 §15.3.2), as playlist create does: the recognition
// job's poll path and the soundtrack video's retrieve path. Both were
// without it, which reads as "created at the request URI".
func TestCreatedAnswersSayWhere(t *testing.T) {
	d, _ := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	_, key, err := d.Identity.CreateClient(t.Context(), identity.NewClient{Name: "L", Plan: identity.PlanCommercial,
		Scopes: []string{identity.ScopeComplianceCheck}})
	if err != nil {
		t.Fatal(err)
	}
	c.Token = key
	ct, body := multipartFile(t, "clip.mp4", []byte("garbage video bytes"), nil)
	r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}})
	if loc := r.Header.Get("Location"); r.Status != 201 || loc != recognitionPath+r.Map(t)["job_id"].(string)+"/" {
		t.Fatalf("recognition submit: %d Location %q %s", r.Status, loc, r.Body)
	}
	if p := c.Do(apitest.Request{Method: "GET", Path: r.Header.Get("Location")}); p.Status != 200 {
		t.Errorf("GET Location: %d %s", p.Status, p.Body)
	}
}

func TestSoundtrackCreatedSaysWhere(t *testing.T) {
	needFFmpeg(t)
	_, _, c := partnerClient(t)
	r := postFile(c, "clip.mp4", songVideo(t, 3, 4), nil, t)
	if loc := r.Header.Get("Location"); r.Status != 201 || loc != soundtrackPath+r.Map(t)["id"].(string)+"/" {
		t.Fatalf("soundtrack create: %d Location %q %s", r.Status, loc, r.Body)
	}
	if g := c.Do(apitest.Request{Method: "GET", Path: r.Header.Get("Location")}); g.Status != 200 {
		t.Errorf("GET Location: %d %s", g.Status, g.Body)
	}
}

// TestRepeatedSingleValuedParameters: a single-valued query parameter
// sent twice with different values is a 400 naming it (the first one was
// used silently, where the reference API, Django, reads the last); the
// same value twice is accepted, and multi-valued ones (fmt, genre) stay so.
func TestRepeatedSingleValuedParameters(t *testing.T) {
	e := newPlaylistEnv(t)
	tr := e.track(0)
	e.create(e.owner, "Twice", tr)
	_, lkey := newLicenseEnvKey(t, e)
	for _, c := range []struct {
		token, path, field string
		status             int
	}{
		{"", "/api/v4/search/ai/by-text/?text=rock&text=jazz", "text", 400},
		{"", "/api/v4/search/ai/by-text/?text=rock&limit=2&limit=3&offset=1&offset=1", "limit", 400},
		{"", "/api/v4/search/ai/by-id/?track_id=" + tr + "&highlights=true&highlights=false", "highlights", 400},
		{"", "/api/v4/search/ai/by-text/?text=rock&title=a&title=b&bpm__range=1__2&bpm__range=1__3", "bpm__range", 400},
		{"", "/api/v4/search/ai/by-text/?text=rock&text=rock&limit=2&limit=2&genre=Rock&genre=Jazz", "", 200},
		{e.owner, "/api/v4/en/tracks/?user_playlist=twice&user_playlist=other", "user_playlist", 400},
		{e.owner, "/api/v4/en/tracks/?user_playlist=twice&user_playlist=twice", "", 200},
		{e.owner, "/api/v4/me/playlists/?offset=0&offset=1", "offset", 400},
		{e.partnerKey, "/api/v4/download/audio/" + tr + "/?type=track&type=stem", "type", 400},
		{"", "/api/v4/stream/" + tr + "/?type=track&type=stem", "type", 400},
		{lkey, "/api/v1/licenses/?user_id=a&user_id=b", "user_id", 400},
	} {
		r, m := e.do(c.token, "GET", c.path, nil)
		if c.status == 200 {
			if r.Status != 200 {
				t.Errorf("%s: %d %s, want 200", c.path, r.Status, r.Body)
			}
			continue
		}
		if d, ok := m["error"].(map[string]any); ok { // the license API's shape
			m, _ = d["details"].(map[string]any)
		}
		if r.Status != c.status || m[c.field] == nil {
			t.Errorf("%s: %d %s, want %d {%s}", c.path, r.Status, r.Body, c.status, c.field)
		}
	}
}

// newLicenseEnvKey makes a partner key with licenses:generate on e's store.
func newLicenseEnvKey(t *testing.T, e *playlistEnv) (string, string) {
	t.Helper()
	c, key, err := e.d.Identity.CreateClient(t.Context(), identity.NewClient{Name: "Licenses", Plan: identity.PlanEnterprise,
		Scopes: []string{identity.ScopeLicenses}})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, key
}

// TestLicensePageNegotiatesFormat: `format` is the content negotiation
// parameter (§9), so /v/{id}?format=json answers the page's JSON form,
// as /v/{id}.json does (it answered the HTML page).
func TestLicensePageNegotiatesFormat(t *testing.T) {
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	_, b := e.generate(t, key, nil, map[string]any{"track_id": e.tracks[0].ID})
	id := b.License.LicenseID
	r, m := e.get(t, "", "/v/"+id+"?format=json")
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" || m["license_id"] != id {
		t.Errorf("?format=json: %d %q %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
}

// TestSubmitOfARefusedUploadSaysWhy: an upload the trigger refused and
// deleted (over the size limit) is submitted by its storage_key: the 400
// says the file was too large (§7.2), not "PUT the file first" as if the
// client had never uploaded it.
func TestSubmitOfARefusedUploadSaysWhy(t *testing.T) {
	d, _ := newTestDeps(t)
	svc, err := recognition.New(recognition.Config{Store: d.Store, Blob: d.Blob, Catalog: d.Catalog, Workflow: &quietStarts{},
		Clock: d.Clock, DefaultDailyCap: 10, MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	d.Recognition = svc
	c := apitest.New(t, d.LocalHandler())
	_, key, err := d.Identity.CreateClient(t.Context(), identity.NewClient{Name: "R", Plan: identity.PlanCommercial,
		Scopes: []string{identity.ScopeComplianceCheck}})
	if err != nil {
		t.Fatal(err)
	}
	c.Token = key
	up := c.Do(apitest.Request{Method: "POST", Path: recognitionPath + "upload-url/", JSON: map[string]any{"filename": "big.mp4"}})
	if up.Status != 201 {
		t.Fatalf("upload-url: %d %s", up.Status, up.Body)
	}
	sk := up.Map(t)["storage_key"].(string)
	if err := d.Blob.Put(t.Context(), sk, bytes.NewReader(make([]byte, 2000)), 2000, "video/mp4"); err != nil {
		t.Fatal(err)
	}
	attrs, err := d.Blob.Head(t.Context(), sk)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Prepare(t.Context(), sk, attrs.ETag); err != nil { // the upload trigger
		t.Fatal(err)
	}
	r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, JSON: map[string]any{"storage_key": sk}})
	msgs, _ := r.Map(t)["storage_key"].([]any)
	if r.Status != 400 || len(msgs) != 1 || !strings.Contains(msgs[0].(string), "cannot exceed 100 MB") {
		t.Errorf("submit of the refused upload: %d %s, want 400 {storage_key: [size]}", r.Status, r.Body)
	}
	// A key nothing was uploaded to still says so.
	r = c.Do(apitest.Request{Method: "POST", Path: recognitionPath, JSON: map[string]any{"storage_key": strings.Replace(sk, "big.mp4", "other.mp4", 1)}})
	if msgs, _ := r.Map(t)["storage_key"].([]any); r.Status != 400 || len(msgs) != 1 || !strings.Contains(msgs[0].(string), "PUT the file") {
		t.Errorf("submit of a key never uploaded: %d %s", r.Status, r.Body)
	}
}

// TestSearchNamesEveryBadParameterAtOnce: a genre the catalog lacks is
// named in the same 400 as a bad vocals value or time_limit (the review
// found the catalog's values checked only once everything else passed,
// so a client needed two round trips); a near miss stays by-text's
// did_you_mean.
func TestSearchNamesEveryBadParameterAtOnce(t *testing.T) {
	e := newPlaylistEnv(t)
	for _, c := range []struct {
		path   string
		fields []string
	}{
		{"/api/v4/search/ai/by-text/?text=x&genre=nosuchgenre&vocals=bad", []string{"genre", "vocals"}},
		{"/api/v4/search/ai/by-prompt/?text=x&time_limit=0&mood__terms=nosuchmood", []string{"time_limit", "mood__terms"}},
		{"/api/v4/search/ai/by-id/?track_id=" + e.track(0) + "&subgenre=nosuchsub&restricted=maybe", []string{"subgenre", "restricted"}},
		// A near miss is did_you_mean's on by-text, a 400 on by-id.
		{"/api/v4/search/ai/by-text/?text=x&genre=Rok&vocals=bad", []string{"vocals"}},
		{"/api/v4/search/ai/by-id/?track_id=" + e.track(0) + "&genre=Rok&restricted=maybe", []string{"genre", "restricted"}},
	} {
		r, m := e.do("", "GET", c.path, nil)
		if r.Status != 400 || len(m) != len(c.fields) {
			t.Errorf("%s: %d %s; want 400 naming %v", c.path, r.Status, r.Body, c.fields)
			continue
		}
		for _, f := range c.fields {
			if m[f] == nil {
				t.Errorf("%s: %s; want %s named", c.path, r.Body, f)
			}
		}
	}
}

// TestDownloadNamesTypeErrorsWithTheRest: a field of the wrong JSON type
// is named in the same 400 as the request's other bad fields (a wrong
// include_stems hid a missing type and a bad format), and only for its
// type (a format of the wrong type is not also "required").
func TestDownloadNamesTypeErrorsWithTheRest(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanEnterprise, true, true)
	r := f.post(f.tracks[0].ID, key, map[string]any{"type": "video", "format": []any{"flac"}, "include_stems": "x"})
	m := r.Map(t)
	if r.Status != 400 || m["include_stems"] == nil || m["type"] == nil || m["format"] == nil {
		t.Errorf("%d %s; want 400 naming include_stems, type and format", r.Status, r.Body)
	}
	r = f.post(f.tracks[0].ID, key, map[string]any{"type": "track", "format": "mp3"})
	if got, _ := r.Map(t)["format"].([]any); r.Status != 400 || len(got) != 1 || got[0] != "Invalid type: expected a list." {
		t.Errorf("%d %s; want 400 {format: [Invalid type: expected a list.]} alone", r.Status, r.Body)
	}
}
