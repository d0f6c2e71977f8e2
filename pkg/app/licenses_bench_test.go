package app

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/identity"
)

// BenchmarkLicenseGenerate measures POST /api/v1/licenses/generate on the
// devserver wiring (bbolt, real HTTP on loopback) under 32 concurrent
// clients, every request a new license (the full transaction: license,
// idempotency record, listings and counts, three quota counters).
// Target (issue 10): p99 ≤ 10 ms on an idle 2-core machine.
// Run: go test -run '^$' -bench BenchmarkLicenseGenerate -benchtime 3000x ./pkg/app/
func BenchmarkLicenseGenerate(b *testing.B) {
	d, _ := newTestDeps(b, func(c *Config) { c.TokenCacheTTL = 10 * time.Second })
	track := catalogtest.Publish(b, d.Blob, catalogtest.Contents(4, 0)).Tracks()[0].ID
	_, key, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "Bench", Plan: identity.PlanEnterprise,
		Scopes: []string{identity.ScopeLicenses}, Quotas: identity.Quotas{LicenseBurst: 1 << 40, LicenseDaily: 1 << 40, LicenseMonthly: 1 << 40}})
	if err != nil {
		b.Fatal(err)
	}
	srv, client := loadServer(b, d)
	body := []byte(`{"track_id":"` + track + `","project_name":"Benchmark"}`)
	post := func(i int) (int, error) {
		req, _ := http.NewRequest("POST", srv.URL+generatePath, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User-ID", fmt.Sprint("bench-user-", i))
		return statusOf(client.Do(req))
	}
	b.ResetTimer()
	runLoad(b, 32, post)
}
