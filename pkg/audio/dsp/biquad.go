package dsp

import "math"

// Biquad is a second-order IIR section in direct form I (RBJ cookbook
// coefficients, normalised so a0 = 1).
type Biquad struct {
	B0, B1, B2, A1, A2 float64
	x1, x2, y1, y2     float64
}

// HighPass is a Butterworth-like high-pass at f Hz with quality q.
func HighPass(rate, f, q float64) Biquad {
	w := 2 * math.Pi * f / rate
	alpha := math.Sin(w) / (2 * q)
	c := math.Cos(w)
	a0 := 1 + alpha
	return Biquad{B0: (1 + c) / 2 / a0, B1: -(1 + c) / a0, B2: (1 + c) / 2 / a0, A1: -2 * c / a0, A2: (1 - alpha) / a0}
}

// HighShelf boosts frequencies above f Hz by gainDB.
func HighShelf(rate, f, q, gainDB float64) Biquad {
	a := math.Pow(10, gainDB/40)
	w := 2 * math.Pi * f / rate
	c, s := math.Cos(w), math.Sin(w)
	alpha := s / (2 * q)
	sa := 2 * math.Sqrt(a) * alpha
	a0 := (a + 1) - (a-1)*c + sa
	return Biquad{
		B0: a * ((a + 1) + (a-1)*c + sa) / a0,
		B1: -2 * a * ((a - 1) + (a+1)*c) / a0,
		B2: a * ((a + 1) + (a-1)*c - sa) / a0,
		A1: 2 * ((a - 1) - (a+1)*c) / a0,
		A2: ((a + 1) - (a-1)*c - sa) / a0,
	}
}

// Step filters one sample.
func (b *Biquad) Step(x float64) float64 {
	y := b.B0*x + b.B1*b.x1 + b.B2*b.x2 - b.A1*b.y1 - b.A2*b.y2
	b.x2, b.x1 = b.x1, x
	b.y2, b.y1 = b.y1, y
	return y
}
