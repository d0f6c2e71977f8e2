package audio

import (
	"math"
	"slices"
)

// Silence: a block is silent when its RMS is silenceDB under the
// recording's loud level (the 90th percentile of its blocks' RMS) or under
// silenceFloor, whichever is higher. A pause between the parts of a video
// (a cut to room tone, the near-silence an editor leaves) is 40–60 dB
// under its music; a voice, noise or a soft passage is not.
const (
	silenceBlock = 0.05 // seconds
	silenceDB    = 35.0
	silenceFloor = 1e-4 // −80 dBFS
)

// Silences returns the ranges of at least minSeconds where p is silent
// (see silenceDB), in order.
func Silences(p PCM, minSeconds float64) []Range {
	n := int(p.Seconds() / silenceBlock)
	if n == 0 {
		return nil
	}
	rms := make([]float64, n)
	for i := range rms {
		rms[i] = p.Window(float64(i)*silenceBlock, silenceBlock).RMS()
	}
	sorted := slices.Clone(rms)
	slices.Sort(sorted)
	bar := max(silenceFloor, sorted[n*9/10]*math.Pow(10, -silenceDB/20))
	var out []Range
	for i := 0; i < n; {
		if rms[i] >= bar {
			i++
			continue
		}
		j := i
		for j < n && rms[j] < bar {
			j++
		}
		if float64(j-i)*silenceBlock >= minSeconds {
			out = append(out, Range{StartMs: int64(math.Round(float64(i) * silenceBlock * 1000)), EndMs: int64(math.Round(float64(j) * silenceBlock * 1000))})
		}
		i = j
	}
	return out
}
