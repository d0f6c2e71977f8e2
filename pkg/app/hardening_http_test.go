package app

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/licensing"
	"musiccatalog/pkg/search/searchtest"
)

// Contract hardening of issue 14, through the devserver wiring.

// TestSearchHostileTextIsNoServerError: one long repetitive word made
// bleve's fuzzy automaton fail ("dfa contains more than 10000 states"),
// a 500 a client told to retry would retry forever.
func TestSearchHostileTextIsNoServerError(t *testing.T) {
	_, _, _, c := searchFixture(t)
	for _, text := range []string{strings.Repeat("cd", 300), strings.Repeat("abcdefghij", 99), "rock " + strings.Repeat("cd", 300)} {
		for _, path := range []string{byText, byPrompt} {
			if r := c.Do(apitest.Request{Method: "GET", Path: path + q("text", text)}); r.Status != 200 {
				t.Errorf("%s%.30s…: %d %s", path, text, r.Status, r.Body)
			}
		}
	}
}

// TestSearchBPMRangeIsATolerance: "rock 120 bpm" with bpm_range=2 keeps
// only tracks at 118–122 BPM (it used to return 114 and 139 BPM tracks).
func TestSearchBPMRangeIsATolerance(t *testing.T) {
	_, _, _, c := searchFixture(t)
	for _, tc := range []struct {
		query  string
		lo, hi float64
	}{
		{q("text", "rock 120 bpm", "bpm_range", "2", "limit", "100"), 118, 122},
		{q("text", "rock 120 bpm", "limit", "100"), 115, 125}, // bpm_range defaults to 5
	} {
		r := c.Do(apitest.Request{Method: "GET", Path: byPrompt + tc.query})
		var p searchPage
		r.JSON(t, &p)
		if r.Status != 200 || len(p.Results) == 0 {
			t.Fatalf("%s: %d, %d results", tc.query, r.Status, len(p.Results))
		}
		for _, s := range p.Results {
			if s.Tempo < tc.lo || s.Tempo > tc.hi {
				t.Errorf("%s: %s at %g BPM, outside %g–%g", tc.query, s.Name, s.Tempo, tc.lo, tc.hi)
			}
		}
	}
}

// TestEveryBadParameterIsReported: one 400 names limit, offset and vocals.
func TestEveryBadParameterIsReported(t *testing.T) {
	_, creds, _, c := searchFixture(t)
	want := func(path string, token string, fields ...string) {
		t.Helper()
		h := map[string]string{}
		if token != "" {
			h["Authorization"] = "Bearer " + token
		}
		r := c.Do(apitest.Request{Method: "GET", Path: path, Header: h})
		m := r.Map(t)
		for _, f := range fields {
			if r.Status != 400 || m[f] == nil {
				t.Errorf("%s: %d %s; want 400 naming %s", path, r.Status, r.Body, f)
			}
		}
	}
	want(byText+"text=rock&limit=-3&offset=-1&vocals=robot", "", "limit", "offset", "vocals")
	want(byPrompt+"text=rock&limit=0&offset=x&bpm_range=500", "", "limit", "offset", "bpm_range")
	want(channelsPath+"?limit=-3&offset=-1", creds.Partner.Key, "limit", "offset")
}

// TestBodiesOnGETAndDELETEAreIgnored: a body on a method that takes none
// used to be a 413.
func TestBodiesOnGETAndDELETEAreIgnored(t *testing.T) {
	_, creds, _, c := searchFixture(t)
	big := []byte(strings.Repeat("x", 2<<20))
	if r := c.Do(apitest.Request{Method: "GET", Path: byText + q("text", "rock"), Body: big}); r.Status != 200 {
		t.Errorf("GET by-text with a body: %d %s", r.Status, r.Body)
	}
	c.Token = creds.Partner.Key
	if r := c.Do(apitest.Request{Method: "GET", Path: channelsPath, Body: []byte(`{"a":1}`)}); r.Status != 200 {
		t.Errorf("GET channels with a body: %d %s", r.Status, r.Body)
	}
	add := c.Do(apitest.Request{Method: "POST", Path: channelsPath, JSON: map[string]string{"url": "https://www.youtube.com/@GoogleDevelopers"}})
	if add.Status != 201 {
		t.Fatalf("add: %d %s", add.Status, add.Body)
	}
	id, _ := add.Map(t)["id"].(string)
	if r := c.Do(apitest.Request{Method: "DELETE", Path: channelsPath + id + "/", Body: big}); r.Status != 204 {
		t.Errorf("DELETE with a body: %d %s", r.Status, r.Body)
	}
}

