package admin

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"strings"
	"testing"

	"musiccatalog/pkg/app"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/downloads"
)

func TestReportDownloadsCSV(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	out, errOut, code := run(t, "clients", "create", "--name", "Acme", "--plan", "enterprise", "--can-download", "--sfx")
	if code != 0 {
		t.Fatalf("clients create: %d %s", code, errOut)
	}
	clientID, key := field(t, out, "client_id"), field(t, out, "key")

	d, err := app.OpenLocal(app.Config{DataDir: dir}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cc := catalogtest.Contents(2, 1)
	cc.Tracks[1].Name = `Say "Hi", World`
	for _, k := range []string{cc.Tracks[0].Audio.MP3Key, cc.Tracks[1].Audio.WAVKey, cc.SoundFX[0].Audio.MP3Key} {
		if err := d.Blob.Put(ctx, k, strings.NewReader("audio"), -1, "audio/mpeg"); err != nil {
			t.Fatal(err)
		}
	}
	catalogtest.Publish(t, d.Blob, cc)
	p, err := d.Identity.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		id  string
		req downloads.Request
	}{
		{cc.Tracks[0].ID, downloads.Request{Type: "track", ConfirmPersonalUse: true}},
		{cc.Tracks[0].ID, downloads.Request{Type: "track"}},
		{cc.Tracks[1].ID, downloads.Request{Type: "track", Formats: []string{"wav"}}},
		{cc.SoundFX[0].ID, downloads.Request{Type: "soundfx"}},
	} {
		if _, err := d.Downloads.Audio(ctx, &p, r.id, r.req); err != nil {
			t.Fatal(err)
		}
	}
	month := d.Clock.Now().UTC().Format("2006-01")
	d.Close()

	out, errOut, code = run(t, "report", "downloads", "--client", clientID, "--month", month)
	if code != 0 {
		t.Fatalf("report: %d %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("CSV %q: %v", out, err)
	}
	got := map[string][]string{}
	for _, r := range recs[1:] {
		got[r[3]] = r
	}
	if strings.Join(recs[0], ",") != "month,client_id,asset_type,asset_id,name,downloads,mp3,wav,personal_use_confirmed,zip" || len(recs) != 4 {
		t.Fatalf("report %q", out)
	}
	for id, want := range map[string]string{
		cc.Tracks[0].ID:  month + "," + clientID + ",track," + cc.Tracks[0].ID + ",Track 0,2,2,0,1,0",
		cc.Tracks[1].ID:  month + "," + clientID + ",track," + cc.Tracks[1].ID + `,"Say ""Hi"", World",1,0,1,0,0`,
		cc.SoundFX[0].ID: month + "," + clientID + ",soundfx," + cc.SoundFX[0].ID + ",Effect 0,1,1,0,0,0",
	} {
		line := ""
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.Contains(l, id) {
				line = l
			}
		}
		if line != want || got[id] == nil {
			t.Errorf("line of %s: %q, want %q", id, line, want)
		}
	}
	// Another month is empty (header only); bad arguments are usage errors.
	if out, _, code = run(t, "report", "downloads", "--client", clientID, "--month", "1999-01"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("empty month: %d %q", code, out)
	}
	for _, args := range [][]string{{"--client", clientID}, {"--client", clientID, "--month", "2026-1"}, {"--month", month}} {
		if _, _, code := run(t, append([]string{"report", "downloads"}, args...)...); code != 2 {
			t.Errorf("report downloads %v: exit %d, want 2", args, code)
		}
	}
	if _, errOut, code := run(t, "report", "downloads", "--client", "nobody", "--month", month); code != 1 || !strings.Contains(errOut, "Client not found") {
		t.Errorf("unknown client: %d %q", code, errOut)
	}
}
