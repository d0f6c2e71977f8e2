package features

import (
	"math"
	"slices"

	"musiccatalog/pkg/audio"
)

// ChromaHop is the spacing of Chroma's frames.
const ChromaHop = 0.5

// Chroma returns pitch-class profiles every ChromaHop seconds (each the
// mean of the analysis frames inside it), the representation highlights
// and sections compare for repetition.
func Chroma(p audio.PCM) [][12]float64 {
	return poolChroma(chromagram(stft(p)), p.Rate)
}

func poolChroma(c [][12]float64, rate int) [][12]float64 {
	per := max(1, int(ChromaHop*float64(rate)/hop))
	var out [][12]float64
	for a := 0; a < len(c); a += per {
		var m [12]float64
		b := min(a+per, len(c))
		for _, v := range c[a:b] {
			for j := range m {
				m[j] += v[j] / float64(b-a)
			}
		}
		out = append(out, m)
	}
	return out
}

// minSection is the shortest section (seconds) sections reports.
const minSection = 8.0

// sections cuts where a checkerboard kernel over the chroma self-similarity
// finds novelty (a change of harmony) or the level jumps, keeping cuts at
// least minSection apart, and reports each section's mean level.
func sections(frameChroma [][12]float64, energy []float64, f frames) []Section {
	c := poolChroma(frameChroma, f.rate)
	n := min(len(c), len(energy))
	if n == 0 {
		return nil
	}
	nov := Novelty(c[:n], energy[:n], 8)
	minGap := int(minSection / ChromaHop)
	cuts := []int{0}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp(nov[b], nov[a]) })
	for _, i := range order {
		if nov[i] <= 0 || i < minGap || n-i < minGap {
			continue
		}
		ok := true
		for _, c := range cuts {
			if abs(c-i) < minGap {
				ok = false
			}
		}
		if ok {
			cuts = append(cuts, i)
		}
	}
	slices.Sort(cuts)
	cuts = append(cuts, n)
	var out []Section
	for k := 0; k+1 < len(cuts); k++ {
		a, b := cuts[k], cuts[k+1]
		var pow float64
		for _, e := range energy[a:b] {
			pow += math.Pow(10, e/10)
		}
		out = append(out, Section{
			Start:    float64(a) * ChromaHop,
			Duration: float64(b-a) * ChromaHop,
			Energy:   math.Round(db(pow/float64(b-a))*10) / 10,
		})
	}
	return out
}

// Novelty scores each frame as a boundary: a Foote checkerboard kernel of
// half-width w frames over the chroma cosine self-similarity, plus the
// level change across the frame (dB/10) so that a quiet verse and a loud
// chorus on the same chords still separate.
func Novelty(c [][12]float64, energyDB []float64, w int) []float64 {
	n := len(c)
	out := make([]float64, n)
	for i := range n {
		var s float64
		for a := -w; a < w; a++ {
			for b := -w; b < w; b++ {
				x, y := i+a, i+b
				if x < 0 || y < 0 || x >= n || y >= n {
					continue
				}
				sign := 1.0
				if (a < 0) != (b < 0) {
					sign = -1
				}
				s += sign * cosine12(c[x], c[y])
			}
		}
		var before, after float64
		var nb, na int
		for d := 1; d <= w; d++ {
			if i-d >= 0 {
				before += energyDB[i-d]
				nb++
			}
			if i+d-1 < n {
				after += energyDB[i+d-1]
				na++
			}
		}
		lvl := 0.0
		if nb > 0 && na > 0 {
			lvl = math.Abs(after/float64(na)-before/float64(nb)) / 10
		}
		out[i] = -s/float64(4*w*w) + lvl
	}
	return out
}

func cosine12(a, b [12]float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

func cmp(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
