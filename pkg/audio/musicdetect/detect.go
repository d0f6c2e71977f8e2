package musicdetect

import (
	"math"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
)

// Options tune Detect; zero fields take defaults.
type Options struct {
	// SilenceDB: blocks quieter than this (dBFS RMS) are silence (default -50).
	SilenceDB float64
	// MaxFlatness: blocks flatter than this are noise (default 0.25; pink
	// noise measures ~0.35, white more, music under 0.1).
	MaxFlatness float64
	// MinPersistence: the share of spectral peak energy held over
	// ~140 ms that music needs (default 0.3; orchestral music measures
	// 0.3–0.8, speech under 0.2).
	MinPersistence float64
	// MinSeconds drops ranges shorter than this (default 2).
	MinSeconds float64
}

func (o Options) withDefaults() Options {
	if o.SilenceDB == 0 {
		o.SilenceDB = -50
	}
	if o.MaxFlatness == 0 {
		o.MaxFlatness = 0.25
	}
	if o.MinPersistence == 0 {
		o.MinPersistence = 0.3
	}
	if o.MinSeconds == 0 {
		o.MinSeconds = 2
	}
	return o
}

const (
	fftSize     = 1024
	hop         = 512
	lagFrames   = 3  // persistence lag, ~140 ms at 11025 Hz
	peaksFrame  = 12 // strongest peaks per frame considered
	loHz, hiHz  = 80, 4000
	steadyLimit = 0.995
)

// blockSeconds is the exact block length: whole frames of about a second.
func blockSeconds(rate int) float64 { return float64(max(1, rate/hop)*hop) / float64(rate) }

// Block is the per-second evidence, exposed for diagnostics and tests.
type Block struct {
	DB, Flatness, Persistence, Change float64
	Music                             bool
}

// Detect returns the music ranges of pcm.
func Detect(pcm audio.PCM, opts Options) []audio.Range {
	o := opts.withDefaults()
	blocks := Analyze(pcm, o)
	out := ranges(blocks, blockSeconds(pcm.Rate), o)
	// The last block is usually partial: a range must not outlast the audio.
	if n := len(out); n > 0 {
		out[n-1].EndMs = min(out[n-1].EndMs, pcm.Duration().Milliseconds())
	}
	return out
}

// Analyze computes the evidence for every one-second block.
func Analyze(pcm audio.PCM, opts Options) []Block {
	o := opts.withDefaults()
	if pcm.Rate <= 0 || len(pcm.Samples) == 0 {
		return nil
	}
	spec := dsp.NewSpectrum(fftSize)
	bins := spec.Bins()
	lo := int(loHz * fftSize / float64(pcm.Rate))
	hi := min(bins-1, int(hiHz*fftSize/float64(pcm.Rate)))
	frames := dsp.FrameCount(len(pcm.Samples), fftSize, hop)
	perBlock := max(1, pcm.Rate/hop)
	nBlocks := (frames + perBlock - 1) / perBlock
	blocks := make([]Block, nBlocks)
	hist := make([][]float32, lagFrames+1) // ring of recent spectra
	for i := range hist {
		hist[i] = make([]float32, bins)
	}
	mean := make([][]float64, nBlocks) // per-block mean spectrum for Change
	var sumE, sumFlat, held, total float64
	idx := make([]int, 0, peaksFrame)
	for f := range frames {
		cur := hist[f%len(hist)]
		a := f * hop
		spec.Power(cur, pcm.Samples[a:min(a+fftSize, len(pcm.Samples))])
		b := f / perBlock
		if mean[b] == nil {
			mean[b] = make([]float64, hi-lo)
		}
		var e, logSum float64
		for k := lo; k < hi; k++ {
			p := float64(cur[k]) + 1e-12
			e += p
			logSum += math.Log(p)
			mean[b][k-lo] += p
		}
		n := float64(hi - lo)
		sumFlat += math.Exp(logSum/n) / (e / n)
		sumE += e
		if f >= lagFrames {
			prev := hist[(f-lagFrames)%len(hist)]
			idx = topPeaks(idx[:0], cur, lo, hi)
			for _, k := range idx {
				total += float64(cur[k])
				if prev[k-1] >= cur[k]*0.25 || prev[k] >= cur[k]*0.25 || prev[k+1] >= cur[k]*0.25 {
					held += float64(cur[k])
				}
			}
		}
		if f%perBlock == perBlock-1 || f == frames-1 {
			nf := float64(f%perBlock + 1)
			// Power of a full-scale sine through the Hann window is (N/4)²·2.
			ref := float64(fftSize) * float64(fftSize) / 8
			blocks[b].DB = 10 * math.Log10(sumE/nf/ref+1e-12)
			blocks[b].Flatness = sumFlat / nf
			if total > 0 {
				blocks[b].Persistence = held / total
			}
			sumE, sumFlat, held, total = 0, 0, 0, 0
		}
	}
	for b := range blocks {
		blocks[b].Change = 1 - steadiness(mean, b)
		blocks[b].Music = blocks[b].DB > o.SilenceDB && blocks[b].Flatness < o.MaxFlatness &&
			blocks[b].Persistence >= o.MinPersistence && blocks[b].Change > 1-steadyLimit
	}
	return blocks
}

