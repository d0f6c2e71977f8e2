package audio_test

import (
	"math"
	"reflect"
	"testing"

	"musiccatalog/pkg/audio"
)

func TestWindow(t *testing.T) {
	p := audio.PCM{Samples: make([]float32, 1000), Rate: 100}
	if w := p.Window(2, 3); len(w.Samples) != 300 || w.Rate != 100 {
		t.Errorf("window: %d samples", len(w.Samples))
	}
	if w := p.Window(8, 5); len(w.Samples) != 200 {
		t.Errorf("clipped window: %d samples", len(w.Samples))
	}
	if w := p.Window(20, 1); len(w.Samples) != 0 {
		t.Errorf("past the end: %d samples", len(w.Samples))
	}
	if w := p.Window(1, -1); len(w.Samples) != 900 {
		t.Errorf("to the end: %d samples", len(w.Samples))
	}
}

func TestSubtract(t *testing.T) {
	r := audio.Range{StartMs: 0, EndMs: 100}
	got := r.Subtract([]audio.Range{{StartMs: -5, EndMs: 10}, {StartMs: 30, EndMs: 40}, {StartMs: 35, EndMs: 50}, {StartMs: 90, EndMs: 200}})
	want := []audio.Range{{StartMs: 10, EndMs: 30}, {StartMs: 50, EndMs: 90}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestSilences: a pause 60 dB under the music is silent, a voice-level
// or noise-level stretch and a pause shorter than asked are not.
func TestSilences(t *testing.T) {
	const rate = 1000
	var s []float32
	add := func(seconds, amp float64) {
		for i := range int(seconds * rate) {
			s = append(s, float32(amp*math.Sin(float64(i)*0.7)))
		}
	}
	add(10, 0.3)   // music
	add(3, 0.0003) // a pause, 60 dB under it
	add(5, 0.03)   // a soft passage, 20 dB under
	add(0.5, 0)    // a short gap
	add(10, 0.3)
	got := audio.Silences(audio.PCM{Samples: s, Rate: rate}, 1)
	if len(got) != 1 || got[0].StartMs != 10000 || got[0].EndMs != 13000 {
		t.Errorf("got %+v, want one silence 10000–13000 ms", got)
	}
}
