package app

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// gateZIPBuilds holds every build-zip task until the returned release is
// called, and counts the builds (not the mark-failed steps) that ran.
func gateZIPBuilds(t *testing.T, d *Deps) (release func(), builds *atomic.Int64) {
	t.Helper()
	gate := make(chan struct{})
	var once sync.Once
	builds = new(atomic.Int64)
	d.Workflows.Handle(downloads.FnBuildZIP, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		var t struct{ Failed bool }
		if json.Unmarshal(in, &t) == nil && !t.Failed {
			builds.Add(1)
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return d.Downloads.HandleTask(ctx, in)
	})
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	return release, builds
}

func waitWorkflows(t *testing.T, d *Deps) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.Workflows.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// wantPending checks a 202 {detail} of the ZIP flow.
func wantPending(t *testing.T, what string, r *apitest.Response) {
	t.Helper()
	if r.Status != 202 || r.Map(t)["detail"] != downloads.MsgPreparing || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%s: %d %s, want 202 {detail}", what, r.Status, r.Body)
	}
}

// TestDownloadZIPRows: the ZIP rows of §3.2/§4.4 over HTTP — 202 on the
// first request and while building (POST and GET share the build), 200
// {url} / 302 once built with the archive's name and type, the archive's
// entries equal to the renditions, counted downloads.
func TestDownloadZIPRows(t *testing.T) {
	f := newDownloadFixture(t)
	clientID, key := f.client(t, identity.PlanSubscriber, false, false)
	release, builds := gateZIPBuilds(t, f.d)
	tr := f.tracks[0]
	both := map[string]any{"type": "track", "format": []string{"wav", "MP3"}}
	wantPending(t, "first POST", f.post(tr.ID, key, both))
	wantPending(t, "repeated POST", f.post(tr.ID, key, both))
	wantPending(t, "GET of the same body", f.get(tr.ID, key, "type=track&fmt=mp3&fmt=wav"))
	release()
	waitWorkflows(t, f.d)
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds, want 1", n)
	}
	r := f.post(tr.ID, key, map[string]any{"type": "track", "format": []string{"mp3", "wav"}, "confirm_personal_use": true})
	if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("built: %d %s", r.Status, r.Body)
	}
	resp, body := f.fetch(t, r.Map(t)["url"].(string))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("archive: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err != nil || params["filename"] != "Zoë Keating - Café Ünïcode_ Part 1_2.zip" {
		t.Errorf("Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"Zoë Keating - Café Ünïcode_ Part 1_2.mp3": f.bytes[tr.Audio.MP3Key], "Zoë Keating - Café Ünïcode_ Part 1_2.wav": f.bytes[tr.Audio.WAVKey]}
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		got, err := io.ReadAll(rc)
		rc.Close()
		switch {
		case zf.Name == downloads.LicenseFile:
			if !strings.Contains(string(got), "Café Ünïcode: Part 1/2") {
				t.Errorf("LICENSE.txt %q", got)
			}
		case err != nil || zf.Method != zip.Store || !bytes.Equal(got, want[zf.Name]):
			t.Errorf("entry %q: method %d, %v, %q", zf.Name, zf.Method, err, got)
		}
		delete(want, zf.Name)
	}
	if len(want) != 0 || len(zr.File) != 3 {
		t.Errorf("entries missing: %v (%d entries)", want, len(zr.File))
	}
	g := f.get(tr.ID, key, "type=track&fmt=wav&fmt=mp3")
	if g.Status != 302 || !strings.Contains(g.Header.Get("Location"), "/_blob/"+downloads.ZIPPrefix) {
		t.Fatalf("GET built: %d %v", g.Status, g.Header)
	}
	// Stems are another body, so another build.
	wantPending(t, "stems", f.get(tr.ID, key, "type=track&include_stems=true"))
	waitWorkflows(t, f.d)
	s := f.post(tr.ID, key, map[string]any{"type": "track", "include_stems": true})
	if s.Status != 200 || builds.Load() != 2 {
		t.Fatalf("stems built: %d %s, %d builds", s.Status, s.Body, builds.Load())
	}
	_, body = f.fetch(t, s.Map(t)["url"].(string))
	zr, err = zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil || len(zr.File) != 3 || zr.File[1].Name != "Stems/Zoë Keating - Café Ünïcode_ Part 1_2 - Drums.mp3" {
		t.Fatalf("stems archive: %v %v", err, zr.File)
	}
	rows, err := f.d.Downloads.Report(context.Background(), clientID, f.d.Clock.Now().UTC().Format("2006-01"))
	if err != nil || len(rows) != 1 || rows[0].Downloads != 3 || rows[0].ZIP != 3 || rows[0].MP3 != 3 || rows[0].WAV != 2 || rows[0].PersonalUseConfirmed != 1 {
		t.Errorf("counts: %+v %v", rows, err)
	}
}

