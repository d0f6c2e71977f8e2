package features

import (
	"math"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
)

// Onset analysis uses a short hop so that a beat period spans many frames:
// at 11025 Hz a 128-sample hop puts 43 frames in a 120-BPM beat, and the
// autocorrelation peak is interpolated below one frame.
const (
	onsetFFT = 1024
	onsetHop = 128
	minBPM   = 50
	maxBPM   = 220
)

// onsetEnvelope is the half-wave rectified flux of log-compressed
// magnitude, one value per onsetHop, with its frame rate.
func onsetEnvelope(p audio.PCM) ([]float64, float64) {
	s := dsp.NewSpectrum(onsetFFT)
	n := dsp.FrameCount(len(p.Samples), onsetFFT, onsetHop)
	bins := s.Bins()
	prev := make([]float32, bins)
	cur := make([]float32, bins)
	env := make([]float64, n)
	for i := range n {
		a := i * onsetHop
		s.Power(cur, p.Samples[a:min(a+onsetFFT, len(p.Samples))])
		var flux float64
		for k := 1; k < bins; k++ {
			c := float32(math.Log1p(1000 * math.Sqrt(float64(cur[k]))))
			if i > 0 && c > prev[k] {
				flux += float64(c - prev[k])
			}
			prev[k] = c
		}
		env[i] = flux
	}
	return env, float64(p.Rate) / onsetHop
}

// Tempo estimates the BPM from the autocorrelation of the onset envelope,
// weighted towards 120 BPM (a log-Gaussian prior, as listeners tap), and
// lays a beat grid at the phase that collects the most onset strength.
func Tempo(p audio.PCM) (bpm float64, beats []float64) {
	return tempoOf(onsetEnvelope(p))
}

// tempoOf is Tempo on an onset envelope (which it modifies).
func tempoOf(env []float64, fps float64) (bpm float64, beats []float64) {
	// Remove the local mean so sustained loudness does not bias lags.
	detrend(env, int(fps))
	minLag, maxLag := int(fps*60/maxBPM), int(math.Ceil(fps*60/minBPM))
	if len(env) < 2*maxLag {
		return 0, nil
	}
	ac := make([]float64, maxLag+2)
	for lag := minLag - 1; lag <= maxLag+1; lag++ {
		var s float64
		for i := lag; i < len(env); i++ {
			s += env[i] * env[i-lag]
		}
		ac[lag] = s / float64(len(env)-lag)
	}
	best, bestScore := 0, 0.0
	for lag := minLag; lag <= maxLag; lag++ {
		if ac[lag] <= ac[lag-1] || ac[lag] < ac[lag+1] {
			continue
		}
		b := 60 * fps / float64(lag)
		w := math.Exp(-0.5 * math.Pow(math.Log2(b/120)/1.0, 2))
		if sc := ac[lag] * w; sc > bestScore {
			best, bestScore = lag, sc
		}
	}
	if best == 0 || bestScore <= 0 {
		return 0, nil
	}
	// Parabolic interpolation of the peak for sub-frame precision.
	y0, y1, y2 := ac[best-1], ac[best], ac[best+1]
	lag := float64(best)
	if d := y0 - 2*y1 + y2; d != 0 {
		lag += 0.5 * (y0 - y2) / d
	}
	bpm = 60 * fps / lag
	// Phase: the offset whose comb collects the most onset strength.
	bestPhase, bestSum := 0, -math.MaxFloat64
	for ph := 0; ph < best; ph++ {
		var s float64
		for t := float64(ph); int(t) < len(env); t += lag {
			s += env[int(t)]
		}
		if s > bestSum {
			bestPhase, bestSum = ph, s
		}
	}
	// Frame i spans samples from i·hop. An onset enters the window at its
	// end and the flux peaks where the Hann window rises fastest, three
	// quarters of the way in: frame start + 3N/4 is the onset time.
	centre := float64(3*onsetFFT/4) / (fps * onsetHop) // fps·hop is the sample rate
	// Each predicted beat snaps to the strongest onset within a tenth of a
	// period, and the next is predicted from there, so the grid follows
	// the music instead of drifting with the tempo's rounding.
	reach := max(1, int(lag/10))
	for t := float64(bestPhase); int(t) < len(env); {
		c := min(int(math.Round(t)), len(env)-1)
		best := c
		for i := max(0, c-reach); i <= min(len(env)-1, c+reach); i++ {
			if env[i] > env[best] {
				best = i
			}
		}
		beats = append(beats, math.Round((float64(best)/fps+centre)*1000)/1000)
		t = float64(best) + lag
	}
	return math.Round(bpm*10) / 10, beats
}

func detrend(x []float64, w int) {
	sum := make([]float64, len(x)+1)
	for i, v := range x {
		sum[i+1] = sum[i] + v
	}
	out := make([]float64, len(x))
	for i := range x {
		a, b := max(0, i-w), min(len(x), i+w+1)
		out[i] = max(0, x[i]-(sum[b]-sum[a])/float64(b-a))
	}
	copy(x, out)
}

// onsetRate counts onsets per second: peaks of the detrended envelope
// above a quarter of its strongest values, at least 50 ms apart.
// It modifies env.
func onsetRate(env []float64, fps, seconds float64) float64 {
	detrend(env, int(fps/2))
	var mx float64
	for _, v := range env {
		mx = max(mx, v)
	}
	if mx == 0 {
		return 0
	}
	th := 0.25 * mx
	gap := int(0.05 * fps)
	n, last := 0, -gap
	for i := 1; i+1 < len(env); i++ {
		if env[i] > th && env[i] >= env[i-1] && env[i] > env[i+1] && i-last >= gap {
			n++
			last = i
		}
	}
	return float64(n) / seconds
}