// TestLengthLimitsCountCharacters: X-User-ID (255) and a channel name
// (200) are counted in characters, not in UTF-8 bytes.
func TestLengthLimitsCountCharacters(t *testing.T) {
	_, _, c := partnerClient(t)
	for _, tc := range []struct {
		user   string
		status int
	}{
		{strings.Repeat("é", 255), 200}, // 510 bytes
		{strings.Repeat("用", 255), 200}, // 765 bytes
		{strings.Repeat("é", 256), 400},
		{"bad\xffutf8", 400},
	} {
		if r := c.Do(apitest.Request{Method: "GET", Path: channelsPath, Header: map[string]string{"X-User-ID": tc.user}}); r.Status != tc.status {
			t.Errorf("X-User-ID of %d characters (%d bytes): %d %s; want %d", len([]rune(tc.user)), len(tc.user), r.Status, r.Body, tc.status)
		}
	}
	for _, tc := range []struct {
		name   string
		status int
	}{
		{strings.Repeat("ü", 200), 201},
		{strings.Repeat("ü", 201), 400},
	} {
		r := c.Do(apitest.Request{Method: "POST", Path: channelsPath, Header: map[string]string{"X-User-ID": "u1"},
			JSON: map[string]string{"provider": "youtube", "channel_id": "UC" + strings.Repeat("a", 22), "name": tc.name}})
		if r.Status != tc.status {
			t.Errorf("name of %d characters (%d bytes): %d %s; want %d", len([]rune(tc.name)), len(tc.name), r.Status, r.Body, tc.status)
		}
	}
}

