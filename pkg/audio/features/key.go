package features

import (
	"math"
)

var pitchNames = [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}

// Krumhansl–Kessler key profiles (probe-tone ratings), C major and C minor.
var (
	majorProfile = [12]float64{6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88}
	minorProfile = [12]float64{6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17}
)

// chromagram folds each frame's spectrum between 55 Hz and 2 kHz onto the
// twelve pitch classes, normalized per frame.
func chromagram(f frames) [][12]float64 {
	binPC := make([]int, f.bins)
	for k := range binPC {
		hz := f.hz(k)
		if hz < 55 || hz > 2000 {
			binPC[k] = -1
			continue
		}
		midi := 69 + 12*math.Log2(hz/440)
		binPC[k] = (int(math.Round(midi))%12 + 12) % 12
	}
	out := make([][12]float64, f.n)
	for i := range f.n {
		row := f.row(i)
		var c [12]float64
		var s float64
		for k, pc := range binPC {
			if pc >= 0 {
				v := math.Sqrt(float64(row[k]))
				c[pc] += v
				s += v
			}
		}
		if s > 0 {
			for j := range c {
				c[j] /= s
			}
		}
		out[i] = c
	}
	return out
}

func meanChroma(c [][12]float64) [12]float64 {
	var m [12]float64
	for _, v := range c {
		for j := range m {
			m[j] += v[j]
		}
	}
	var s float64
	for _, v := range m {
		s += v
	}
	if s > 0 {
		for j := range m {
			m[j] /= s
		}
	}
	return m
}

// keyOf correlates the chroma with the 24 rotated profiles.
func keyOf(chroma [12]float64) (string, float64) {
	best, bestR := "", -2.0
	for tonic := range 12 {
		for mode, prof := range [][12]float64{majorProfile, minorProfile} {
			var rot [12]float64
			for j := range rot {
				rot[(j+tonic)%12] = prof[j]
			}
			if r := pearson(chroma[:], rot[:]); r > bestR {
				name := pitchNames[tonic] + " major"
				if mode == 1 {
					name = pitchNames[tonic] + " minor"
				}
				best, bestR = name, r
			}
		}
	}
	return best, math.Max(0, bestR)
}

func pearson(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var ab, aa, bb float64
	for i := range a {
		ab += (a[i] - ma) * (b[i] - mb)
		aa += (a[i] - ma) * (a[i] - ma)
		bb += (b[i] - mb) * (b[i] - mb)
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
