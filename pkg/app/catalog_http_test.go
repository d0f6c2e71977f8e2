package app

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// publishTestCatalog publishes a small catalog with the cases the
// presentation rules care about and returns it.
func publishTestCatalog(t *testing.T, d *Deps) *catalog.Catalog {
	t.Helper()
	c := catalogtest.Contents(8, 5)
	c.Tracks[1].Name, c.Tracks[1].Variant = "Sakura Drive -JP", "Instrumental"
	c.Tracks[3].AccessTier = catalog.TierEnterprise
	c.Tracks[5].Writers = []catalog.RightsHolder{{Name: "A", Share: 50}, {Name: "B", Share: 30}} // incomplete: 80 %
	ctx := context.Background()
	if err := d.Blob.Put(ctx, c.Tracks[0].Audio.MP3Key, bytes.NewReader([]byte("ID3 fake mp3 bytes for streaming")), -1, "audio/mpeg"); err != nil {
		t.Fatal(err)
	}
	wave := `{"data":[0,12,-12,30,-30],"length":5,"sample_rate":11025,"samples_per_pixel":256,"version":2}`
	if err := d.Blob.Put(ctx, c.Tracks[0].WaveformKey, strings.NewReader(wave), -1, "application/json"); err != nil {
		t.Fatal(err)
	}
	return catalogtest.Publish(t, d.Blob, c)
}

func TestTrackDetail(t *testing.T) {
	d, creds := newTestDeps(t)
	cat := publishTestCatalog(t, d)
	c := apitest.New(t, d.LocalHandler())
	tracks := cat.Tracks()
	get := func(path, token string) (*apitest.Response, map[string]any) {
		t.Helper()
		h := map[string]string{}
		if token != "" {
			h["Authorization"] = "Bearer " + token
		}
		r := c.Do(apitest.Request{Method: "GET", Path: path, Header: h})
		return r, r.Map(t)
	}
	r, m := get("/api/v4/en/tracks/"+tracks[0].ID+"/", "")
	if r.Status != 200 || m["name"] != "Track 0" || m["is_free"] != false || m["is_sfx"] != false ||
		m["audio_url"] != "/api/v4/stream/"+tracks[0].ID+"/?type=track" || m["has_stems"] != true ||
		m["genre_name"] != "Rock" || m["jp_title"] != "Track 0" || m["album"] == nil {
		t.Fatalf("detail: %d %v", r.Status, m)
	}
	if w := m["writers"].([]any); len(w) != 1 {
		t.Errorf("complete writers not shown: %v", m["writers"])
	}
	if _, m = get("/api/v4/de/tracks/"+tracks[0].ID+"/", ""); m["genre_name"] != "Rock (de)" || m["mood_name"] != "Fröhlich" || m["subgenre_name"] != "Rock Sub" {
		t.Errorf("German detail: %v", m)
	}
	if _, m = get("/api/v4/de-AT/tracks/"+tracks[0].ID+"/", ""); m["genre_name"] != "Rock (de)" {
		t.Errorf("de-AT does not fall back to de: %v", m["genre_name"])
	}
	if r, m := get("/api/v4/fr/tracks/"+tracks[0].ID+"/", ""); m["genre_name"] != "Rock" || r.Header.Get("Content-Language") != "en" {
		t.Errorf("unknown locale does not fall back to the base language: %v (%s)", m["genre_name"], r.Header.Get("Content-Language"))
	}
	// Locale codes are case-insensitive and take "_" too.
	for _, loc := range []string{"DE", "de_at", "De-at"} {
		if r, m := get("/api/v4/"+loc+"/tracks/"+tracks[0].ID+"/", ""); m["genre_name"] != "Rock (de)" || r.Header.Get("Content-Language") != "de" {
			t.Errorf("%s: %v (%s)", loc, m["genre_name"], r.Header.Get("Content-Language"))
		}
	}
	if r, m := get("/api/v4/english/tracks/"+tracks[0].ID+"/", ""); r.Status != 404 || m["detail"] != `Unknown language code "english".` {
		t.Errorf("malformed locale: %d %v", r.Status, m)
	}
	if _, m = get("/api/v4/en/tracks/"+tracks[1].ID+"/", ""); m["name"] != "Sakura Drive (Instrumental)" || m["jp_title"] != "Sakura Drive -JP" || m["album"] != nil {
		t.Errorf("-JP title: name %v jp_title %v album %v", m["name"], m["jp_title"], m["album"])
	}
	if _, m = get("/api/v4/en/tracks/"+tracks[5].ID+"/", ""); len(m["writers"].([]any)) != 0 || len(m["publishers"].([]any)) != 1 {
		t.Errorf("incomplete writers shown: %v / %v", m["writers"], m["publishers"])
	}
	// Enterprise-only: hidden from anonymous and lower plans, shown to enterprise.
	_, freeKey, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "F", Plan: identity.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	ent := "/api/v4/en/tracks/" + tracks[3].ID + "/"
	for _, tok := range []string{"", freeKey} {
		if r, _ := get(ent, tok); r.Status != 404 {
			t.Errorf("enterprise track for %q: %d", tok, r.Status)
		}
	}
	if r, _ := get(ent, creds.Partner.Key); r.Status != 200 {
		t.Errorf("enterprise track for the enterprise key: %d", r.Status)
	}
	for _, p := range []string{"/api/v4/en/tracks/00000000-0000-4000-8000-000000000000/", "/api/v4/en/tracks/nope/", "/api/v4/EN!/tracks/" + tracks[0].ID + "/"} {
		if r, m := get(p, ""); r.Status != 404 || m["detail"] == nil {
			t.Errorf("%s: %d %v", p, r.Status, m)
		}
	}
	if r, _ := get("/api/v4/en/tracks/"+tracks[0].ID+"/", "mcat_bogus"); r.Status != 401 {
		t.Errorf("bad token on a public endpoint: %d", r.Status)
	}
}

