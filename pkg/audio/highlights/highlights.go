package highlights

import (
	"math"
	"slices"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/features"
)

// Region is a highlight in seconds from the start of the track.
type Region struct {
	Offset   float64 `json:"offset"`
	Duration float64 `json:"duration"`
	// Score in [0, 1]: repetition and energy combined.
	Score float64 `json:"-"`
}

// Options tune Find; zero fields take defaults.
type Options struct {
	// TimeOffset and TimeLimit (seconds) restrict regions to
	// [TimeOffset, TimeOffset+TimeLimit]; TimeLimit 0 means to the end.
	TimeOffset, TimeLimit float64
	// Duration of each region (default 15 s, shortened to fit the window).
	Duration float64
	// Max regions returned (default 3).
	Max int
}

const (
	hop = features.ChromaHop
	// stripe is how long (seconds) two passages must stay alike to count
	// as a repeat, and minLag how far apart they must be so that a held
	// chord is not its own repeat.
	stripe = 4.0
	minLag = 6.0
	// repWeight of the score is repetition, the rest energy.
	repWeight = 0.6
)

// Find returns up to Max non-overlapping regions, strongest first.
func Find(pcm audio.PCM, opts Options) []Region {
	return FindIn(features.Chroma(pcm), features.EnergyCurve(pcm), opts)
}

// FindIn is Find on an analysis already made: chroma as features.Chroma
// and energy as features.EnergyCurve return them (features.Analyze keeps
// both), so a caller that analyzed the track does not pay for them twice.
func FindIn(chroma [][12]float64, energy []float64, opts Options) []Region {
	if opts.Duration <= 0 {
		opts.Duration = 15
	}
	if opts.Max <= 0 {
		opts.Max = 3
	}
	n := min(len(chroma), len(energy))
	if n == 0 {
		return nil
	}
	score := Score(chroma[:n], energy[:n])
	from := max(0, int(opts.TimeOffset/hop))
	to := n
	if opts.TimeLimit > 0 {
		to = min(n, int((opts.TimeOffset+opts.TimeLimit)/hop))
	}
	if to-from < 2 {
		return nil
	}
	w := min(int(opts.Duration/hop), to-from)
	// Sliding mean of the score over the region length.
	type cand struct {
		start int
		mean  float64
	}
	var cands []cand
	var sum float64
	for i := from; i < to; i++ {
		sum += score[i]
		if i-from >= w {
			sum -= score[i-w]
		}
		if i-from >= w-1 {
			cands = append(cands, cand{i - w + 1, sum / float64(w)})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp(b.mean, a.mean) })
	var out []Region
	for _, c := range cands {
		if len(out) == opts.Max {
			break
		}
		overlaps := false
		for _, r := range out {
			s := int(math.Round(r.Offset / hop))
			if c.start < s+w && s < c.start+w {
				overlaps = true
			}
		}
		if !overlaps {
			out = append(out, Region{Offset: float64(c.start) * hop, Duration: float64(w) * hop, Score: math.Round(c.mean*1000) / 1000})
		}
	}
	return out
}

// Score rates every ChromaHop frame in [0, 1]: how strongly the passage
// starting there recurs later or earlier in the track (the best mean
// similarity along a diagonal stripe of the chroma self-similarity), and
// how loud it is within the track's range.
func Score(chroma [][12]float64, energyDB []float64) []float64 {
	n := len(chroma)
	k := int(stripe / hop)
	lag0 := int(minLag / hop)
	norm := make([][12]float64, n)
	for i, c := range chroma {
		// Centre each profile so that a flat, noisy frame is not similar
		// to everything.
		var m float64
		for _, v := range c {
			m += v / 12
		}
		var s float64
		for j, v := range c {
			norm[i][j] = v - m
			s += (v - m) * (v - m)
		}
		if s > 0 {
			for j := range norm[i] {
				norm[i][j] /= math.Sqrt(s)
			}
		}
	}
	sim := func(a, b int) float64 {
		var d float64
		for j := range 12 {
			d += norm[a][j] * norm[b][j]
		}
		return d
	}
	rep := make([]float64, n)
	for i := 0; i+k <= n; i++ {
		best := 0.0
		for j := 0; j+k <= n; j++ {
			if abs(j-i) < lag0 {
				continue
			}
			var s float64
			for d := 0; d < k; d++ {
				s += sim(i+d, j+d)
			}
			best = max(best, s/float64(k))
		}
		rep[i] = best
	}
	for i := max(0, n-k+1); i < n; i++ {
		rep[i] = rep[max(0, n-k)]
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range energyDB {
		if e > -80 {
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
	}
	out := make([]float64, n)
	for i := range n {
		e := 0.0
		if hi > lo {
			e = math.Max(0, (energyDB[i]-lo)/(hi-lo))
		}
		out[i] = repWeight*rep[i] + (1-repWeight)*e
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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
