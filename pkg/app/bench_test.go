package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkDevserverAuthenticatedGET measures the devserver wiring under
// 32 concurrent clients doing a cheap authenticated GET (the allowlist of
// the demo partner) over real HTTP on loopback. It reports throughput and
// latency percentiles; targets (issue 2): ≥ 5,000 req/s, p99 ≤ 5 ms on the
// 2-core reference machine. Run: make bench.
func BenchmarkDevserverAuthenticatedGET(b *testing.B) {
	d, creds := newTestDeps(b, func(c *Config) { c.TokenCacheTTL = 10 * time.Second })
	srv := httptest.NewServer(d.LocalHandler())
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	client := &http.Client{Transport: tr}
	url := srv.URL + "/api/v4/allowlist/channels/"

	const clients = 32
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, b.N/clients+1)
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+creds.Partner.Key)
			for range work {
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
}
