package app

import (
	"math"
	"testing"
)

// TestRecognitionSpeedAndPitch: a catalog song played 5 % faster (tempo
// and pitch together) and one pitch-shifted two semitones up at its own
// tempo are named through the API, with the speed and shift on the
// segment and on the job's track (issue 16 item 2).
func TestRecognitionSpeedAndPitch(t *testing.T) {
	cases := []struct {
		name, filter string
		speed, semis float64 // 0 speed: the field is absent
	}{
		{"5% faster", "asetrate=46305,aresample=44100", 1.05, 12 * math.Log2(1.05)},
		{"2 semitones up", "rubberband=pitch=1.122462", 0, 2},
	}
	jobs := recognizeWesnothClips(t, cases[0].filter, cases[1].filter)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := jobs[i]
			segs, _ := job["segments"].([]any)
			track, _ := job["track"].(map[string]any)
			if track == nil || track["title"] != "Song 1" || len(segs) == 0 {
				t.Fatalf("track %v (segments %v)", track, segs)
			}
			for _, x := range []map[string]any{track, segs[0].(map[string]any)} {
				speed, hasSpeed := x["speed"].(float64)
				semis, _ := x["pitch_semitones"].(float64)
				if tc.speed == 0 && hasSpeed || tc.speed != 0 && math.Abs(speed-tc.speed) > 0.01 {
					t.Errorf("speed %v, want %v: %v", x["speed"], tc.speed, x)
				}
				if math.Abs(semis-tc.semis) > 0.2 {
					t.Errorf("pitch_semitones %v, want %.2f: %v", x["pitch_semitones"], tc.semis, x)
				}
			}
		})
	}
}