func TestFilterListings(t *testing.T) {
	d, creds := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	if r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/search/ai/filters/"}); r.Status != 500 || r.Map(t)["detail"] == nil {
		t.Fatalf("filters without a catalog: %d %s", r.Status, r.Body)
	}
	cat := publishTestCatalog(t, d)
	d.Catalog = catalog.NewLoader(d.Blob) // the first loader remembers the failure for its check interval
	c = apitest.New(t, d.LocalHandler())
	r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/search/ai/filters/"})
	if r.Status != 200 {
		t.Fatalf("filters: %d %s", r.Status, r.Body)
	}
	m := r.Map(t)
	genres := m["genres"].(map[string]any)["values"].([]any)
	counts := map[string]float64{}
	for _, g := range genres {
		g := g.(map[string]any)
		counts[g["value"].(string)] = g["tracks"].(float64)
	}
	total := func(m map[string]any) (n float64) {
		for _, g := range m["genres"].(map[string]any)["values"].([]any) {
			n += g.(map[string]any)["tracks"].(float64)
		}
		return n
	}
	// Anonymous callers count only what they can find: the enterprise-only
	// track is left out; an enterprise key sees all 8.
	if total(m) != 7 || counts["Rock"]+counts["Jazz"]+counts["Electronic"] != 7 {
		t.Errorf("genre counts %v", counts)
	}
	ent := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/search/ai/filters/", Header: map[string]string{"Authorization": "Bearer " + creds.Partner.Key}})
	if total(ent.Map(t)) != 8 || ent.Header.Get("ETag") == r.Header.Get("ETag") || !strings.HasPrefix(ent.Header.Get("Cache-Control"), "private") {
		t.Errorf("enterprise filters: %s %v", ent.Body, ent.Header)
	}
	bpm := m["bpm"].(map[string]any)["values"].([]any)[0].(map[string]any)["value"].([]any)
	if bpm[0] != float64(60) || bpm[1] != float64(130) {
		t.Errorf("bpm range %v", bpm)
	}
	etag := r.Header.Get("ETag")
	if etag == "" || !strings.Contains(etag, cat.Version()) || !strings.Contains(r.Header.Get("Cache-Control"), "max-age") {
		t.Errorf("caching headers: %v", r.Header)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/search/ai/filters/", Header: map[string]string{"If-None-Match": etag}}); r.Status != 304 {
		t.Errorf("revalidation: %d", r.Status)
	}

	sfx := "/api/v4/search/soundfxs/filters/"
	_, noSFX, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "N", Plan: identity.PlanCommercial})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"", "Bearer mcat_bogus", "Bearer " + noSFX} {
		if r := c.Do(apitest.Request{Method: "GET", Path: sfx, Header: map[string]string{"Authorization": tok}}); r.Status != 403 {
			t.Errorf("sfx filters with %q: %d", tok, r.Status)
		}
	}
	r = c.Do(apitest.Request{Method: "GET", Path: sfx, Header: map[string]string{"Authorization": "Bearer " + creds.Partner.Key}})
	if r.Status != 200 {
		t.Fatalf("sfx filters: %d %s", r.Status, r.Body)
	}
	if m := r.Map(t); m["moods"] != nil || m["bpm"] != nil || len(m["genres"].(map[string]any)["values"].([]any)) != 2 {
		t.Errorf("sfx listing %v", m)
	}
}

