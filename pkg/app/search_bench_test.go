package app

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"testing"
	"time"

	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/search/searchtest"
)

// searchBenchQueries makes n distinct natural-language requests from the
// vocabulary partners use (moods, styles, uses, tempo, vocals, negation),
// so the benchmark does not replay one cached request.
func searchBenchQueries(n int) []string {
	moods := []string{"chill", "epic", "happy", "sad", "dark", "dreamy", "uplifting", "tense", "romantic", "energetic", "calm", "playful", "mysterious", "aggressive", ""}
	styles := []string{"lo-fi", "rock", "jazz", "piano", "synthwave", "house", "orchestral", "acoustic", "hip hop", "ambient", "corporate", "folk", "techno", "trap", ""}
	uses := []string{"for studying", "for a trailer", "for a wedding", "for a vlog", "for gaming", "for a workout", "for a documentary", "for a party", ""}
	extra := []string{"fast", "slow", "120 bpm", "90-100 bpm", "with female vocals", "instrumental", "no vocals", "without drums", "30 second", ""}
	r := rand.New(rand.NewPCG(5, 6))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		q := fmt.Sprint(moods[r.IntN(len(moods))], " ", styles[r.IntN(len(styles))], " ", uses[r.IntN(len(uses))], " ", extra[r.IntN(len(extra))])
		if !seen[q] && len(q) > 5 {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

// BenchmarkSearchByText10k drives by-text through the devserver wiring
// over real HTTP on loopback: a 10k-track catalog (the demo catalog's
// metadata generator, no audio), 32 concurrent clients, 2,000 distinct
// requests with a genre filter on every fourth. It reports throughput,
// latency percentiles and the cold index build (what a fresh Lambda pays
// on its first search). Targets (issue 5): ≥ 1,000 req/s, p99 ≤ 20 ms.
//
//	go test -run '^$' -bench SearchByText10k -benchtime 20000x ./pkg/app/
func BenchmarkSearchByText10k(b *testing.B) {
	d, _ := newTestDeps(b, func(c *Config) { c.RateAnonymous, c.RateAuth = 0, 0 })
	catalogtest.Publish(b, d.Blob, searchtest.DemoContents(b, 10_000, 11, false))
	srv, client := loadServer(b, d)
	get := func(q string, i int) (int, error) {
		v := url.Values{"text": {q}}
		if i%4 == 0 {
			v.Set("genre__terms", "Rock__Pop__Jazz")
		}
		return statusOf(client.Get(srv.URL + "/api/v4/search/ai/by-text/?" + v.Encode()))
	}
	t0 := time.Now()
	if st, err := get("warm up the index", 1); err != nil || st != 200 {
		b.Fatalf("first search: %d %v", st, err)
	}
	build := time.Since(t0)
	queries := searchBenchQueries(2000)

	b.ResetTimer()
	runLoad(b, 32, func(i int) (int, error) { return get(queries[i%len(queries)], i) })
	b.ReportMetric(build.Seconds(), "s-first-search")
}