// TestDownloadZIPConcurrentFirstRequests: 30 concurrent identical first
// requests all get 202 and start exactly one build.
func TestDownloadZIPConcurrentFirstRequests(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanEnterprise, true, true)
	release, builds := gateZIPBuilds(t, f.d)
	var wg sync.WaitGroup
	res := make(chan *apitest.Response, 30)
	for i := range 30 {
		wg.Go(func() {
			if i%2 == 0 {
				res <- f.post(f.tracks[2].ID, key, map[string]any{"type": "track", "include_stems": true, "format": []string{"mp3", "wav"}})
			} else {
				res <- f.get(f.tracks[2].ID, key, "type=track&include_stems=true&fmt=wav&fmt=mp3")
			}
		})
	}
	wg.Wait()
	close(res)
	for r := range res {
		wantPending(t, "concurrent first request", r)
	}
	release()
	waitWorkflows(t, f.d)
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds started by 30 identical requests, want 1", n)
	}
	if r := f.post(f.tracks[2].ID, key, map[string]any{"type": "track", "include_stems": true, "format": []string{"wav", "mp3"}}); r.Status != 200 {
		t.Fatalf("built: %d %s", r.Status, r.Body)
	}
}

// TestDownloadZIPFailedBuild: a missing source ends the build failed; the
// next identical request answers 500 {detail} once, the one after starts
// a fresh build (202), which succeeds once the source is back.
func TestDownloadZIPFailedBuild(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanEnterprise, true, true)
	ctx := context.Background()
	tr := f.tracks[2]
	gone := tr.Stems[0].Audio.WAVKey
	if err := f.d.Blob.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"type": "track", "include_stems": true, "format": []string{"mp3", "wav"}}
	wantPending(t, "first", f.post(tr.ID, key, body))
	waitWorkflows(t, f.d)
	r := f.post(tr.ID, key, body)
	if d, _ := r.Map(t)["detail"].(string); r.Status != 500 || !strings.Contains(d, "missing") || !strings.Contains(d, "Repeat the request") {
		t.Fatalf("after the failed build: %d %s", r.Status, r.Body)
	}
	if err := f.d.Blob.Put(ctx, gone, bytes.NewReader(f.bytes[gone]), -1, "audio/wav"); err != nil {
		t.Fatal(err)
	}
	wantPending(t, "rebuild", f.get(tr.ID, key, "type=track&include_stems=true&fmt=mp3&fmt=wav"))
	waitWorkflows(t, f.d)
	if r := f.post(tr.ID, key, body); r.Status != 200 {
		t.Fatalf("rebuilt: %d %s", r.Status, r.Body)
	}
}

// TestDownloadZIPPlanRules: the plan rules of §5 and the 400/404 rows
// apply to ZIP requests before any build starts.
func TestDownloadZIPPlanRules(t *testing.T) {
	f := newDownloadFixture(t)
	_, builds := gateZIPBuilds(t, f.d)
	_, free := f.client(t, identity.PlanFree, true, true)
	_, sub := f.client(t, identity.PlanSubscriber, false, true)
	_, entNo := f.client(t, identity.PlanEnterprise, false, true)
	_, ent := f.client(t, identity.PlanEnterprise, true, false)
	both := map[string]any{"type": "track", "format": []string{"mp3", "wav"}}
	stems := map[string]any{"type": "track", "include_stems": true}
	for _, c := range []struct {
		name   string
		r      *apitest.Response
		status int
	}{
		{"free plan", f.post(f.tracks[0].ID, free, both), 403},
		{"enterprise without downloads", f.post(f.tracks[0].ID, entNo, stems), 403},
		{"subscriber, enterprise-only track", f.post(f.tracks[2].ID, sub, stems), 403},
		{"subscriber, enterprise-only track, GET", f.get(f.tracks[2].ID, sub, "type=track&fmt=mp3&fmt=wav"), 403},
		{"sound effects not enabled", f.post(f.sfx.ID, ent, map[string]any{"type": "soundfx", "format": []string{"mp3", "wav"}}), 403},
		{"include_stems on a stem", f.post(f.tracks[0].Stems[0].ID, ent, map[string]any{"type": "stem", "include_stems": true}), 400},
		{"missing asset", f.post("00000000-0000-4000-8000-000000000000", ent, both), 404},
		{"no token", f.post(f.tracks[0].ID, "", both), 401},
	} {
		if c.r.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, c.r.Status, c.r.Body, c.status)
		}
	}
	waitWorkflows(t, f.d)
	if n := builds.Load(); n != 0 {
		t.Errorf("refused requests started %d builds", n)
	}
}

// TestZIPLifecycleRule: the bucket expires archives under
// downloads.ZIPPrefix after downloads.ZIPRetention, as the devserver's
// sweep and the build records do.
func TestZIPLifecycleRule(t *testing.T) {
	tpl := loadTemplate(t)
	rules := get(get(tpl.props("MediaBucket"), "LifecycleConfiguration"), "Rules")
	if rules == nil {
		t.Fatal("MediaBucket has no lifecycle rules")
	}
	for _, r := range rules.Content {
		if p := get(r, "Prefix"); p != nil && p.Value == downloads.ZIPPrefix {
			want := fmt.Sprint(int(downloads.ZIPRetention / (24 * time.Hour)))
			if d := get(r, "ExpirationInDays"); d == nil || d.Value != want || get(r, "Status").Value != "Enabled" {
				t.Errorf("rule on %s: %v days, want %s", downloads.ZIPPrefix, d, want)
			}
			return
		}
	}
	t.Errorf("no lifecycle rule on %s", downloads.ZIPPrefix)
}