func TestStreamAndWaveform(t *testing.T) {
	d, creds := newTestDeps(t)
	cat := publishTestCatalog(t, d)
	c := apitest.New(t, d.LocalHandler())
	tr := cat.Tracks()
	r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/stream/" + tr[0].ID + "/?type=track"})
	if r.Status != 302 {
		t.Fatalf("stream: %d %s", r.Status, r.Body)
	}
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil || !strings.Contains(loc.Path, "/_blob/") {
		t.Fatalf("Location %q", r.Header.Get("Location"))
	}
	srv, _ := url.Parse(c.Server.URL)
	loc.Host = srv.Host // the signed URL names the configured public base; the test server stands in for it
	req, _ := http.NewRequest("GET", loc.String(), nil)
	req.Header.Set("Range", "bytes=4-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || string(body) != "fake" {
		t.Errorf("ranged fetch of the signed URL: %d %q", resp.StatusCode, body)
	}
	for path, status := range map[string]int{
		"/api/v4/stream/" + tr[0].ID + "/?type=video":         400,
		"/api/v4/stream/" + tr[3].ID + "/":                    404, // enterprise-only, anonymous caller
		"/api/v4/stream/" + tr[2].ID + "/?type=soundfx":       403, // sound effects need an account with them
		"/api/v4/stream/" + tr[2].Stems[0].ID + "/?type=stem": 401, // stems need a key
	} {
		if r := c.Do(apitest.Request{Method: "GET", Path: path}); r.Status != status {
			t.Errorf("%s: %d, want %d", path, r.Status, status)
		}
	}
	key := map[string]string{"Authorization": "Bearer " + creds.Partner.Key}
	for path, status := range map[string]int{
		"/api/v4/stream/" + tr[2].ID + "/?type=soundfx":       404,
		"/api/v4/stream/" + tr[2].Stems[0].ID + "/?type=stem": 302,
		"/api/v4/stream/" + tr[3].ID + "/":                    302, // the enterprise key sees it
	} {
		if r := c.Do(apitest.Request{Method: "GET", Path: path, Header: key}); r.Status != status {
			t.Errorf("%s with a key: %d, want %d", path, r.Status, status)
		}
	}

	r = c.Do(apitest.Request{Method: "GET", Path: "/api/v4/music/waveforms/track/" + tr[0].ID + "/"})
	if m := r.Map(t); r.Status != 200 || m["samples_per_pixel"] != float64(256) || len(m["data"].([]any)) != 5 {
		t.Errorf("waveform: %d %s", r.Status, r.Body)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/music/waveforms/track/" + tr[1].ID + "/"}); r.Status != 202 {
		t.Errorf("waveform not yet stored: %d %s", r.Status, r.Body)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/music/waveforms/video/" + tr[0].ID + "/"}); r.Status != 400 {
		t.Errorf("bad audio type: %d", r.Status)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: "/api/v4/music/waveforms/soundfx/" + tr[0].ID + "/"}); r.Status != 404 {
		t.Errorf("track id as soundfx: %d", r.Status)
	}
}
