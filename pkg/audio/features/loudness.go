package features

import (
	"math"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
)

// EnergyHop is the spacing of the energy curve (the same as ChromaHop).
const EnergyHop = 0.5

// Loudness is integrated loudness after ITU-R BS.1770: K-weighting (a high
// shelf of +4 dB above ~1.7 kHz and a high-pass at ~38 Hz), mean square over
// 400-ms blocks every 100 ms, an absolute gate at −70 LUFS and a relative
// gate 10 LU under the ungated mean. Returns −70 for silence.
func Loudness(p audio.PCM) float64 {
	rate := float64(p.Rate)
	shelf := dsp.HighShelf(rate, 1681.97, 0.7071, 3.9998)
	hp := dsp.HighPass(rate, 38.135, 0.5003)
	block, step := int(0.4*rate), int(0.1*rate)
	sq := make([]float64, len(p.Samples)+1) // prefix sums of squares
	for i, v := range p.Samples {
		y := hp.Step(shelf.Step(float64(v)))
		sq[i+1] = sq[i] + y*y
	}
	var zs []float64
	for a := 0; a+block <= len(p.Samples); a += step {
		zs = append(zs, (sq[a+block]-sq[a])/float64(block))
	}
	lufs := func(z float64) float64 { return -0.691 + 10*math.Log10(z+1e-20) }
	gated := func(th float64) (float64, int) {
		var s float64
		n := 0
		for _, z := range zs {
			if lufs(z) > th {
				s += z
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return s / float64(n), n
	}
	m, n := gated(-70)
	if n == 0 {
		return -70
	}
	m2, n2 := gated(lufs(m) - 10)
	if n2 == 0 {
		return math.Round(lufs(m)*10) / 10
	}
	return math.Round(lufs(m2)*10) / 10
}

// EnergyCurve is the RMS level (dBFS, floored at −90) every EnergyHop seconds.
func EnergyCurve(p audio.PCM) []float64 {
	step := int(EnergyHop * float64(p.Rate))
	var out []float64
	for a := 0; a < len(p.Samples); a += step {
		w := p.Samples[a:min(a+step, len(p.Samples))]
		var s float64
		for _, v := range w {
			s += float64(v) * float64(v)
		}
		out = append(out, math.Max(-90, math.Round(db(s/float64(len(w)))*10)/10))
	}
	return out
}
