package fingerprint

import (
	"math"
	"slices"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
)

// Analysis constants. Changing any of them invalidates stored indexes
// (FormatVersion guards that).
const (
	SampleRate = audio.DefaultSampleRate
	// A long window (186 ms) because most music is sustained tones: a tone's
	// power per bin grows with the window squared, noise's only linearly.
	fftSize = 2048
	hop     = 512
	minBin  = 10  // ~54 Hz: below it is rumble and hum
	maxBin  = 778 // ~4.2 kHz: above it AAC and noise leave little
	nBins   = maxBin - minBin
	// fQ is the frequency quantum of hash keys (two bins, 10.8 Hz), which
	// absorbs the one-bin jitter a peak shows under noise.
	fQ = 2

	// HashBits is the width of a hash key: 9 bits anchor frequency, 7 bits
	// frequency difference, 6 bits time difference.
	HashBits = 22
	// keyMask keeps the key bits of Hash.Key; the bit above them is
	// StrongBit.
	keyMask = 1<<HashBits - 1

	peakDT     = 2  // peak neighbourhood half-width in frames
	peakDF     = 16 // and in bins
	meanFrames = 21 // loudness running-mean half-width (~1 s)
	densityW   = 10 // half-width in frames of the window PeaksPerSecond applies to
	maxTarget  = 63 // TargetDT limit from the key layout
)

// StrongBit is set in the Key of a query hash (Options.StrongPeaksPerSecond)
// whose two peaks are both among the strongest: the hashes a sparser query
// would have. It is not part of the key: lookups mask it off.
const StrongBit uint32 = 1 << 31

// FrameSeconds is the duration of one time unit of a Hash.
const FrameSeconds = float64(hop) / float64(SampleRate)

// Hash is one landmark: Key identifies the peak pair, Time is the anchor's
// frame (FrameSeconds each) from the start of the audio.
type Hash struct {
	Key  uint32
	Time uint32
}

// FrameTime converts a frame count to a duration.
func FrameTime(frames int64) time.Duration {
	return time.Duration(float64(frames) * FrameSeconds * float64(time.Second))
}

// Options tune peak density and pairing.
type Options struct {
	// PeaksPerSecond caps the peaks kept in any one-second window.
	PeaksPerSecond float64
	// FanOut is how many later peaks each anchor pairs with.
	FanOut int
	// TargetDT and TargetDF bound the target zone (frames, bins).
	TargetDT, TargetDF int
	// Spread also emits each pair with its time difference one frame
	// shorter and longer, so a target peak that noise moved by a frame
	// still matches. Meant for queries: it triples their hashes, not the
	// index.
	Spread bool
	// StrongPeaksPerSecond, when positive, marks (StrongBit) the hashes
	// whose anchor and target both stay under this tighter cap. Match
	// judges a candidate by those too: a dense query finds more of a noisy
	// clip's music but also lifts every other track's chance score, and
	// the strong hashes' runner-up stays as low as a sparse query's.
	StrongPeaksPerSecond float64
	// SuppressVoice lowers the harmonics of a gliding voice before the
	// peaks are picked (voice.go), so that a query's peaks under narration
	// go to the music. Meant for queries: the index is clean music.
	SuppressVoice bool
}

// IndexOptions are for catalog tracks; QueryOptions for clips and videos.
var (
	IndexOptions = Options{PeaksPerSecond: 18, FanOut: 6, TargetDT: 20, TargetDF: 96}
	QueryOptions = Options{PeaksPerSecond: 60, FanOut: 20, TargetDT: 20, TargetDF: 96, Spread: true, StrongPeaksPerSecond: 40, SuppressVoice: true}
)

type peak struct {
	t, f   int32
	v      float32
	strong bool // within StrongPeaksPerSecond
}

// Fingerprinter computes hashes with reusable buffers. It is not safe for
// concurrent use; make one per goroutine.
type Fingerprinter struct {
	opts      Options
	spec      *dsp.Spectrum
	power     []float32
	logs      []float32 // frames × nBins log power
	norm      []float32 // whitened
	rmax      []float32 // max along frequency
	tilt      []float32
	g, h      []float32 // slidingMax scratch
	frameMean []float32
	cands     []peak
	peaks     []peak
	voice     *voiceState // SuppressVoice
}

