package features

import (
	"math"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
)

// TestTempoIsMissingOnlyWithoutAPulse is the evidence for documenting a
// null tempo (infra/openapi.yaml, Track.tempo) rather than inventing one:
// the estimator reports a BPM for any audio with onsets, even for a bare
// tone or noise, and none only where nothing can be measured — digital
// silence, and audio too short for two beat periods at the slowest tempo
// (under about 2.5 s). A figure made up there would be a lie the tempo
// filters then believe.
func TestTempoIsMissingOnlyWithoutAPulse(t *testing.T) {
	const rate = 11025
	for name, tc := range map[string]struct {
		bpm  func() float64
		want float64 // 0: no tempo; else within 1 BPM
		any  bool    // some tempo, whatever it is
	}{
		"120 BPM clicks":   {bpm: func() float64 { b, _ := Tempo(audiotest.ClickTrack(rate, 20, 120, true)); return b }, want: 120},
		"a sustained tone": {bpm: func() float64 { b, _ := Tempo(audiotest.Tone(rate, 30, 220, 0.4)); return b }, any: true},
		"white noise":      {bpm: func() float64 { b, _ := Tempo(audiotest.WhiteNoise(rate, 30, 0.1, 1)); return b }, any: true},
		"silence":          {bpm: func() float64 { b, _ := Tempo(audiotest.Silence(rate, 30)); return b }},
		"two seconds":      {bpm: func() float64 { b, _ := Tempo(audiotest.ClickTrack(rate, 2, 120, true)); return b }},
	} {
		got := tc.bpm()
		switch {
		case tc.any && got <= 0:
			t.Errorf("%s: no tempo", name)
		case !tc.any && tc.want == 0 && got != 0:
			t.Errorf("%s: %g BPM, want none", name, got)
		case tc.want > 0 && math.Abs(got-tc.want) > 1:
			t.Errorf("%s: %g BPM, want %g", name, got, tc.want)
		}
	}
}
