package musicdetect

import (
	"math"
	"slices"

	"musiccatalog/pkg/audio"
)

// Options tune Detect; zero fields take defaults.
type Options struct {
	// SilenceDB: blocks quieter than this (dBFS RMS) are silence (default -50).
	SilenceDB float64
	// MinHeld: the clear held partials per frame (Block.Held, peaks 8 dB
	// over their surroundings) music needs, as the median over three blocks
	// (default 0.1). Noise, speech and babble hold none.
	MinHeld float64
	// MinFaint: the faint held partials per frame (Block.Faint, 5 dB over
	// their surroundings) that also make a block music, as the median over
	// three blocks (default 0.2). Music 12 dB under a voice measures
	// 0.1–2, espeak speech and 6-talker babble under 0.25, on the tuning
	// half of the issue-16 benchmark.
	MinFaint float64
	// MaxFlatness: blocks flatter than this are noisy (default 0.25;
	// babble measures under 0.2, speech 0.1, music 0.06, music in pink
	// noise at 0 dB SNR 0.1–0.3, pink noise 0.35, white 0.56). Noise makes
	// faint held peaks by chance – pink and white noise up to 1.2 a frame –
	// so a noisy block needs MinNoisyFaint of them (default 1.5; music in
	// pink noise at 0 dB SNR measures 0.6–6, median 2.6) and its beat does
	// not count.
	MaxFlatness   float64
	MinNoisyFaint float64
	// MinBeat: the beat strength (Block.Beat) that makes a block that is
	// not noise-flat music without held partials – drums – as the median
	// over three blocks (default 0.5; espeak speech and babble measure
	// under 0.4, a drum passage 0.3–0.6, music under a voice under 0.35).
	MinBeat float64
	// MinSeconds drops ranges shorter than this (default 2).
	MinSeconds float64
}

func (o Options) withDefaults() Options {
	if o.SilenceDB == 0 {
		o.SilenceDB = -50
	}
	if o.MinHeld == 0 {
		o.MinHeld = 0.1
	}
	if o.MinFaint == 0 {
		o.MinFaint = 0.2
	}
	if o.MinBeat == 0 {
		o.MinBeat = 0.5
	}
	if o.MaxFlatness == 0 {
		o.MaxFlatness = 0.25
	}
	if o.MinNoisyFaint == 0 {
		o.MinNoisyFaint = 1.5
	}
	if o.MinSeconds == 0 {
		o.MinSeconds = 2
	}
	return o
}

const (
	// windowSeconds is the analysis frame (4096 samples at 11025 Hz): long
	// enough to resolve partials 2.7 Hz apart, so that a speech harmonic
	// gliding with the voice's pitch leaves its bin within a frame or two
	// while a held note stays.
	windowSeconds = 0.37
	// hopsPerWindow frames overlap; the hop is 46 ms at 11025 Hz.
	hopsPerWindow = 8
	// heldFrames is how many consecutive frames a spectral peak must stay
	// within one bin of where it is to count as a held partial (≈ 0.37 s
	// of hops, a note; a vowel's harmonics rarely stay that long).
	heldFrames = 8
	// partialLoHz, partialHiHz bound the band searched for held partials:
	// notes' fundamentals and low partials. Below, a male voice's steady
	// fundamental; above, espeak's fixed high formants.
	partialLoHz, partialHiHz = 100, 2000
	// clearProminence, faintProminence: a peak's power over the bins two
	// away on each side (a partial's Hann main lobe ends there), for a
	// clear and a faint partial.
	clearProminence, faintProminence = 6, 3
	// peakFloor: peaks 60 dB under the frame's strongest are ignored.
	peakFloor = 1e-6
	// medianBlocks: the held-partial evidence is the median over this many
	// blocks around each one.
	medianBlocks = 3
	// levelLoHz, levelHiHz: the band of the loudness and change cues.
	levelLoHz, levelHiHz = 80, 4000
	// beatSeconds of onset flux are searched for a beat between
	// minBeatSeconds and maxBeatSeconds long.
	beatSeconds                    = 6.0
	minBeatSeconds, maxBeatSeconds = 0.28, 1.5
	fluxBins                       = 4
	steadyLimit                    = 0.995
)

