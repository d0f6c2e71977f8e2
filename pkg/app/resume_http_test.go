package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// TestDevserverRestartResumesAZIPBuild: a ZIP build whose execution was
// running when the devserver stopped is resumed by the next start
// (RecoverJobs, from the runner's journal) and built without any poll;
// the first request after the restart gets the archive. Before, only
// recognition jobs were recovered: the build stayed `building` until a
// poll more than workflow.StartGrace after its start restarted it.
func TestDevserverRestartResumesAZIPBuild(t *testing.T) {
	f := newDownloadFixture(t)
	_, key := f.client(t, identity.PlanSubscriber, false, false)
	gateZIPBuilds(t, f.d) // never released: the build is running when the process stops
	tr := f.tracks[0]
	body := map[string]any{"type": "track", "format": []string{"wav", "mp3"}}
	wantPending(t, "first POST", f.post(tr.ID, key, body))
	cfg := f.d.Config
	if err := f.d.Close(); err != nil {
		t.Fatal(err)
	}

	d, err := OpenLocal(cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.RecoverJobs(context.Background())
	waitWorkflows(t, d)
	f.d, f.c = d, apitest.New(t, d.LocalHandler())
	r := f.post(tr.ID, key, map[string]any{"type": "track", "format": []string{"wav", "mp3"}, "confirm_personal_use": true})
	if r.Status != 200 {
		t.Fatalf("first request after the restart: %d %s; want 200 with the archive built by the resumed execution", r.Status, r.Body)
	}
	if resp, _ := f.fetch(t, r.Map(t)["url"].(string)); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("archive: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
