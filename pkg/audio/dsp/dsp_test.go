package dsp_test

import (
	"math"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/dsp"
)

// level is the power of freq in p, relative to a full-scale sine.
func level(t *testing.T, samples []float32, rate int, freq float64) float64 {
	t.Helper()
	s := dsp.NewSpectrum(4096)
	pow := make([]float32, s.Bins())
	s.Power(pow, samples[len(samples)/2-2048:])
	k := int(math.Round(freq * 4096 / float64(rate)))
	var m float32
	for i := max(0, k-2); i <= min(len(pow)-1, k+2); i++ {
		m = max(m, pow[i])
	}
	return 10 * math.Log10(float64(m)/(4096*4096/16))
}

func TestResampleKeepsPassbandAndRejectsAliases(t *testing.T) {
	// On a bin centre at both rates, so window scalloping is equal.
	const f = 44100.0 * 93 / 4096
	in := audiotest.Tone(44100, 1, f, 0.5)
	out := dsp.Resample(in, 11025)
	if out.Rate != 11025 || math.Abs(out.Seconds()-1) > 0.001 {
		t.Fatalf("rate %d, %.3f s", out.Rate, out.Seconds())
	}
	if d := level(t, out.Samples, 11025, f) - level(t, in.Samples, 44100, f); math.Abs(d) > 0.5 {
		t.Errorf("1 kHz changed level by %.2f dB", d)
	}
	// 9 kHz is above the new Nyquist; unfiltered it would fold to 2025 Hz.
	alias := dsp.Resample(audiotest.Tone(44100, 1, 9000, 0.5), 11025)
	if l := level(t, alias.Samples, 11025, 2025); l > -60 {
		t.Errorf("alias at %.1f dB", l)
	}
	up := dsp.Resample(audiotest.Tone(8000, 1, 440, 0.5), 11025)
	if l := level(t, up.Samples, 11025, 440); math.Abs(l-level(t, audiotest.Tone(11025, 1, 440, 0.5).Samples, 11025, 440)) > 0.5 {
		t.Errorf("upsampled 440 Hz at %.2f dB", l)
	}
}

func TestFrameCount(t *testing.T) {
	for _, c := range []struct{ n, size, hop, want int }{{0, 4, 2, 0}, {3, 4, 2, 1}, {4, 4, 2, 1}, {5, 4, 2, 2}, {8, 4, 2, 3}} {
		if got := dsp.FrameCount(c.n, c.size, c.hop); got != c.want {
			t.Errorf("FrameCount(%d,%d,%d) = %d, want %d", c.n, c.size, c.hop, got, c.want)
		}
	}
}