// frameSize is the power-of-two frame nearest windowSeconds at rate.
func frameSize(rate int) int {
	n := 256
	for float64(n)*1.5 < windowSeconds*float64(rate) {
		n *= 2
	}
	return n
}

// blockSeconds is the exact block length: whole hops of about a second.
func blockSeconds(rate int) float64 {
	hop := frameSize(rate) / hopsPerWindow
	return float64(max(1, rate/hop)*hop) / float64(rate)
}

// Block is the per-second evidence, exposed for diagnostics and tests.
type Block struct {
	// DB is the loudness (dBFS) in 80–4000 Hz.
	DB float64
	// Flatness is the mean spectral flatness (geometric over arithmetic
	// mean power) in 80–4000 Hz: near 0 for tones, ~0.5 for white noise.
	Flatness float64
	// Held and Faint are the mean numbers of clear and faint held
	// partials per frame.
	Held, Faint float64
	// Beat is the strongest autocorrelation of the onset flux over six
	// seconds around the block at a lag of one beat (0.28–1.5 s).
	Beat float64
	// Change is 1 minus the least spectral similarity to the blocks
	// within three seconds (a steady tone stays at 0).
	Change float64
	Music  bool
}

// Detect returns the music ranges of pcm.
func Detect(pcm audio.PCM, opts Options) []audio.Range {
	o := opts.withDefaults()
	blocks, ev := analyze(pcm, o)
	out := ranges(blocks, blockSeconds(pcm.Rate), o)
	refineEdges(out, ev, pcm.Rate, int64(o.MinSeconds*1000), pcm.Duration().Milliseconds())
	out = mergeClose(out, int64(blockSeconds(pcm.Rate)*1000))
	// The last block is usually partial: a range must not outlast the audio.
	if n := len(out); n > 0 {
		out[n-1].EndMs = min(out[n-1].EndMs, pcm.Duration().Milliseconds())
	}
	return out
}

// Analyze computes the evidence for every one-second block.
//
// Music holds notes: partials that stay at one frequency for a few hundred
// milliseconds. Speech harmonics glide with the voice's pitch, and babble –
// many voices – is dense but just as unsteady, so neither holds partials
// however loud or crowded it is, while music under a louder voice still
// shows its held partials between the voice's harmonics.
func Analyze(pcm audio.PCM, opts Options) []Block {
	blocks, _ := analyze(pcm, opts.withDefaults())
	return blocks
}

