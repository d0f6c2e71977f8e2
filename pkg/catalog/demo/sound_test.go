package demo

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/catalog"
)

func TestSoundRendersAStyle(t *testing.T) {
	s := Sound{Style: "Bossa Nova", Seed: 7, BPM: 120, Tonic: 2, Seconds: 10, Energy: 0.5, Vocals: catalog.VocalsFemale}
	mix, err := s.Render()
	if err != nil {
		t.Fatal(err)
	}
	// 4 bars at 120 BPM (8 s, the 10 s asked for rounds to 4 bars) and the 1.2 s tail.
	if want := at(4*4*0.5 + 1.2); len(mix) != want {
		t.Fatalf("%d samples, want %d", len(mix), want)
	}
	var peak float64
	for _, v := range mix {
		peak = max(peak, math.Abs(float64(v)))
	}
	if peak == 0 || peak > 1 {
		t.Fatalf("peak %v", peak)
	}
	for _, bad := range []Sound{
		{Style: "Polka", BPM: 120, Seconds: 10},
		{Style: "House", BPM: 0, Seconds: 10},
		{Style: "House", BPM: 120, Tonic: 12, Seconds: 10},
		{Style: "House", BPM: 120, Seconds: 10, Energy: 2},
		{Style: "House", BPM: 120, Seconds: 10, Vocals: "choir"},
	} {
		if _, err := bad.Render(); err == nil {
			t.Errorf("%+v rendered", bad)
		}
	}
	dir := t.TempDir()
	if err := WriteSounds(t.Context(), dir, []string{"a/x.wav"}, []Sound{s}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a/x.wav")); err != nil || fi.Size() < int64(2*len(mix)) {
		t.Fatalf("written: %v %v", fi, err)
	}
	if err := WriteSounds(t.Context(), dir, []string{"y.wav"}, []Sound{{Style: "Polka", BPM: 1, Seconds: 1}}); err == nil {
		t.Error("a bad sound was written")
	}
}
