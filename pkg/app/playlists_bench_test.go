package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"musiccatalog/pkg/cputime"
	"net/http"
	"testing"
	"time"

	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/identity"
)

// BenchmarkPlaylistAdd measures POST /api/v4/me/playlists/{slug}/tracks/
// (action add, one new track per request) on the devserver wiring under
// 32 concurrent clients over loopback HTTP: 32 users, each adding to their
// own playlist. Target (issue 10): p99 ≤ 10 ms on an idle 2-core machine.
// Run: go test -run '^$' -bench PlaylistAdd -benchtime 3200x ./pkg/app/
func BenchmarkPlaylistAdd(b *testing.B) {
	const clients = 32
	d, _ := newTestDeps(b, func(c *Config) { c.TokenCacheTTL = 10 * time.Second; c.RateAuth = 1 << 30 })
	perPlaylist := b.N/clients + 1
	cat := catalogtest.Publish(b, d.Blob, catalogtest.Contents(max(perPlaylist, 8), 1))
	ctx := context.Background()
	cl, _, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: "Bench", Plan: identity.PlanEnterprise})
	if err != nil {
		b.Fatal(err)
	}
	srv, client := loadServer(b, d)
	tokens := make([]string, clients)
	for i := range clients {
		_, tok, err := d.Identity.CreateUser(ctx, cl.ID, fmt.Sprintf("bench%d", i), "Bench")
		if err != nil {
			b.Fatal(err)
		}
		tokens[i] = tok
		req, _ := http.NewRequest("POST", srv.URL+"/api/v4/me/playlists/", bytes.NewReader([]byte(`{"name":"Bench"}`)))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 201 {
			b.Fatalf("create: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	tracks := cat.Tracks()
	add := func(i int) (int, error) {
		body, _ := json.Marshal(map[string]any{"action": "add", "tracks": []string{tracks[i/clients].ID}})
		req, _ := http.NewRequest("POST", srv.URL+"/api/v4/me/playlists/bench/tracks/", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tokens[i%clients])
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		var out struct{ Added int }
		err = json.NewDecoder(resp.Body).Decode(&out)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && out.Added != 1 {
			err = fmt.Errorf("added %d", out.Added)
		}
		return resp.StatusCode, err
	}
	cpu0 := cputime.Self()
	b.ResetTimer()
	runLoad(b, clients, add)
	// CPU per request (server and client side together) tells the cost
	// apart from the machine's load, which the latencies also carry.
	b.ReportMetric(float64((cputime.Self()-cpu0).Microseconds())/1000/float64(b.N), "cpu_ms/op")
}
