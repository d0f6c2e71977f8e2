package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// downloadFixture is a published catalog with stored renditions:
// tracks[0] (free, a stem, a Unicode title), tracks[1] (free, no renditions
// stored), tracks[2] (enterprise-only, a stem), sound effect 0.
type downloadFixture struct {
	d      *Deps
	c      *apitest.Client
	tracks []*catalog.Track
	sfx    *catalog.SoundFX
	bytes  map[string][]byte // blob key -> content
}

func newDownloadFixture(t *testing.T, edits ...func(*catalog.Contents)) *downloadFixture {
	t.Helper()
	d, _ := newTestDeps(t)
	cc := catalogtest.Contents(3, 1)
	cc.Tracks[0].Name, cc.Tracks[0].Artist.Name = "Café Ünïcode: Part 1/2", "Zoë Keating"
	cc.Tracks[2].AccessTier = catalog.TierEnterprise
	for _, edit := range edits {
		edit(&cc)
	}
	f := &downloadFixture{d: d, bytes: map[string][]byte{}}
	put := func(key, ct string) {
		body := []byte(fmt.Sprintf("%s bytes of %s", ct, key))
		if err := d.Blob.Put(context.Background(), key, bytes.NewReader(body), -1, ct); err != nil {
			t.Fatal(err)
		}
		f.bytes[key] = body
	}
	for _, a := range []catalog.AudioRef{cc.Tracks[0].Audio, cc.Tracks[0].Stems[0].Audio, cc.Tracks[2].Audio,
		cc.Tracks[2].Stems[0].Audio, cc.SoundFX[0].Audio} {
		put(a.MP3Key, "audio/mpeg")
		put(a.WAVKey, "audio/wav")
	}
	cat := catalogtest.Publish(t, d.Blob, cc)
	f.tracks, f.sfx = cat.Tracks(), cat.SoundFXs()[0]
	f.c = apitest.New(t, d.LocalHandler())
	return f
}

// client creates a partner client and returns its key.
func (f *downloadFixture) client(t *testing.T, plan identity.Plan, canDownload, sfx bool) (string, string) {
	t.Helper()
	c, key, err := f.d.Identity.CreateClient(context.Background(), identity.NewClient{Name: string(plan), Plan: plan, CanDownload: canDownload, SFXEnabled: sfx})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, key
}

func (f *downloadFixture) post(id, key string, body any) *apitest.Response {
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	return f.c.Do(apitest.Request{Method: "POST", Path: "/api/v4/download/audio/" + id + "/", Header: h, JSON: body})
}

func (f *downloadFixture) get(id, key, query string) *apitest.Response {
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	return f.c.Do(apitest.Request{Method: "GET", Path: "/api/v4/download/audio/" + id + "/?" + query, Header: h})
}