// analyze is Analyze, also returning the held partials frame by frame
// (see frameEvidence).
func analyze(pcm audio.PCM, o Options) ([]Block, frameEvidence) {
	if pcm.Rate <= 0 || len(pcm.Samples) == 0 {
		return nil, frameEvidence{}
	}
	size := frameSize(pcm.Rate)
	hop := size / hopsPerWindow
	bins := size/2 + 1
	binOf := func(hz float64) int { return int(hz * float64(size) / float64(pcm.Rate)) }
	lo, hi := max(2, binOf(partialLoHz)), min(bins-3, binOf(partialHiHz))
	llo, lhi := max(1, binOf(levelLoHz)), min(bins-1, binOf(levelHiHz))
	if lhi-llo < fluxBins || hi <= lo {
		return nil, frameEvidence{} // a rate too low to hold the bands the cues read
	}
	spec := newSpectrum(size)
	frames := (len(pcm.Samples) + hop - 1) / hop
	perBlock := max(1, pcm.Rate/hop)
	nBlocks := (frames + perBlock - 1) / perBlock
	blocks := make([]Block, nBlocks)
	mean := make([][]float64, nBlocks) // per-block mean spectrum for Change
	energy := make([]float64, nBlocks)
	flat := make([]float64, nBlocks)
	clearHeld := newHolds(bins, frames, clearProminence)
	faintHeld := newHolds(bins, frames, faintProminence)
	flux := make([]float64, frames)
	frameFlat := make([]float64, frames)
	prev := make([]float64, (lhi-llo)/fluxBins)
	// Only the bins the cues read are formed: up to the level band's top
	// and two past the partial band's.
	cur := make([]float32, max(lhi, hi+2))
	for f := range frames {
		// Frame f is centred on the middle of its hop.
		spec.power(cur, pcm.Samples, f*hop+hop/2-size/2)
		b := f / perBlock
		if mean[b] == nil {
			mean[b] = make([]float64, lhi-llo)
		}
		// Flatness per bin; onset flux as the rises in log power of groups
		// of fluxBins bins (the resolution of a 0.09-s frame) from the
		// frame before. Both sums of logs are taken as the log of a
		// product, kept in range by moving its exponent out as it grows:
		// two logarithms a frame instead of one per bin.
		var e float64
		logs, rises := logProduct{m: 1}, logProduct{m: 1}
		for i, k := 0, llo; k+fluxBins <= lhi; i, k = i+1, k+fluxBins {
			g, pg := 0.0, 1.0
			for j := k; j < k+fluxBins; j++ {
				p := float64(cur[j]) + 1e-12
				g += p
				pg *= p
				mean[b][j-llo] += p
			}
			logs.mul(pg)
			e += g
			if f > 0 && g > prev[i] {
				rises.mul(g / prev[i])
			}
			prev[i] = g
		}
		flux[f] = rises.log()
		n := float64((lhi - llo) / fluxBins * fluxBins)
		frameFlat[f] = math.Exp(logs.log()/n) / (e/n + 1e-12)
		flat[b] += frameFlat[f]
		energy[b] += e
		floor := slices.Max(cur[lo:hi]) * peakFloor
		markPeaks(cur, lo, hi, floor, clearHeld, faintHeld)
		clearHeld.frame(f, lo, hi)
		faintHeld.frame(f, lo, hi)
	}
	// Power of a full-scale sine through the Hann window is (N/4)²·2.
	ref := float64(size) * float64(size) / 8
	for b := range blocks {
		lo, hi := b*perBlock, min(frames, (b+1)*perBlock)
		n := float64(hi - lo)
		blocks[b].DB = 10 * math.Log10(energy[b]/n/ref+1e-12)
		blocks[b].Flatness = flat[b] / n
		blocks[b].Held = clearHeld.mean(lo, hi)
		blocks[b].Faint = faintHeld.mean(lo, hi)
		blocks[b].Change = 1 - steadiness(mean, b)
		blocks[b].Beat = beat(flux, (lo+hi)/2, pcm.Rate, hop)
	}
	for b := range blocks {
		x := blocks[b]
		faint := median(blocks, b, func(x Block) float64 { return x.Faint })
		beat := median(blocks, b, func(x Block) float64 { return x.Beat })
		if x.Flatness < o.MaxFlatness {
			x.Music = median(blocks, b, func(x Block) float64 { return x.Held }) >= o.MinHeld || faint >= o.MinFaint || beat >= o.MinBeat
		} else {
			x.Music = median(blocks, b, func(x Block) float64 { return x.Held }) >= o.MinHeld || faint >= o.MinNoisyFaint
		}
		blocks[b].Music = x.Music && x.DB > o.SilenceDB && x.Change > 1-steadyLimit
	}
	return blocks, frameEvidence{held: frameHeld(clearHeld.count, faintHeld.count, frameFlat, o), perBlock: perBlock, hop: hop}
}

// logProduct is a product of positive factors as mantissa m and binary
// exponent x, so that its log stays exact however many factors of whatever
// size it takes.
type logProduct struct {
	m float64
	x int
}

func (l *logProduct) mul(v float64) {
	if l.m *= v; l.m > 1e100 || l.m < 1e-100 {
		var x int
		l.m, x = math.Frexp(l.m)
		l.x += x
	}
}

