package musicdetect

import (
	"math"
	"math/bits"
	"sync"

	"musiccatalog/pkg/audio/dsp"
)

// spectrum is the Hann-windowed power spectrum dsp.Spectrum computes, for
// the long frames Analyze takes at every hop – its cost is the detector's.
// A real frame of n samples is transformed as n/2 complex samples (even
// samples real, odd imaginary) by an iterative radix-2 FFT over tables
// computed once per size, then split into the real frame's bins; only the
// bins a caller asks for are formed. On a 4096-sample frame it takes a
// quarter of the CPU of gonum's real FFT (FFTPACK, which dsp.Spectrum
// uses), and its power differs from dsp.Spectrum's by float32 rounding
// (TestSpectrumMatchesDSP). Not safe for concurrent use.
type spectrum struct {
	*fftTables
	re, im []float64 // the n/2 complex work samples
}

// fftTables are the read-only tables of one frame size, shared by all
// spectra of that size.
type fftTables struct {
	n   int
	win []float64 // Hann window of n
	// rev is the bit-reversal permutation of n/2 (where complex sample i
	// goes before the in-place butterflies).
	rev []int32
	// stageCos, stageSin hold, per stage of width 8, 16, … n/2, the
	// twiddles e^(−2πij/width) for j < width/2 (stages 2 and 4 have
	// trivial ones).
	stageCos, stageSin [][]float64
	// splitCos, splitSin: e^(−2πik/n) for k ≤ n/2, the twiddles that
	// separate the even and odd samples' spectra.
	splitCos, splitSin []float64
}

var tablesBySize sync.Map // int -> *fftTables

func newSpectrum(n int) *spectrum {
	if n < 8 || bits.OnesCount(uint(n)) != 1 {
		panic("musicdetect: spectrum size must be a power of two ≥ 8")
	}
	t, ok := tablesBySize.Load(n)
	if !ok {
		t, _ = tablesBySize.LoadOrStore(n, newFFTTables(n))
	}
	return &spectrum{fftTables: t.(*fftTables), re: make([]float64, n/2), im: make([]float64, n/2)}
}

func newFFTTables(n int) *fftTables {
	m := n / 2
	t := &fftTables{n: n, win: dsp.Hann(n), rev: make([]int32, m), splitCos: make([]float64, m+1), splitSin: make([]float64, m+1)}
	shift := 32 - bits.TrailingZeros(uint(m))
	for i := range t.rev {
		t.rev[i] = int32(bits.Reverse32(uint32(i)) >> shift)
	}
	for w := 8; w <= m; w *= 2 {
		c, s := make([]float64, w/2), make([]float64, w/2)
		for j := range c {
			s[j], c[j] = math.Sincos(-2 * math.Pi * float64(j) / float64(w))
		}
		t.stageCos, t.stageSin = append(t.stageCos, c), append(t.stageSin, s)
	}
	for k := range t.splitCos {
		t.splitSin[k], t.splitCos[k] = math.Sincos(-2 * math.Pi * float64(k) / float64(n))
	}
	return t
}

// power writes |X[k]|² of the windowed frame samples[a:a+n] into dst[k]
// for k < len(dst) ≤ n/2+1; samples outside samples count as zeros.
func (s *spectrum) power(dst []float32, samples []float32, a int) {
	m := s.n / 2
	re, im, win := s.re[:m], s.im[:m], s.win[:2*m]
	if a >= 0 && a+2*m <= len(samples) {
		frame := samples[a : a+2*m]
		for i, j := range s.rev {
			re[j] = float64(frame[2*i]) * win[2*i]
			im[j] = float64(frame[2*i+1]) * win[2*i+1]
		}
	} else {
		at := func(i int) float64 {
			if k := a + i; k >= 0 && k < len(samples) {
				return float64(samples[k]) * win[i]
			}
			return 0
		}
		for i, j := range s.rev {
			re[j], im[j] = at(2*i), at(2*i+1)
		}
	}
	// Widths 2 and 4 as one radix-4 butterfly (twiddles 1 and −i).
	for k := 0; k+3 < m; k += 4 {
		ar, ai, br, bi := re[k]+re[k+1], im[k]+im[k+1], re[k]-re[k+1], im[k]-im[k+1]
		cr, ci, dr, di := re[k+2]+re[k+3], im[k+2]+im[k+3], re[k+2]-re[k+3], im[k+2]-im[k+3]
		re[k], im[k], re[k+2], im[k+2] = ar+cr, ai+ci, ar-cr, ai-ci
		re[k+1], im[k+1], re[k+3], im[k+3] = br+di, bi-dr, br-di, bi+dr
	}
	for st, w := 0, 8; w <= m; st, w = st+1, w*2 {
		h := w / 2
		wc, ws := s.stageCos[st][:h], s.stageSin[st][:h]
		for k := 0; k < m; k += w {
			lr, li, hr, hi := re[k:k+h], im[k:k+h], re[k+h:k+w], im[k+h:k+w]
			for j := range lr {
				tr := wc[j]*hr[j] - ws[j]*hi[j]
				ti := wc[j]*hi[j] + ws[j]*hr[j]
				hr[j], hi[j] = lr[j]-tr, li[j]-ti
				lr[j], li[j] = lr[j]+tr, li[j]+ti
			}
		}
	}
	// X[k] = E[k] + e^(−2πik/n)·O[k], with E and O the spectra of the even
	// and odd samples: E = (Z[k] + conj Z[m−k])/2, O = (Z[k] − conj Z[m−k])/2i.
	n := min(len(dst), m+1)
	if n == 0 {
		return
	}
	dst[0] = float32((re[0] + im[0]) * (re[0] + im[0]))
	if n == m+1 {
		dst[m] = float32((re[0] - im[0]) * (re[0] - im[0]))
	}
	for k := 1; k < min(n, m); k++ {
		zr, zi, cr, ci := re[k], im[k], re[m-k], -im[m-k]
		er, ei := 0.5*(zr+cr), 0.5*(zi+ci)
		or, oi := 0.5*(zi-ci), -0.5*(zr-cr)
		xr := er + s.splitCos[k]*or - s.splitSin[k]*oi
		xi := ei + s.splitCos[k]*oi + s.splitSin[k]*or
		dst[k] = float32(xr*xr + xi*xi)
	}
}
