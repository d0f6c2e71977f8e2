package waveform_test

import (
	"encoding/json"
	"strings"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/waveform"
)

func TestComputeTracksLoudness(t *testing.T) {
	// One second of a half-scale tone, then one second of silence.
	loud := audiotest.Tone(1000, 1, 50, 0.5)
	p := audiotest.Concat(loud, audiotest.Silence(1000, 1))
	w := waveform.Compute(p, 100)
	if w.Length != 20 || len(w.Data) != 40 || w.SampleRate != 1000 || w.SamplesPerPixel != 100 || w.Version != waveform.Version {
		t.Fatalf("shape: length %d, data %d, rate %d, spp %d, version %d", w.Length, len(w.Data), w.SampleRate, w.SamplesPerPixel, w.Version)
	}
	for px := range 20 {
		lo, hi := w.Data[2*px], w.Data[2*px+1]
		if px < 10 && (lo > -63 || lo < -65 || hi < 63 || hi > 65) {
			t.Errorf("pixel %d of the tone: (%d, %d), want about (-64, 64)", px, lo, hi)
		}
		if px >= 10 && (lo != 0 || hi != 0) {
			t.Errorf("pixel %d of silence: (%d, %d)", px, lo, hi)
		}
	}
}

func TestComputeEdges(t *testing.T) {
	// A partial last pixel, full scale clipping, and a tiny value that must not vanish.
	p := audio.PCM{Samples: []float32{1, -1, 0.001, 0, 0}, Rate: 8000}
	w := waveform.Compute(p, 2)
	want := []int8{-128, 127, 0, 1, 0, 0}
	if w.Length != 3 || len(w.Data) != len(want) {
		t.Fatalf("length %d data %v", w.Length, w.Data)
	}
	for i := range want {
		if w.Data[i] != want[i] {
			t.Fatalf("data %v, want %v", w.Data, want)
		}
	}
	if w := waveform.Compute(p, 0); w.SamplesPerPixel != waveform.DefaultSamplesPerPixel || w.Length != 1 {
		t.Fatalf("default spp: %+v", w)
	}
	if w := waveform.Compute(audio.PCM{Rate: 8000}, 10); w.Length != 0 || len(w.Data) != 0 {
		t.Fatalf("empty audio: %+v", w)
	}
}

func TestJSONShape(t *testing.T) {
	b, err := json.Marshal(waveform.Compute(audio.PCM{Samples: []float32{0.5, -0.25}, Rate: 11025}, 512))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":[-32,64],"length":1,"sample_rate":11025,"samples_per_pixel":512,"version":1}`
	if strings.TrimSpace(string(b)) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}