func (l logProduct) log() float64 { return math.Log(l.m) + float64(l.x)*math.Ln2 }

// holds finds held partials: spectral peaks standing prominence over the
// bins two away, that stay within a bin of where they are for heldFrames
// frames.
type holds struct {
	prominence float32
	peak       []bool
	run        []int     // frames a peak has been within a bin of each bin
	count      []float64 // held partials per frame
}

func newHolds(bins, frames int, prominence float32) *holds {
	return &holds{prominence: prominence, peak: make([]bool, bins), run: make([]int, bins), count: make([]float64, frames)}
}

// markPeaks marks, for both trackers, the peaks of the power spectrum p in
// bins [lo, hi) above floor that stand each one's prominence over the bins
// two away – one pass, as they share the local-maximum test.
func markPeaks(p []float32, lo, hi int, floor float32, a, b *holds) {
	for k := lo; k < hi; k++ {
		v := p[k]
		if !(v > floor && v > p[k-1] && v >= p[k+1]) {
			a.peak[k], b.peak[k] = false, false
			continue
		}
		side := max(p[k-2], p[k+2])
		a.peak[k], b.peak[k] = v > a.prominence*side, v > b.prominence*side
	}
}

// frame advances the runs with frame f's peaks (markPeaks) in [lo, hi).
// A partial counts from the frame it has been held heldFrames frames,
// credited half that many frames earlier – to the middle of its evidence.
func (h *holds) frame(f, lo, hi int) {
	at := max(0, f-heldFrames/2)
	for k := lo; k < hi; k++ {
		if !h.peak[k-1] && !h.peak[k] && !h.peak[k+1] {
			h.run[k] = 0
			continue
		}
		if h.run[k]++; h.peak[k] && h.run[k] >= heldFrames {
			h.count[at]++
		}
	}
}

// mean is the mean count over frames [lo, hi).
func (h *holds) mean(lo, hi int) float64 {
	var s float64
	for _, v := range h.count[lo:hi] {
		s += v
	}
	return s / float64(hi-lo)
}

// beat is the strongest normalised autocorrelation of the onset flux
// around frame c (beatSeconds wide) at a lag of one beat of 40–210 bpm.
func beat(flux []float64, c, rate, hop int) float64 {
	w := int(beatSeconds * float64(rate) / float64(hop))
	x := flux[max(0, c-w/2):min(len(flux), c+w/2)]
	var mu, den float64
	for _, v := range x {
		mu += v
	}
	mu /= float64(len(x))
	for _, v := range x {
		den += (v - mu) * (v - mu)
	}
	if den == 0 {
		return 0
	}
	best := 0.0
	for l := int(minBeatSeconds * float64(rate) / float64(hop)); l <= int(maxBeatSeconds*float64(rate)/float64(hop)) && l < len(x); l++ {
		var num float64
		for t := 0; t+l < len(x); t++ {
			num += (x[t] - mu) * (x[t+l] - mu)
		}
		best = max(best, num/den)
	}
	return best
}

// median is the median of v over the medianBlocks blocks around b – steady
// under a voice that masks a second here and there, yet exact at a cut
// between speech and music.
func median(blocks []Block, b int, v func(Block) float64) float64 {
	var win [medianBlocks]float64
	n := 0
	for c := max(0, b-medianBlocks/2); c <= min(len(blocks)-1, b+medianBlocks/2); c++ {
		win[n] = v(blocks[c])
		n++
	}
	slices.Sort(win[:n])
	return win[n/2]
}

// steadiness is the least spectral similarity between block b and its
// neighbours within three seconds (music changes within seconds; a test
// tone stays at 1), or 0 for a block with no neighbours.
func steadiness(mean [][]float64, b int) float64 {
	worst, seen := 1.0, false
	for d := -3; d <= 3; d++ {
		c := b + d
		if d == 0 || c < 0 || c >= len(mean) {
			continue
		}
		worst = min(worst, cosine(mean[b], mean[c]))
		seen = true
	}
	if !seen {
		return 0
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