// TestPageLinksUseTheConfiguredBaseURL: next/previous never follow the
// client's Host or X-Forwarded-* headers.
func TestPageLinksUseTheConfiguredBaseURL(t *testing.T) {
	d, creds, _, _ := searchFixture(t)
	h := d.LocalHandler()
	for _, path := range []string{byText + q("text", "rock", "limit", "2", "offset", "2"), channelsPath + "?limit=1"} {
		if strings.HasPrefix(path, channelsPath) { // two channels, so that there is a next page
			for _, ch := range []string{"@GoogleDevelopers", "@YouTube"} {
				body := strings.NewReader(`{"url":"https://www.youtube.com/` + ch + `"}`)
				r := httptest.NewRequest("POST", channelsPath, body)
				r.Header.Set("Authorization", "Bearer "+creds.Partner.Key)
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 201 {
					t.Fatalf("add %s: %d %s", ch, w.Code, w.Body)
				}
			}
		}
		r := httptest.NewRequest("GET", path, nil)
		r.Host = "evil.example"
		r.Header.Set("X-Forwarded-Proto", "https")
		r.Header.Set("X-Forwarded-Host", "evil.example")
		r.Header.Set("Authorization", "Bearer "+creds.Partner.Key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var p struct{ Next, Previous *string }
		if err := json.Unmarshal(w.Body.Bytes(), &p); w.Code != 200 || err != nil {
			t.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		for _, link := range []*string{p.Next, p.Previous} {
			if link != nil && !strings.HasPrefix(*link, d.Config.PublicBaseURL+"/api/v4/") {
				t.Errorf("%s: link %s is not on %s", path, *link, d.Config.PublicBaseURL)
			}
		}
		if p.Next == nil {
			t.Errorf("%s: no next link to check", path)
		}
	}
}

// TestSearchVocalsTellUnknownFromInstrumental: §2.1 gives "" for
// instrumentals; unknown vocals are null, not "" as well.
func TestSearchVocalsTellUnknownFromInstrumental(t *testing.T) {
	d, _ := newTestDeps(t)
	contents := searchtest.DemoContents(t, demo.DefaultTracks, demo.DefaultSeed, true)
	want := map[string]any{}
	vocals := []string{catalog.VocalsUnknown, catalog.VocalsInstrumental, catalog.VocalsFemale}
	for i := range contents.Tracks {
		tr := contents.Tracks[i]
		if len(want) == len(vocals) || !catalog.Visible("", tr) {
			continue
		}
		v := vocals[len(want)]
		tr.Vocals = v
		want[tr.ID] = map[string]any{catalog.VocalsUnknown: nil, catalog.VocalsInstrumental: "", catalog.VocalsFemale: "Female Vocals"}[v]
	}
	published := catalogtest.Publish(t, d.Blob, contents)
	c := apitest.New(t, d.LocalHandler()) // anonymous: the tracks above are visible to all
	for id, v := range want {
		tr, _ := published.Track(id)
		r := c.Do(apitest.Request{Method: "GET", Path: byText + q("text", "music", "title", tr.Name)})
		found := false
		for _, x := range r.Map(t)["results"].([]any) {
			if x.(map[string]any)["id"] != id {
				continue
			}
			found = true
			if got, present := x.(map[string]any)["vocals"]; !present || got != v {
				t.Errorf("%s: vocals %#v, want %#v", tr.Name, got, v)
			}
		}
		if !found {
			t.Errorf("%s not found: %d %s", tr.Name, r.Status, r.Body)
		}
	}
	// The other visible tracks: only null, "" or a label.
	r := c.Do(apitest.Request{Method: "GET", Path: byText + q("text", "music", "limit", "100")})
	for _, x := range r.Map(t)["results"].([]any) {
		switch v := x.(map[string]any)["vocals"].(type) {
		case nil:
		case string:
			if v != "" && !strings.HasSuffix(v, " Vocals") {
				t.Errorf("vocals %q", v)
			}
		default:
			t.Errorf("vocals %#v", v)
		}
	}
}

// TestOpenAPIDocumentsNullTempoAndVocals: tempo is a number in §2.1 but
// null for a track with no stated tempo and no pulse to measure
// (features.TestTempoIsMissingOnlyWithoutAPulse); vocals is null when
// unknown. The document says both, so integrators are not surprised.
func TestOpenAPIDocumentsNullTempoAndVocals(t *testing.T) {
	doc, _, err := apitest.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{"SearchTrack", "TrackDetail"} {
		tempo := doc.Components.Schemas[schema].Value.Properties["tempo"].Value
		if !tempo.Type.Includes("null") || !strings.Contains(strings.ToLower(tempo.Description), "null") {
			t.Errorf("%s.tempo: type %v, description %q: the null case is not documented", schema, tempo.Type, tempo.Description)
		}
	}
	vocals := doc.Components.Schemas["SearchTrack"].Value.Properties["vocals"].Value
	if !vocals.Type.Includes("null") || !strings.Contains(vocals.Description, "unknown") {
		t.Errorf("SearchTrack.vocals: type %v, description %q", vocals.Type, vocals.Description)
	}
}

// TestLicensePageURLIgnoresHostHeader: without LICENSE_PAGE_BASE a
// license's page_url is on the API's public base, not on the Host the
// client sent (the same class as next/previous links).
func TestLicensePageURLIgnoresHostHeader(t *testing.T) {
	d, creds := newTestDeps(t)
	track := publishTestCatalog(t, d).Tracks()[0].ID
	c, err := d.Identity.GetClient(t.Context(), creds.Partner.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Licensing.Generate(t.Context(), c, licensing.Input{UserID: "creator-7", TrackID: track})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/v/"+res.License.ID+".json", nil)
	r.Host = "evil.example"
	r.Header.Set("X-Forwarded-Proto", "https")
	w := httptest.NewRecorder()
	d.LocalHandler().ServeHTTP(w, r)
	var page struct {
		PageURL string `json:"page_url"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); w.Code != 200 || err != nil {
		t.Fatalf("license page: %d %s", w.Code, w.Body)
	}
	if want := d.Config.PublicBaseURL + "/v/" + res.License.ID; page.PageURL != want {
		t.Errorf("page_url %s, want %s", page.PageURL, want)
	}
}
