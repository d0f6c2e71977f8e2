package app

import (
	"io"
	"musiccatalog/pkg/cputime"
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
	srv, client := loadServer(b, d)
	url := srv.URL + "/api/v4/allowlist/channels/"

	get := func(int) (int, error) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+creds.Partner.Key)
		return statusOf(client.Do(req))
	}
	b.ResetTimer()
	runLoad(b, 32, get)
}

// loadServer serves d's devserver wiring over loopback HTTP until the
// benchmark ends, with a client that keeps enough idle connections for 32
// concurrent clients.
func loadServer(b *testing.B, d *Deps) (*httptest.Server, *http.Client) {
	srv := httptest.NewServer(d.LocalHandler())
	b.Cleanup(srv.Close)
	return srv, &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

// statusOf is the status of a load request's response, its body drained
// and closed so that the connection is reused.
func statusOf(resp *http.Response, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// runLoad makes b.N requests from the given number of concurrent clients
// (do(i) makes request i and returns its status, which must be 200) and
// reports throughput and latency percentiles.
func runLoad(b *testing.B, clients int, do func(i int) (int, error)) {
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	work := make(chan int, b.N)
	for i := range b.N {
		work <- i
	}
	close(work)
	start, cpu0 := time.Now(), cputime.Total()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			local := make([]time.Duration, 0, b.N/clients+1)
			for i := range work {
				t0 := time.Now()
				st, err := do(i)
				if err != nil || st != 200 {
					b.Errorf("request %d: status %d: %v", i, st, err)
					return
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cputime.Total()-cpu0
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
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(max(len(lat), 1)), "cpu_ms/req")
}