// New returns a Fingerprinter with the given options.
func New(opts Options) *Fingerprinter {
	opts.TargetDF = min(opts.TargetDF, 127)
	s := dsp.NewSpectrum(fftSize)
	return &Fingerprinter{opts: opts, spec: s, power: make([]float32, s.Bins()), g: make([]float32, nBins), h: make([]float32, nBins)}
}

// Fingerprint returns the hashes of pcm, resampled to SampleRate if needed,
// in time order. The result is freshly allocated; buffers are reused.
func (fp *Fingerprinter) Fingerprint(pcm audio.PCM) []Hash {
	return fp.AppendHashes(nil, pcm)
}

// AppendHashes appends the hashes of pcm to dst.
func (fp *Fingerprinter) AppendHashes(dst []Hash, pcm audio.PCM) []Hash {
	if pcm.Rate != SampleRate {
		pcm = dsp.Resample(pcm, SampleRate)
	}
	frames := fp.spectrogram(pcm.Samples)
	if frames == 0 {
		return dst
	}
	fp.whiten(frames)
	if fp.opts.SuppressVoice {
		fp.suppressVoice(frames)
	}
	fp.findPeaks(frames)
	fp.thin()
	return fp.pair(dst)
}

// grow returns b resliced to n, or a new slice when b cannot hold n; the
// contents are not cleared.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

func (fp *Fingerprinter) spectrogram(x []float32) int {
	frames := dsp.FrameCount(len(x), fftSize, hop)
	fp.logs = grow(fp.logs, frames*nBins)
	for f := range frames {
		a := f * hop
		fp.spec.Power(fp.power, x[a:min(a+fftSize, len(x))])
		row := fp.logs[f*nBins : (f+1)*nBins]
		for b := range row {
			row[b] = float32(math.Log(float64(fp.power[minBin+b]) + 1e-12))
		}
	}
	return frames
}

// findPeaks keeps points that are the maximum of their (2·peakDT+1) ×
// (2·peakDF+1) neighbourhood.
func (fp *Fingerprinter) findPeaks(frames int) {
	fp.rmax = grow(fp.rmax, frames*nBins)
	for f := range frames {
		slidingMax(fp.rmax[f*nBins:(f+1)*nBins], fp.norm[f*nBins:(f+1)*nBins], fp.g, fp.h, peakDF)
	}
	fp.cands = fp.cands[:0]
	for f := range frames {
		row := fp.norm[f*nBins : (f+1)*nBins]
		a, b := max(0, f-peakDT), min(frames-1, f+peakDT)
	bins:
		for k, v := range row {
			if v < fp.rmax[f*nBins+k] {
				continue
			}
			for g := a; g <= b; g++ {
				if g == f {
					continue
				}
				m := fp.rmax[g*nBins+k]
				// Ties go to the earlier frame so a plateau yields one peak.
				if m > v || (m == v && g < f) {
					continue bins
				}
			}
			fp.cands = append(fp.cands, peak{t: int32(f), f: int32(k), v: v})
		}
	}
}

// thin keeps a candidate when fewer than PeaksPerSecond stronger candidates
// lie within a one-second window centred on it. A centred window (rather
// than fixed blocks) makes the choice independent of where a clip starts.
func (fp *Fingerprinter) thin() {
	perWindow := func(perSecond float64) int { return int(math.Ceil(perSecond * float64(2*densityW+1) * FrameSeconds)) }
	limit, strong := perWindow(fp.opts.PeaksPerSecond), perWindow(fp.opts.StrongPeaksPerSecond)
	c := fp.cands
	fp.peaks = fp.peaks[:0]
	lo, hi := 0, 0
	for i, p := range c {
		for lo < len(c) && c[lo].t < p.t-int32(densityW) {
			lo++
		}
		for hi < len(c) && c[hi].t <= p.t+int32(densityW) {
			hi++
		}
		stronger := 0
		for j := lo; j < hi && stronger < limit; j++ {
			if c[j].v > p.v || (c[j].v == p.v && j < i) {
				stronger++
			}
		}
		if stronger < limit {
			p.strong = stronger < strong
			fp.peaks = append(fp.peaks, p)
		}
	}
}

