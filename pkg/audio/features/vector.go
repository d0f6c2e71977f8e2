package features

import (
	"errors"
	"math"
)

// VectorNames names the entries of Features.Vector, in order.
var VectorNames = func() []string {
	n := []string{"tempo_log2", "loudness", "energy_range", "centroid_khz", "flatness", "onset_rate", "key_confidence", "mode_major"}
	for _, p := range pitchNames {
		n = append(n, "chroma_"+p)
	}
	for i := range NumMFCC {
		n = append(n, "mfcc_mean_"+itoa(i))
	}
	for i := range NumMFCC {
		n = append(n, "mfcc_std_"+itoa(i))
	}
	for i := range NumBands {
		n = append(n, "contrast_"+itoa(i))
	}
	return n
}()

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

func vector(f *Features) []float32 {
	v := make([]float32, 0, len(VectorNames))
	tempo := 0.0
	if f.Tempo > 0 {
		tempo = math.Log2(f.Tempo / 120)
	}
	lo, hi := 0.0, -90.0
	if len(f.Energy) > 0 {
		lo = 0
		for _, e := range f.Energy {
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
	}
	major := 0.0
	if len(f.Key) > 5 && f.Key[len(f.Key)-5:] == "major" {
		major = 1
	}
	for _, x := range []float64{tempo, f.Loudness, math.Max(0, hi-math.Max(lo, hi-60)), f.Centroid / 1000, f.Flatness, f.OnsetRate, f.KeyConfidence, major} {
		v = append(v, float32(x))
	}
	// Chroma relative to the key's tonic would make keys comparable; raw
	// chroma keeps "sounds alike including pitch", which is what by-id
	// similarity wants.
	for _, x := range f.Chroma {
		v = append(v, float32(x))
	}
	for _, x := range f.MFCCMean {
		v = append(v, float32(x))
	}
	for _, x := range f.MFCCStd {
		v = append(v, float32(x))
	}
	for _, x := range f.Contrast {
		v = append(v, float32(x))
	}
	return v
}

// Scaler standardizes vectors: z-scores against a catalog's mean and
// standard deviation, then unit length, so cosine similarity is a dot
// product and no descriptor dominates by its units.
type Scaler struct {
	Mean []float32 `json:"mean"`
	Std  []float32 `json:"std"`
}

// FitScaler computes the scaler of a set of vectors of equal length.
func FitScaler(vs [][]float32) (Scaler, error) {
	if len(vs) == 0 {
		return Scaler{}, errors.New("features: no vectors to fit")
	}
	d := len(vs[0])
	mean := make([]float64, d)
	for _, v := range vs {
		if len(v) != d {
			return Scaler{}, errors.New("features: vectors of different lengths")
		}
		for i, x := range v {
			mean[i] += float64(x)
		}
	}
	s := Scaler{Mean: make([]float32, d), Std: make([]float32, d)}
	for i := range mean {
		mean[i] /= float64(len(vs))
		var ss float64
		for _, v := range vs {
			ss += (float64(v[i]) - mean[i]) * (float64(v[i]) - mean[i])
		}
		s.Mean[i] = float32(mean[i])
		s.Std[i] = float32(math.Sqrt(ss / float64(len(vs))))
	}
	return s, nil
}

// Apply returns the standardized, unit-length copy of v.
func (s Scaler) Apply(v []float32) []float32 {
	out := make([]float32, len(v))
	var norm float64
	for i, x := range v {
		z := float64(x)
		if i < len(s.Mean) {
			z -= float64(s.Mean[i])
			if sd := float64(s.Std[i]); sd > 1e-9 {
				z /= sd
			} else {
				z = 0
			}
		}
		out[i] = float32(z)
		norm += z * z
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}

// Cosine is the cosine similarity of two vectors (0 if either is zero).
func Cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range min(len(a), len(b)) {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
