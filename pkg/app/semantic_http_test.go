package app

import (
	"slices"
	"testing"
)

// TestSearchByTextSituation: a situation named in none of the catalog's
// words reaches the tracks that fit it through the HTTP API (issue 15),
// and the explicit facets of the same request still filter exactly.
func TestSearchByTextSituation(t *testing.T) {
	_, _, _, c := searchFixture(t)
	quiet := []string{"Calm", "Peaceful", "Melancholic", "Dreamy", "Sad"}
	r, p := getPage(t, c, byText+q("text", "a rainy afternoon reading", "limit", "10"), "")
	if r.Status != 200 || len(p.Results) != 10 {
		t.Fatalf("by-text: %d %s", r.Status, r.Body)
	}
	fit := 0
	for _, tr := range p.Results {
		if slices.Contains(quiet, tr.Mood) || slices.Contains(quiet, tr.Mood2) {
			fit++
		}
	}
	if fit < 8 {
		t.Errorf("'a rainy afternoon reading': %d of 10 quiet tracks: %+v", fit, p.Results)
	}
	r, p = getPage(t, c, byText+q("text", "a rainy afternoon reading with no vocals", "limit", "100"), "")
	if r.Status != 200 || len(p.Results) == 0 {
		t.Fatalf("no vocals: %d %s", r.Status, r.Body)
	}
	for _, tr := range p.Results {
		if tr.Vocals != "" {
			t.Errorf("'no vocals' returned a sung track: %+v", tr)
		}
	}
	r, p = getPage(t, c, byText+q("text", "bedtime 70 bpm", "limit", "100"), "")
	if r.Status != 200 || len(p.Results) == 0 {
		t.Fatalf("bpm: %d %s", r.Status, r.Body)
	}
	for _, tr := range p.Results {
		if tr.Tempo < 65 || tr.Tempo > 75 {
			t.Errorf("'70 bpm' returned a track at %.0f BPM", tr.Tempo)
		}
	}
}
