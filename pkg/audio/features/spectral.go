package features

import (
	"math"
)

// NumMFCC cepstral coefficients over NumMel mel bands; NumBands octave-ish
// bands for spectral contrast.
const (
	NumMFCC  = 13
	NumMel   = 26
	NumBands = 6
)

var contrastEdges = [NumBands + 1]float64{0, 200, 400, 800, 1600, 3200, 5500}

// spectral fills the MFCC statistics, centroid, flatness and contrast,
// averaged over frames that are not silent.
func spectral(ft *Features, f frames) {
	mel := melBank(f)
	dct := dctMatrix()
	melE := make([]float64, NumMel)
	var sum, sumSq [NumMFCC]float64
	var n float64
	var cen, flat float64
	var contrast [NumBands]float64
	band := make([]float64, 0, f.bins)
	for i := range f.n {
		row := f.row(i)
		var total, weighted, logSum float64
		for k := 1; k < f.bins; k++ {
			p := float64(row[k])
			total += p
			weighted += p * f.hz(k)
			logSum += math.Log(p + 1e-12)
		}
		if total < 1e-6 { // silent frame
			continue
		}
		n++
		cen += weighted / total
		flat += math.Exp(logSum/float64(f.bins-1)) / (total / float64(f.bins-1))
		for m, w := range mel {
			var e float64
			for _, t := range w {
				e += float64(row[t.bin]) * t.w
			}
			melE[m] = math.Log(e + 1e-10)
		}
		for c := range NumMFCC {
			var v float64
			for m := range NumMel {
				v += dct[c][m] * melE[m]
			}
			sum[c] += v
			sumSq[c] += v * v
		}
		for b := range NumBands {
			band = band[:0]
			for k := 1; k < f.bins; k++ {
				if hz := f.hz(k); hz >= contrastEdges[b] && hz < contrastEdges[b+1] {
					band = append(band, float64(row[k]))
				}
			}
			contrast[b] += bandContrast(band)
		}
	}
	if n == 0 {
		return
	}
	for c := range NumMFCC {
		ft.MFCCMean[c] = sum[c] / n
		ft.MFCCStd[c] = math.Sqrt(math.Max(0, sumSq[c]/n-ft.MFCCMean[c]*ft.MFCCMean[c]))
	}
	ft.Centroid = cen / n
	ft.Flatness = flat / n
	for b := range contrast {
		ft.Contrast[b] = contrast[b] / n
	}
}

// bandContrast is the dB difference between the strongest and weakest
// fifth of a band's bins (peaks versus valleys). It reorders p, the
// caller's scratch buffer: no allocation per frame.
func bandContrast(p []float64) float64 {
	if len(p) < 5 {
		return 0
	}
	q := len(p) / 5
	selectKth(p, q)              // p[:q] are the q weakest bins
	selectKth(p[q:], len(p)-2*q) // and p[len-q:] the q strongest
	var lo, hi float64
	for i := range q {
		lo += p[i]
		hi += p[len(p)-1-i]
	}
	return db(hi/float64(q)) - db(lo/float64(q))
}

// selectKth reorders s so that s[:k] holds its k smallest values (in no
// particular order) and s[k:] the rest: quickselect, linear on average.
func selectKth(s []float64, k int) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// Median of three as the pivot keeps sorted input linear.
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		// Now s[lo..j] <= pivot <= s[i..hi].
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

type tap struct {
	bin int
	w   float64
}

// melBank builds triangular filters evenly spaced on the mel scale between
// 50 Hz and min(5 kHz, Nyquist).
func melBank(f frames) [][]tap {
	mel := func(hz float64) float64 { return 2595 * math.Log10(1+hz/700) }
	inv := func(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }
	lo, hi := mel(50), mel(math.Min(5000, float64(f.rate)/2))
	pts := make([]float64, NumMel+2)
	for i := range pts {
		pts[i] = inv(lo + (hi-lo)*float64(i)/float64(NumMel+1))
	}
	bank := make([][]tap, NumMel)
	for m := range NumMel {
		a, c, b := pts[m], pts[m+1], pts[m+2]
		for k := 1; k < f.bins; k++ {
			hz := f.hz(k)
			var w float64
			switch {
			case hz > a && hz <= c:
				w = (hz - a) / (c - a)
			case hz > c && hz < b:
				w = (b - hz) / (b - c)
			}
			if w > 0 {
				bank[m] = append(bank[m], tap{k, w})
			}
		}
	}
	return bank
}

func dctMatrix() [NumMFCC][NumMel]float64 {
	var d [NumMFCC][NumMel]float64
	for c := range NumMFCC {
		for m := range NumMel {
			d[c][m] = math.Cos(math.Pi * float64(c) * (float64(m) + 0.5) / NumMel)
		}
	}
	return d
}
