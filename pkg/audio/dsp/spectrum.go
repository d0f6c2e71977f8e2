package dsp

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Hann returns a periodic Hann window of length n.
func Hann(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
	}
	return w
}

// Spectrum computes windowed power spectra of fixed-size frames. It owns its
// work buffers; it is not safe for concurrent use.
type Spectrum struct {
	fft   *fourier.FFT
	win   []float64
	in    []float64
	coeff []complex128
}

// NewSpectrum prepares a Hann-windowed transform of size samples.
func NewSpectrum(size int) *Spectrum {
	return &Spectrum{
		fft:   fourier.NewFFT(size),
		win:   Hann(size),
		in:    make([]float64, size),
		coeff: make([]complex128, size/2+1),
	}
}

// Size is the frame length in samples.
func (s *Spectrum) Size() int { return len(s.in) }

// Bins is the number of power values per frame (Size/2+1).
func (s *Spectrum) Bins() int { return len(s.coeff) }

// Power writes |X[k]|² of the windowed frame into dst (len >= Bins). A frame
// shorter than Size is zero-padded.
func (s *Spectrum) Power(dst []float32, frame []float32) {
	n := min(len(frame), len(s.in))
	for i := 0; i < n; i++ {
		s.in[i] = float64(frame[i]) * s.win[i]
	}
	clear(s.in[n:])
	s.fft.Coefficients(s.coeff, s.in)
	for k, c := range s.coeff {
		re, im := real(c), imag(c)
		dst[k] = float32(re*re + im*im)
	}
}

// FrameCount is the number of hop-spaced frames of size samples that start
// inside n samples (the last ones zero-padded), at least 0.
func FrameCount(n, size, hop int) int {
	if n <= 0 {
		return 0
	}
	if n <= size {
		return 1
	}
	return 1 + (n-size+hop-1)/hop
}

// Spectrogram returns the power spectra of all frames as one row-major
// slice (frames × Bins), the layout analysers scan column-wise.
func (s *Spectrum) Spectrogram(samples []float32, hop int) (data []float32, frames int) {
	frames = FrameCount(len(samples), s.Size(), hop)
	bins := s.Bins()
	data = make([]float32, frames*bins)
	for f := range frames {
		a := f * hop
		s.Power(data[f*bins:(f+1)*bins], samples[a:min(a+s.Size(), len(samples))])
	}
	return data, frames
}