// fetch GETs a signed URL through the test server (the URL names the
// configured public base) and returns the response and its body.
func (f *downloadFixture) fetch(t *testing.T, raw string) (*http.Response, []byte) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || !strings.HasPrefix(u.Path, "/_blob/") {
		t.Fatalf("signed URL %q", raw)
	}
	srv, _ := url.Parse(f.c.Server.URL)
	u.Host = srv.Host
	resp, err := http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestDownloadAudioOneFormat(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanSubscriber, false, true)
	tr := f.tracks[0]
	for _, c := range []struct {
		format, key, contentType string
		body                     map[string]any
	}{
		{"mp3", tr.Audio.MP3Key, "audio/mpeg", map[string]any{"type": "track"}}, // format defaults to [mp3]
		{"mp3", tr.Audio.MP3Key, "audio/mpeg", map[string]any{"type": "track", "format": []string{"mp3", "mp3"}, "confirm_personal_use": true}},
		{"wav", tr.Audio.WAVKey, "audio/wav", map[string]any{"type": "track", "format": []string{"WAV"}, "include_stems": false}},
	} {
		r := f.post(tr.ID, key, c.body)
		if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("POST %v: %d %s", c.body, r.Status, r.Body)
		}
		resp, body := f.fetch(t, r.Map(t)["url"].(string))
		if resp.StatusCode != 200 || !bytes.Equal(body, f.bytes[c.key]) || resp.Header.Get("Content-Type") != c.contentType {
			t.Fatalf("signed URL of %v: %d %s %q", c.body, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		cd := resp.Header.Get("Content-Disposition")
		want := "Zoë Keating - Café Ünïcode_ Part 1_2." + c.format
		if _, params, err := mime.ParseMediaType(cd); err != nil || params["filename"] != want {
			t.Errorf("Content-Disposition %q: %v %v, want filename %q", cd, params, err, want)
		}
		if !strings.Contains(cd, `filename="Zoe Keating - Cafe Unicode_ Part 1_2.`+c.format+`"`) || !strings.Contains(cd, "filename*=UTF-8''Zo%C3%AB%20Keating") {
			t.Errorf("Content-Disposition %q lacks the ASCII fallback or the RFC 5987 name", cd)
		}
	}
	// The browser variant redirects; following it gives the bytes.
	r := f.get(tr.Stems[0].ID, key, "type=stem&fmt=wav&format=json")
	if r.Status != 302 || len(r.Body) != 0 {
		t.Fatalf("GET stem: %d %s", r.Status, r.Body)
	}
	resp, body := f.fetch(t, r.Header.Get("Location"))
	if resp.StatusCode != 200 || !bytes.Equal(body, f.bytes[tr.Stems[0].Audio.WAVKey]) || resp.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("followed GET: %d %q", resp.StatusCode, body)
	}
	if _, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); params["filename"] != "Zoë Keating - Café Ünïcode_ Part 1_2 - Drums.wav" {
		t.Errorf("stem file name %q", params["filename"])
	}
	r = f.get(f.sfx.ID, key, "type=soundfx")
	if resp, body := f.fetch(t, r.Header.Get("Location")); r.Status != 302 || !bytes.Equal(body, f.bytes[f.sfx.Audio.MP3Key]) ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), `filename="Effect 0.mp3"`) {
		t.Errorf("sound effect: %d %q %q", r.Status, body, resp.Header.Get("Content-Disposition"))
	}
	// A user token of the client downloads on its client's plan.
	clientID, _ := f.client(t, identity.PlanCommercial, false, false)
	_, userTok, err := f.d.Identity.CreateUser(context.Background(), clientID, "dl-user", "D L")
	if err != nil {
		t.Fatal(err)
	}
	if r := f.post(tr.ID, userTok, map[string]any{"type": "track"}); r.Status != 200 {
		t.Errorf("user token: %d %s", r.Status, r.Body)
	}
}

