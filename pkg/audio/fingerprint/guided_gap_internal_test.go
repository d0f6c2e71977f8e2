package fingerprint

import (
	"math"
	"math/rand/v2"
	"testing"

	"musiccatalog/pkg/audio"
)

// TestSplitGap: in a gap between two placed stretches, the earlier song's
// tail under a voice (1–3 above chance) is given back to it; a pause where
// neither plays moves nothing; where the later song is heard, the earlier
// one's resemblance does not claim it; the later song's weak start is
// given back to it; quiet blocks count nothing, on either side.
func TestSplitGap(t *testing.T) {
	cases := []struct {
		name         string
		early, late  []float64
		quietEarly   []int
		endA, startB int
		quietLate    []int
	}{
		{"the earlier song's tail under a voice",
			[]float64{1.7, 3.4, 2.9, 1.6, 1.9, 1.4, 1.9}, []float64{-0.8, -0.1, -0.6, -0.4, -0.3, -0.3, 0.0}, nil, 7, 7, nil},
		{"a pause between songs",
			[]float64{0.0, 1.4, 0.7, 1.9, -0.5, 0.2, -1.0, 0.3}, []float64{0.3, -0.5, 0.2, 0.1, -0.3, 0.4, 1.2, -0.2}, nil, 0, 8, nil},
		{"the later song's weak start",
			[]float64{0.4, -0.6, 0.9, 0.1, 0.8, 2.0, 0.3, -0.4}, []float64{-0.2, 0.5, 1.8, 2.2, 1.6, 2.4, 1.9, 2.1}, nil, 0, 2, nil},
		{"the earlier song resembles the later one where that plays",
			[]float64{2.9, 2.2, 2.6, 2.4, 2.5, 2.2, 2.4}, []float64{0.1, -0.4, 3.5, 4.1, 3.2, 3.8, 3.6}, nil, 2, 2, nil},
		{"a quiet tail tells nothing",
			[]float64{1.9, 2.4, 2.2, 2.0, guidedBar, guidedBar, guidedBar, guidedBar}, []float64{0, 0.2, -0.3, 0.1, -0.5, 0.3, 0.4, -0.1}, []int{4, 5, 6, 7}, 4, 8, nil},
		{"a quiet start of the later song tells nothing",
			[]float64{0.1, -0.4, 0.3, 0.2, -0.6, 0.0, 0.4, -0.2}, []float64{guidedBar, guidedBar, guidedBar, 3, 3, 3, 3, 3}, nil, 0, 3, []int{0, 1, 2}},
	}
	for _, c := range cases {
		early := blockPresence{z: c.early, quiet: make([]bool, len(c.early)), block: 1}
		for _, k := range c.quietEarly {
			early.quiet[k] = true
		}
		late := blockPresence{z: c.late, quiet: make([]bool, len(c.late)), block: 1}
		for _, k := range c.quietLate {
			late.quiet[k] = true
		}
		if a, b := splitGap(early, late); a != c.endA || b != c.startB {
			t.Errorf("%s: split at %d and %d, want %d and %d", c.name, a, b, c.endA, c.startB)
		}
	}
}

// TestLaterPresenceBeforeTheTrackStarts: a song played from its start
// inside the gap is measured from its first second on, with a reference
// that, as the WAV renditions do, has nothing before the track's start;
// the blocks before it are absent.
func TestLaterPresenceBeforeTheTrackStarts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	track := make([]float32, 10*SampleRate)
	for n := 0; n < len(track); n += SampleRate / 10 { // a new chord every 100 ms
		f1, f2 := 200+r.Float64()*1500, 200+r.Float64()*1500
		for i := n; i < min(n+SampleRate/10, len(track)); i++ {
			x := float64(i) / SampleRate
			track[i] = float32(0.3*math.Sin(2*math.Pi*f1*x) + 0.3*math.Sin(2*math.Pi*f2*x))
		}
	}
	query := make([]float32, 3*SampleRate, 11*SampleRate)
	for i := range query {
		query[i] = float32(0.05 * r.NormFloat64())
	}
	query = append(query, track[:8*SampleRate]...)
	src := func(from, seconds float64) (audio.PCM, error) {
		return audio.PCM{Samples: query, Rate: SampleRate}.Window(from, seconds), nil
	}
	ref := func(_ string, from, seconds float64) (audio.PCM, error) {
		if from < 0 {
			return audio.PCM{Rate: SampleRate}, nil // a rendition has nothing before the track
		}
		return audio.PCM{Samples: track, Rate: SampleRate}.Window(from, seconds), nil
	}
	b := Stretch{StartMs: 8000, EndMs: 11000, TrackID: "t", TrackOffsetMs: 5000}
	p, err := laterPresence(src, ref, b, 0, 8, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	before, after := math.Inf(-1), 0.0
	for k, z := range p.z {
		switch {
		case k < 12:
			before = max(before, z)
		case k >= 13:
			after += z / float64(len(p.z)-13)
		}
	}
	if len(p.z) < 30 || before > -guidedBar+1e-9 || after < 4 {
		t.Errorf("blocks %d, before the track at most %.1f (want %v), after it %.1f on average (want ≥ 4): %.1f", len(p.z), before, -guidedBar, after, p.z)
	}
}