// steadiness is the highest spectral similarity between block b and its
// neighbours within three seconds; a test tone stays at 1.
func steadiness(mean [][]float64, b int) float64 {
	best := 0.0
	for d := -3; d <= 3; d++ {
		c := b + d
		if d == 0 || c < 0 || c >= len(mean) || mean[c] == nil {
			continue
		}
		best = max(best, cosine(mean[b], mean[c]))
	}
	// A block with no neighbours cannot show change; treat it as changing.
	if best == 0 {
		return 0
	}
	// The least similar neighbour decides: music changes within seconds.
	worst := 1.0
	for d := -3; d <= 3; d++ {
		c := b + d
		if d == 0 || c < 0 || c >= len(mean) || mean[c] == nil {
			continue
		}
		worst = min(worst, cosine(mean[b], mean[c]))
	}
	return worst
}

func cosine(a, b []float64) float64 {
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

// topPeaks appends the bins of the strongest local maxima in [lo, hi).
func topPeaks(dst []int, p []float32, lo, hi int) []int {
	for k := max(lo, 1); k < hi && k+1 < len(p); k++ {
		if p[k] <= p[k-1] || p[k] < p[k+1] {
			continue
		}
		if len(dst) < peaksFrame {
			dst = append(dst, k)
			continue
		}
		w := 0
		for i := range dst {
			if p[dst[i]] < p[dst[w]] {
				w = i
			}
		}
		if p[k] > p[dst[w]] {
			dst[w] = k
		}
	}
	return dst
}

// ranges smooths block decisions with a majority over three blocks (a
// wider one would bridge the two-second gaps between songs) and merges
// them into ranges of at least MinSeconds.
func ranges(blocks []Block, blockSec float64, o Options) []audio.Range {
	n := len(blocks)
	smooth := make([]bool, n)
	for i := range blocks {
		votes, count := 0, 0
		for j := max(0, i-1); j <= min(n-1, i+1); j++ {
			count++
			if blocks[j].Music {
				votes++
			}
		}
		smooth[i] = 2*votes > count
	}
	var out []audio.Range
	for i := 0; i < n; {
		if !smooth[i] {
			i++
			continue
		}
		j := i
		for j < n && smooth[j] {
			j++
		}
		if float64(j-i)*blockSec >= o.MinSeconds {
			out = append(out, audio.Range{StartMs: int64(float64(i) * blockSec * 1000), EndMs: int64(float64(j) * blockSec * 1000)})
		}
		i = j
	}
	return out
}