// TestDownloadAudioErrorRows covers every audio-download row of §7.2 and
// checks that none was counted (the ZIP rows are in zip_http_test.go).
func TestDownloadAudioErrorRows(t *testing.T) {
	f := newDownloadFixture(t)
	clientID, key := f.client(t, identity.PlanEnterprise, true, true)
	tr, stem := f.tracks[0], f.tracks[0].Stems[0]
	missing := "00000000-0000-4000-8000-000000000000"
	type row struct {
		name   string
		r      *apitest.Response
		status int
		field  string // the field the 400 names; "" for {detail}
	}
	rows := []row{
		{"type missing", f.post(tr.ID, key, map[string]any{}), 400, "type"},
		{"type invalid", f.post(tr.ID, key, map[string]any{"type": "video"}), 400, "type"},
		{"type not a string", f.post(tr.ID, key, map[string]any{"type": 3}), 400, "type"},
		{"unknown format", f.post(tr.ID, key, map[string]any{"type": "track", "format": []string{"mp3", "flac"}}), 400, "format"},
		{"format not a list", f.post(tr.ID, key, map[string]any{"type": "track", "format": "mp3"}), 400, "format"},
		{"empty format", f.post(tr.ID, key, map[string]any{"type": "track", "format": []string{}}), 400, "format"},
		{"include_stems on soundfx", f.post(f.sfx.ID, key, map[string]any{"type": "soundfx", "include_stems": true}), 400, "include_stems"},
		{"include_stems on stem", f.post(stem.ID, key, map[string]any{"type": "stem", "include_stems": true}), 400, "include_stems"},
		{"include_stems not a bool", f.post(tr.ID, key, map[string]any{"type": "track", "include_stems": "yes"}), 400, "include_stems"},
		{"GET type missing", f.get(tr.ID, key, ""), 400, "type"},
		{"GET unknown fmt", f.get(tr.ID, key, "type=track&fmt=ogg"), 400, "fmt"},
		{"GET include_stems on stem", f.get(stem.ID, key, "type=stem&include_stems=true"), 400, "include_stems"},
		{"GET include_stems not a bool", f.get(tr.ID, key, "type=track&include_stems=maybe"), 400, "include_stems"},
		{"no token", f.post(tr.ID, "", map[string]any{"type": "track"}), 401, ""},
		{"bad token", f.post(tr.ID, "mcat_nope", map[string]any{"type": "track"}), 401, ""},
		{"GET no token", f.get(tr.ID, "", "type=track"), 401, ""},
		{"missing asset", f.post(missing, key, map[string]any{"type": "track"}), 404, ""},
		{"malformed id", f.post("nope", key, map[string]any{"type": "track"}), 404, ""},
		{"type does not match (track id as stem)", f.post(tr.ID, key, map[string]any{"type": "stem"}), 404, ""},
		{"type does not match (stem id as track)", f.get(stem.ID, key, "type=track"), 404, ""},
		{"no rendition stored", f.post(f.tracks[1].ID, key, map[string]any{"type": "track"}), 404, ""},
		{"reserved format parameter", f.get(tr.ID, key, "type=track&format=mp3"), 404, ""},
	}
	for _, c := range rows {
		if c.r.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, c.r.Status, c.r.Body, c.status)
			continue
		}
		m := c.r.Map(t)
		if c.field != "" {
			if msgs, ok := m[c.field].([]any); !ok || len(msgs) == 0 || len(m) != 1 {
				t.Errorf("%s: body %s does not name %q alone", c.name, c.r.Body, c.field)
			}
		} else if d, _ := m["detail"].(string); d == "" {
			t.Errorf("%s: body %s has no detail", c.name, c.r.Body)
		}
	}
	// Every problem of a request is named at once.
	r := f.post(f.sfx.ID, key, map[string]any{"type": "soundfx", "format": []string{"aac"}, "include_stems": true})
	if m := r.Map(t); r.Status != 400 || m["format"] == nil || m["include_stems"] == nil {
		t.Errorf("several bad fields: %d %s", r.Status, r.Body)
	}
	if rows, err := f.d.Downloads.Report(context.Background(), clientID, f.d.Clock.Now().UTC().Format("2006-01")); err != nil || len(rows) != 0 {
		t.Errorf("refused requests were counted: %v %v", rows, err)
	}
}

// TestDownloadAudioPlans checks every plan cell of §5 on each kind of asset.
func TestDownloadAudioPlans(t *testing.T) {
	f := newDownloadFixture(t)
	type caller struct {
		name             string
		plan             identity.Plan
		canDownload, sfx bool
	}
	callers := []caller{
		{"free", identity.PlanFree, true, true},
		{"subscriber", identity.PlanSubscriber, false, false},
		{"subscriber+sfx", identity.PlanSubscriber, false, true},
		{"commercial", identity.PlanCommercial, false, false},
		{"commercial+sfx", identity.PlanCommercial, true, true},
		{"enterprise", identity.PlanEnterprise, true, false},
		{"enterprise+sfx", identity.PlanEnterprise, true, true},
		{"enterprise without downloads", identity.PlanEnterprise, false, true},
	}
	type asset struct{ name, kind, id string }
	assets := []asset{
		{"free track", "track", f.tracks[0].ID},
		{"stem of a free track", "stem", f.tracks[0].Stems[0].ID},
		{"enterprise track", "track", f.tracks[2].ID},
		{"stem of an enterprise track", "stem", f.tracks[2].Stems[0].ID},
		{"sound effect", "soundfx", f.sfx.ID},
	}
	want := map[string][]int{ // per caller, per asset in the order above
		"free":                         {403, 403, 403, 403, 403},
		"subscriber":                   {200, 200, 403, 403, 403},
		"subscriber+sfx":               {200, 200, 403, 403, 200},
		"commercial":                   {200, 200, 403, 403, 403},
		"commercial+sfx":               {200, 200, 403, 403, 200},
		"enterprise":                   {200, 200, 200, 200, 403},
		"enterprise+sfx":               {200, 200, 200, 200, 200},
		"enterprise without downloads": {403, 403, 403, 403, 403},
	}
	for _, c := range callers {
		_, key := f.client(t, c.plan, c.canDownload, c.sfx)
		for i, a := range assets {
			r := f.post(a.id, key, map[string]any{"type": a.kind})
			g := f.get(a.id, key, "type="+a.kind)
			wantGet := want[c.name][i]
			if wantGet == 200 {
				wantGet = 302
			}
			if r.Status != want[c.name][i] || g.Status != wantGet {
				t.Errorf("%s downloading %s: POST %d, GET %d; want %d, %d (%s)", c.name, a.name, r.Status, g.Status, want[c.name][i], wantGet, r.Body)
			}
		}
	}
	// The plan is checked before the asset: a free account learns nothing
	// of the catalog.
	_, free := f.client(t, identity.PlanFree, true, true)
	if r := f.post("00000000-0000-4000-8000-000000000000", free, map[string]any{"type": "track"}); r.Status != 403 {
		t.Errorf("free plan, missing asset: %d", r.Status)
	}
	// An inactive client is refused by authentication (403).
	id, key := f.client(t, identity.PlanEnterprise, true, true)
	if err := f.d.Identity.SetClientStatus(context.Background(), id, identity.StatusInactive); err != nil {
		t.Fatal(err)
	}
	if r := f.post(f.tracks[0].ID, key, map[string]any{"type": "track"}); r.Status != 403 {
		t.Errorf("inactive client: %d", r.Status)
	}
}

