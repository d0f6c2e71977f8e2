package dsp

import (
	"math"

	"musiccatalog/pkg/audio"
)

const (
	resampleTaps   = 16  // one-sided kernel length in input samples at unit cutoff
	resamplePhases = 256 // kernel table resolution per input sample
)

// Resample converts p to rate with a Kaiser-windowed sinc whose cutoff sits
// below the lower Nyquist frequency, so downsampling does not alias.
func Resample(p audio.PCM, rate int) audio.PCM {
	if p.Rate == rate || len(p.Samples) == 0 || rate <= 0 {
		return audio.PCM{Samples: p.Samples, Rate: max(rate, p.Rate)}
	}
	ratio := float64(rate) / float64(p.Rate)
	cutoff := min(1.0, ratio) * 0.95
	half := int(math.Ceil(resampleTaps / cutoff))
	table := sincTable(half, cutoff)
	n := int(float64(len(p.Samples)) * ratio)
	out := make([]float32, n)
	in := p.Samples
	step := 1 / ratio
	for i := range out {
		t := float64(i) * step
		c := int(t)
		frac := t - float64(c)
		var acc float64
		for j := -half + 1; j <= half; j++ {
			k := c + j
			if k < 0 || k >= len(in) {
				continue
			}
			x := (float64(j) - frac) * resamplePhases
			idx := int(math.Abs(x))
			if idx >= len(table)-1 {
				continue
			}
			acc += float64(in[k]) * table[idx]
		}
		out[i] = float32(acc)
	}
	return audio.PCM{Samples: out, Rate: rate}
}

func sincTable(half int, cutoff float64) []float64 {
	const beta = 8.0
	n := half*resamplePhases + 2
	t := make([]float64, n)
	i0b := besselI0(beta)
	for i := range t {
		x := float64(i) / resamplePhases
		r := x / float64(half)
		if r > 1 {
			continue
		}
		w := besselI0(beta*math.Sqrt(1-r*r)) / i0b
		arg := math.Pi * cutoff * x
		s := cutoff
		if arg != 0 {
			s = cutoff * math.Sin(arg) / arg
		}
		t[i] = s * w
	}
	return t
}

func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}
