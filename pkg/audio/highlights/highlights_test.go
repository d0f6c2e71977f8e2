package highlights_test

import (
	"context"
	"os"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/highlights"
)

const rate = audio.DefaultSampleRate

// inChorus is the share of r that lies in chorus sections.
func inChorus(r highlights.Region, secs []audiotest.Section) float64 {
	var in float64
	for _, s := range secs {
		if s.Name != "chorus" {
			continue
		}
		a, b := max(r.Offset, s.Start), min(r.Offset+r.Duration, s.Start+s.Seconds)
		if b > a {
			in += b - a
		}
	}
	return in / r.Duration
}

func TestChorusIsTheHighlight(t *testing.T) {
	for seed := range uint64(3) {
		p, secs := audiotest.Song(rate, 16, seed+1)
		rs := highlights.Find(p, highlights.Options{Duration: 12})
		if len(rs) == 0 {
			t.Fatal("no highlights")
		}
		if f := inChorus(rs[0], secs); f < 0.75 {
			t.Errorf("seed %d: strongest highlight %+v is only %.0f%% chorus", seed, rs[0], 100*f)
		}
		for i := 1; i < len(rs); i++ {
			if rs[i].Score > rs[i-1].Score {
				t.Errorf("not strongest first: %+v", rs)
			}
		}
	}
}

func TestWindow(t *testing.T) {
	p, secs := audiotest.Song(rate, 16, 7)
	// A window over verse 2 and chorus 2 (32–64 s).
	rs := highlights.Find(p, highlights.Options{TimeOffset: 30, TimeLimit: 36, Duration: 10, Max: 2})
	if len(rs) == 0 {
		t.Fatal("no highlights in the window")
	}
	for _, r := range rs {
		if r.Offset < 30 || r.Offset+r.Duration > 66 {
			t.Errorf("region %+v leaves the window", r)
		}
	}
	if f := inChorus(rs[0], secs); f < 0.75 {
		t.Errorf("strongest %+v only %.0f%% chorus", rs[0], 100*f)
	}
	// A window shorter than the duration yields one region filling it.
	rs = highlights.Find(p, highlights.Options{TimeOffset: 10, TimeLimit: 5, Duration: 10})
	if len(rs) != 1 || rs[0].Offset != 10 || rs[0].Duration != 5 {
		t.Errorf("short window: %+v", rs)
	}
}

func TestRealTrack(t *testing.T) {
	const path = "/usr/share/games/wesnoth/1.16/data/core/music/knolls.ogg"
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wesnoth-1.16-music is not installed")
		}
		t.Skip("wesnoth-1.16-music is not installed")
	}
	p, err := decode.Decoder{}.DecodeWindow(context.Background(), path, 0, 90)
	if err != nil {
		t.Fatal(err)
	}
	rs := highlights.Find(p, highlights.Options{})
	if len(rs) == 0 {
		t.Fatal("no highlights")
	}
	t.Logf("knolls: %+v", rs)
}
