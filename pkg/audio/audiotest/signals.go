package audiotest

import (
	"math"
	"math/rand/v2"

	"musiccatalog/pkg/audio"
)

func samples(rate int, seconds float64) []float32 {
	return make([]float32, int(math.Round(seconds*float64(rate))))
}

// Silence is digital silence.
func Silence(rate int, seconds float64) audio.PCM {
	return audio.PCM{Samples: samples(rate, seconds), Rate: rate}
}

// Tone is a sine at freq Hz with peak amplitude amp.
func Tone(rate int, seconds, freq, amp float64) audio.PCM {
	s := samples(rate, seconds)
	for i := range s {
		s[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return audio.PCM{Samples: s, Rate: rate}
}

// WhiteNoise is uniform noise with RMS rms.
func WhiteNoise(rate int, seconds, rms float64, seed uint64) audio.PCM {
	r := rand.New(rand.NewPCG(seed, 1))
	s := samples(rate, seconds)
	k := rms * math.Sqrt(3)
	for i := range s {
		s[i] = float32(k * (2*r.Float64() - 1))
	}
	return audio.PCM{Samples: s, Rate: rate}
}

// PinkNoise is 1/f noise (Paul Kellet's refined filter over white noise)
// scaled to RMS rms.
func PinkNoise(rate int, seconds, rms float64, seed uint64) audio.PCM {
	r := rand.New(rand.NewPCG(seed, 2))
	s := samples(rate, seconds)
	var b0, b1, b2, b3, b4, b5, b6 float64
	for i := range s {
		w := r.NormFloat64()
		b0 = 0.99886*b0 + w*0.0555179
		b1 = 0.99332*b1 + w*0.0750759
		b2 = 0.96900*b2 + w*0.1538520
		b3 = 0.86650*b3 + w*0.3104856
		b4 = 0.55000*b4 + w*0.5329522
		b5 = -0.7616*b5 - w*0.0168980
		s[i] = float32(b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362)
		b6 = w * 0.115926
	}
	p := audio.PCM{Samples: s, Rate: rate}
	Scale(p, rms/p.RMS())
	return p
}

// Scale multiplies p in place by gain.
func Scale(p audio.PCM, gain float64) {
	for i := range p.Samples {
		p.Samples[i] *= float32(gain)
	}
}

// MixSNR returns signal plus noise scaled so that the signal-to-noise ratio,
// measured on the RMS of the whole signal, is snrDB. noise must be at least
// as long as signal.
func MixSNR(signal, noise audio.PCM, snrDB float64) audio.PCM {
	g := 0.0
	if n := (audio.PCM{Samples: noise.Samples[:len(signal.Samples)], Rate: noise.Rate}).RMS(); n > 0 {
		g = signal.RMS() / n / math.Pow(10, snrDB/20)
	}
	out := make([]float32, len(signal.Samples))
	for i, v := range signal.Samples {
		out[i] = v + float32(g)*noise.Samples[i]
	}
	return audio.PCM{Samples: out, Rate: signal.Rate}
}

// Concat joins clips of the same rate.
func Concat(parts ...audio.PCM) audio.PCM {
	var out []float32
	rate := 0
	for _, p := range parts {
		out = append(out, p.Samples...)
		rate = p.Rate
	}
	return audio.PCM{Samples: out, Rate: rate}
}

// ClickTrack is a click (a 5 ms decaying 1 kHz burst) on every beat at bpm,
// starting at 0; accent makes every fourth click louder.
func ClickTrack(rate int, seconds, bpm float64, accent bool) audio.PCM {
	s := samples(rate, seconds)
	period := 60 / bpm
	clickLen := int(0.03 * float64(rate))
	for b := 0; ; b++ {
		start := int(float64(b) * period * float64(rate))
		if start >= len(s) {
			break
		}
		amp := 0.5
		if accent && b%4 == 0 {
			amp = 0.9
		}
		for i := 0; i < clickLen && start+i < len(s); i++ {
			t := float64(i) / float64(rate)
			s[start+i] += float32(amp * math.Exp(-t/0.005) * math.Sin(2*math.Pi*1000*t))
		}
	}
	return audio.PCM{Samples: s, Rate: rate}
}
