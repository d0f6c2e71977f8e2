package search

import (
	"context"
	"testing"
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
	for b.Loop() {
		if _, err := ix.ByText(ctx, benchQueries[i%len(benchQueries)], Options{Limit: 20}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkByText10kColdDomain is the same with the concept cache emptied
// before every request: what a request made only of words nobody asked
// for since the snapshot was indexed costs.
func BenchmarkByText10kColdDomain(b *testing.B) {
	ix := demoIndex(b, 10_000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		ix.text.mu.Lock()
		clear(ix.text.cache)
		ix.text.cached = 0
		ix.text.mu.Unlock()
		if _, err := ix.ByText(ctx, benchQueries[i%len(benchQueries)], Options{Limit: 20}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