func (fp *Fingerprinter) pair(dst []Hash) []Hash {
	o := fp.opts
	ps := fp.peaks
	maxDT := int32(min(o.TargetDT, maxTarget-1))
	for i, a := range ps {
		n := 0
		for j := i + 1; j < len(ps) && n < o.FanOut; j++ {
			b := ps[j]
			dt := b.t - a.t
			if dt > maxDT {
				break
			}
			df := b.f - a.f
			// A pair within one key quantum of frequency is mostly a held
			// note: it recurs all along the note and across unrelated music,
			// so it identifies nothing.
			if dt < 1 || df > int32(o.TargetDF) || df < -int32(o.TargetDF) || (df < fQ && df > -fQ) {
				continue
			}
			flag := uint32(0)
			if a.strong && b.strong {
				flag = StrongBit
			}
			dst = append(dst, Hash{Key: makeKey(a.f, df, dt) | flag, Time: uint32(a.t)})
			if o.Spread {
				if dt > 1 {
					dst = append(dst, Hash{Key: makeKey(a.f, df, dt-1) | flag, Time: uint32(a.t)})
				}
				dst = append(dst, Hash{Key: makeKey(a.f, df, dt+1) | flag, Time: uint32(a.t)})
			}
			n++
		}
	}
	return dst
}

// makeKey packs a pair; TargetDF ≤ 127 keeps the frequency difference in
// its 7 bits after quantization.
func makeKey(f, df, dt int32) uint32 {
	return uint32(f/fQ)<<13 | uint32((df+64*fQ)/fQ)<<6 | uint32(dt)
}

// slidingMax writes to dst the maximum of src over [i-w, i+w] using the
// van Herk/Gil-Werman scheme: prefix maxima (g) and suffix maxima (h) over
// blocks of 2w+1, so each output costs one comparison whatever w is. g and
// h are scratch of len(src).
func slidingMax(dst, src, g, h []float32, w int) {
	n := len(src)
	k := 2*w + 1
	for a := 0; a < n; a += k {
		b := min(a+k, n)
		g[a] = src[a]
		for i := a + 1; i < b; i++ {
			g[i] = max(g[i-1], src[i])
		}
		h[b-1] = src[b-1]
		for i := b - 2; i >= a; i-- {
			h[i] = max(h[i+1], src[i])
		}
	}
	for i := range n {
		lo, hi := i-w, i+w
		switch {
		case lo < 0 && hi >= n:
			dst[i] = slices.Max(src)
		// The window spans at most two blocks: the suffix of lo's block and
		// the prefix of hi's.
		case lo < 0:
			dst[i] = max(h[0], g[hi])
			if hi < k {
				dst[i] = g[hi]
			}
		case hi >= n:
			dst[i] = max(h[lo], g[n-1])
			if lo >= (n-1)/k*k {
				dst[i] = h[lo]
			}
		default:
			dst[i] = max(h[lo], g[hi])
		}
	}
}

// whiten ranks points by how far they would rise above pink noise as loud
// as the audio around them: log power plus ln(f) (undoing the 1/f tilt of
// pink noise, and roughly of music), minus the running mean over about two
// seconds of each frame's mean. Peaks chosen this way are the ones that
// survive the noise real recordings add (crowd, speech, wind and room noise
// are all close to pink). Whitening each bin by its own mean instead picks
// peaks in bins where the music is quiet, which the first noise buries:
// that measured 5–10× fewer surviving hashes at 0 dB.
func (fp *Fingerprinter) whiten(frames int) {
	fp.norm = grow(fp.norm, frames*nBins)
	if len(fp.tilt) != nBins {
		fp.tilt = make([]float32, nBins)
		for b := range fp.tilt {
			fp.tilt[b] = float32(math.Log(float64(minBin + b)))
		}
	}
	fm := grow(fp.frameMean, frames)
	fp.frameMean = fm
	for f := range frames {
		row := fp.logs[f*nBins : (f+1)*nBins]
		var s float32
		for b, v := range row {
			s += v + fp.tilt[b]
		}
		fm[f] = s / float32(nBins)
	}
	var sum float64
	lo, hi := 0, 0 // frames [lo, hi) are in sum
	for f := range frames {
		for hi < frames && hi <= f+meanFrames {
			sum += float64(fm[hi])
			hi++
		}
		for lo < f-meanFrames {
			sum -= float64(fm[lo])
			lo++
		}
		m := float32(sum / float64(hi-lo))
		row := fp.logs[f*nBins : (f+1)*nBins]
		out := fp.norm[f*nBins : (f+1)*nBins]
		for b, v := range row {
			out[b] = v + fp.tilt[b] - m
		}
	}
}