// TestDownloadCountsConcurrent downloads concurrently from two clients and
// checks that the counts per client, asset and format are exact.
func TestDownloadCountsConcurrent(t *testing.T) {
	f := newDownloadFixture(t)
	a, keyA := f.client(t, identity.PlanEnterprise, true, true)
	b, keyB := f.client(t, identity.PlanSubscriber, false, true)
	const n = 24
	var wg sync.WaitGroup
	statuses := make(chan int, 4*n+3)
	for i := range n {
		wg.Add(4)
		go func() {
			defer wg.Done()
			statuses <- f.post(f.tracks[0].ID, keyA, map[string]any{"type": "track", "confirm_personal_use": i%3 == 0}).Status
		}()
		go func() {
			defer wg.Done()
			statuses <- f.get(f.tracks[0].ID, keyA, "type=track&fmt=wav").Status
		}()
		go func() {
			defer wg.Done()
			statuses <- f.post(f.sfx.ID, keyB, map[string]any{"type": "soundfx", "format": []string{"wav"}}).Status
		}()
		go func() {
			defer wg.Done()
			statuses <- f.post(f.tracks[2].ID, keyB, map[string]any{"type": "track"}).Status // 403: not counted
		}()
	}
	// HEAD answers like GET and downloads nothing, so it is not counted.
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("HEAD", f.c.Server.URL+"/api/v4/download/audio/"+f.tracks[0].ID+"/?type=track", nil)
			req.Header.Set("Authorization", "Bearer "+keyA)
			resp, err := f.c.HTTP.Do(req) // not redirected
			if err != nil {
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 && s != 302 && s != 403 {
			t.Fatalf("status %d", s)
		}
	}
	month := f.d.Clock.Now().UTC().Format("2006-01")
	rowsA, err := f.d.Downloads.Report(context.Background(), a, month)
	if err != nil || len(rowsA) != 1 {
		t.Fatalf("client A report: %v %v", rowsA, err)
	}
	if r := rowsA[0]; r.AssetID != f.tracks[0].ID || r.AssetType != "track" || r.Downloads != 2*n || r.MP3 != n || r.WAV != n || r.PersonalUseConfirmed != n/3 {
		t.Errorf("client A counts %+v, want %d downloads (%d mp3, %d wav, %d confirmed)", r, 2*n, n, n, n/3)
	}
	rowsB, err := f.d.Downloads.Report(context.Background(), b, month)
	if err != nil || len(rowsB) != 1 || rowsB[0].AssetID != f.sfx.ID || rowsB[0].Downloads != n || rowsB[0].WAV != n || rowsB[0].MP3 != 0 {
		t.Errorf("client B report: %+v %v", rowsB, err)
	}
	if rows, _ := f.d.Downloads.Report(context.Background(), a, time.Now().AddDate(0, -1, 0).UTC().Format("2006-01")); len(rows) != 0 {
		t.Errorf("last month has counts: %v", rows)
	}
	if _, err := f.d.Downloads.Report(context.Background(), a, "2026-13"); err == nil {
		t.Error("a bad month was accepted")
	}
}
