package search

import (
	"context"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/cputime"
)

// benchQueries are natural-language requests of the shapes partners send,
// cycled through by the latency benchmarks.
var benchQueries = []string{
	"chill lo-fi beats for studying", "epic trailer music", "fast rock with female vocals", "slow sad piano",
	"120 bpm house", "instrumental jazz for a restaurant", "happy upbeat corporate presentation", "dark tense suspense",
	"romantic acoustic wedding song", "aggressive trap 140 bpm", "dreamy synthwave night drive", "peaceful meditation without drums",
	"energetic workout music no vocals", "mysterious ambient drone", "playful swing comedy", "hopeful inspiring piano for a charity video",
	"punk skateboarding", "calm documentary nature", "bossa nova summer beach", "melancholic singer-songwriter male vocals",
}

func BenchmarkByText10kDomain(b *testing.B) {
	ix := demoIndex(b, 10_000)
	ctx := context.Background()
	i := 0
	var cpu time.Duration
	for b.Loop() {
		if i == 0 {
			cpu = cputime.Self()
		}
		if _, err := ix.ByText(ctx, benchQueries[i%len(benchQueries)], Options{Limit: 20}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	// Process CPU (GC included), which a loaded machine does not inflate
	// as it does the wall time of ns/op.
	b.ReportMetric(float64((cputime.Self()-cpu).Nanoseconds())/1000/float64(i), "cpu-µs/op")
}

// benchByTextCold runs ByText on a 10k-track index over texts in turn,
// with the concept cache emptied before every request.
func benchByTextCold(b *testing.B, texts []string) {
	ix := demoIndex(b, 10_000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		ix.text.mu.Lock()
		clear(ix.text.cache)
		ix.text.cached = 0
		ix.text.mu.Unlock()
		if _, err := ix.ByText(ctx, texts[i%len(texts)], Options{Limit: 20}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkByText10kColdDomain is the same with the concept cache emptied
// before every request: what a request made only of words nobody asked
// for since the snapshot was indexed costs.
func BenchmarkByText10kColdDomain(b *testing.B) {
	benchByTextCold(b, benchQueries)
}

// hostileWords are single long words of the kind that made fuzzy matching
// expensive (or fail: bleve's automaton for "cd"*300 has too many states).
var hostileWords = []string{strings.Repeat("q", 999), strings.Repeat("cd", 300), strings.Repeat("abcdefghij", 99),
	strings.Repeat("zqxwv", 60), strings.Repeat("ab", 25)}

// BenchmarkByTextHostileWordCold is one request of one long word, with
// the concept cache emptied before every request (a client varying the
// word defeats the cache): the CPU one such request costs.
func BenchmarkByTextHostileWordCold(b *testing.B) {
	benchByTextCold(b, hostileWords)
}

// manyUnknownWords is a request of as many unknown words as a request
// keeps (maxGroups), each as long as a word is still spell-corrected:
// the most near-spelling work one request can ask for.
func manyUnknownWords() string {
	words := make([]string, maxGroups)
	for i := range words {
		w := make([]byte, maxCorrectRunes)
		for j := range w {
			w[j] = byte('a' + (i*7+j*j*3+j)%26)
		}
		words[i] = string(w)
	}
	return strings.Join(words, " ")
}

// BenchmarkByTextManyUnknownWordsCold: manyUnknownWords, cache emptied
// before every request.
func BenchmarkByTextManyUnknownWordsCold(b *testing.B) {
	benchByTextCold(b, []string{manyUnknownWords()})
}
