package musicdetect

import (
	"math"
	"math/rand/v2"
	"testing"

	"musiccatalog/pkg/audio/dsp"
)

// TestSpectrumMatchesDSP: the detector's own FFT gives dsp.Spectrum's power
// spectrum – on noise with tones, for frames inside the samples and running
// off either end (zeros there), and for only the first bins.
func TestSpectrumMatchesDSP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	samples := make([]float32, 20000)
	for i := range samples {
		x := 0.3*math.Sin(2*math.Pi*440*float64(i)/11025) + 0.01*math.Sin(2*math.Pi*3001.7*float64(i)/11025)
		samples[i] = float32(x + 0.05*rng.NormFloat64())
	}
	for _, size := range []int{8, 16, 256, 512, 4096} {
		ref := dsp.NewSpectrum(size)
		want := make([]float32, ref.Bins())
		frame := make([]float32, size)
		s := newSpectrum(size)
		for _, a := range []int{-size / 2, -1, 0, 777, len(samples) - size, len(samples) - size/3} {
			clear(frame)
			copy(frame[max(0, -a):], samples[max(0, a):min(a+size, len(samples))])
			ref.Power(want, frame)
			for _, n := range []int{ref.Bins(), ref.Bins() * 2 / 3} {
				got := make([]float32, n)
				s.power(got, samples, a)
				top := float64(0)
				for _, v := range want {
					top = max(top, float64(v))
				}
				for k, v := range got {
					if d := math.Abs(float64(v) - float64(want[k])); d > 1e-6*float64(want[k])+1e-12*top {
						t.Fatalf("size %d, frame at %d, %d bins: bin %d power %g, dsp.Spectrum %g", size, a, n, k, v, want[k])
					}
				}
			}
		}
	}
}

func BenchmarkSpectrum(b *testing.B) {
	samples := make([]float32, 8192)
	for i := range samples {
		samples[i] = float32(math.Sin(float64(i) * 0.1))
	}
	s := newSpectrum(4096)
	dst := make([]float32, 2049)
	for range b.N {
		s.power(dst, samples, 1000)
	}
}
