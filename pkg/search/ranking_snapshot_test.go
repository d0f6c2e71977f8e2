package search

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/searchtest"
)

// rankingQueries are the requests the fast paths are checked on: both
// judged sets' texts, the latency benchmarks' requests, a few edge cases
// and n random requests made of their words (with typos, negations,
// tempos and lengths among them).
func rankingQueries(n int) []string {
	var out, pool []string
	for _, set := range [][]judged{judgedQueries, tuningQueries} {
		for _, j := range set {
			out = append(out, j.text)
			pool = append(pool, strings.Fields(j.text)...)
		}
	}
	out = append(out, benchQueries...)
	for _, q := range benchQueries {
		pool = append(pool, strings.Fields(q)...)
	}
	out = append(out, "music", "no vocals", "without drums", "jazz without piano", "120 bpm", "female vocals",
		"vocals", "30 second rock", "romantik piano", "epic orchestrall trailer", "a", "zzzz qqqq")
	pool = append(pool, "romantik", "epik", "orchestrall", "no", "without", "vocals", "drums", "120 bpm", "fast",
		"slow", "bedtime", "rainy", "funeral", "wedding", "zxqv", "lofi", "hip-hop", "r&b", "music", "songs",
		"30 second", "short", "instrumental", "male vocals", "duet")
	r := rand.New(rand.NewPCG(15, 16))
	for range n {
		ws := make([]string, 1+r.IntN(6))
		for j := range ws {
			ws[j] = pool[r.IntN(len(pool))]
		}
		out = append(out, strings.Join(ws, " "))
	}
	return out
}

// rankingSnapshotEnv names a file TestRankingSnapshot writes (when it
// does not exist) or compares with (when it does): every ranked page of
// rankingQueries over the demo catalog and a 10k-track one, ids and
// scores, so that a change meant to leave the ranking alone (a speed-up)
// can be checked against the ranking before it, request by request.
//
//	SEARCH_RANKING_SNAPSHOT=/tmp/before.txt go test ./pkg/search/ -run RankingSnapshot
const rankingSnapshotEnv = "SEARCH_RANKING_SNAPSHOT"

func TestRankingSnapshot(t *testing.T) {
	path := os.Getenv(rankingSnapshotEnv)
	if path == "" {
		t.Skip(rankingSnapshotEnv + " not set")
	}
	var b strings.Builder
	page := func(name string, ix *Index, qs []string, opts ...Options) {
		for qi, q := range qs {
			o := opts[qi%len(opts)]
			res, err := ix.ByText(t.Context(), q, o)
			fmt.Fprintf(&b, "%s %d %q", name, qi, q)
			if err != nil {
				fmt.Fprintf(&b, " error %v\n", err)
				continue
			}
			fmt.Fprintf(&b, " total=%d", res.Total)
			for _, h := range res.Hits {
				fmt.Fprintf(&b, " %s:%x", h.Track.ID, math.Float64bits(h.Score))
			}
			b.WriteByte('\n')
		}
	}
	rock := Filters{Genres: []string{"rock", "pop", "jazz"}}
	qs := rankingQueries(400)
	page("demo", demoIndex(t, demo.DefaultTracks), qs,
		Options{Plan: "enterprise", Limit: 10}, Options{Plan: "enterprise", Limit: 100}, Options{Limit: 20, Offset: 20, Plan: "free"})
	cat, err := catalog.New(searchtest.DemoContents(t, 10_000, 11, false))
	if err != nil {
		t.Fatal(err)
	}
	big, err := NewIndex(cat)
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	page("10k", big, qs, Options{Limit: 20}, Options{Limit: 20, Filters: rock}, Options{Limit: 50, Plan: "free"}, Options{Limit: 10, Offset: 30})
	before, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	was, now := bufio.NewScanner(strings.NewReader(string(before))), bufio.NewScanner(strings.NewReader(b.String()))
	was.Buffer(nil, 1<<20)
	now.Buffer(nil, 1<<20)
	diff := 0
	for now.Scan() {
		if !was.Scan() || was.Text() != now.Text() {
			if diff++; diff <= 5 {
				t.Errorf("differs from %s:\n now %.300s\n was %.300s", path, now.Text(), was.Text())
			}
		}
	}
	if was.Scan() || diff > 0 {
		t.Errorf("%d pages differ (or the snapshot is longer)", diff)
	}
}
