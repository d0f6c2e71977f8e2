package basicpitch

import (
	"fmt"
	"math"
)

// Basic Pitch's framing (its inference.js): windows overlap by 30 frames,
// and each side's 15 are dropped from what a window says, so a window
// stands for WindowStep samples.
const (
	overlap    = 30 * Hop
	WindowStep = WindowSamples - overlap
	trim       = 15
)

// DefaultExcerpts is how many evenly spread windows of a track Embed
// analyzes: what issue 15 item 6 measured (a few seconds stand for the
// track at a fraction of the cost).
const DefaultExcerpts = 4

// Windows frames samples (22,050 Hz) as Basic Pitch does, half an overlap
// of zeros first, and keeps excerpts of the windows, the k-th at
// (2k+1)/2n of the track; excerpts <= 0 keeps them all.
func Windows(samples []float32, excerpts int) [][]float32 {
	padded := make([]float32, overlap/2+len(samples))
	copy(padded[overlap/2:], samples)
	var all [][]float32
	for s := 0; s < len(padded); s += WindowStep {
		w := make([]float32, WindowSamples)
		copy(w, padded[s:min(s+WindowSamples, len(padded))])
		all = append(all, w)
		if s+WindowSamples >= len(padded) {
			break
		}
	}
	if excerpts <= 0 || len(all) <= excerpts {
		return all
	}
	out := make([][]float32, excerpts)
	for k := range out {
		out[k] = all[(2*k+1)*len(all)/(2*excerpts)]
	}
	return out
}

// Block is one named part of an embedding: Len values from Offset.
type Block struct {
	Name        string
	Offset, Len int
}

// bands is how many frequency bands a hidden layer's channels are pooled
// over (about an octave each on the 88 keys).
const bands = 6

// Blocks lay out an embedding: the outputs' per-bin means (and the notes'
// standard deviation), then the hidden layers per channel (timbre-like,
// pitch-independent) and per channel and band (register). Per-bin means
// of the hidden layers (264 × 8, 88 × 32) would swamp the rest.
var Blocks = func() []Block {
	var out []Block
	off := 0
	for _, b := range []struct {
		name string
		n    int
	}{
		{"note_mean", 88}, {"note_std", 88}, {"onset_mean", 88}, {"contour_mean", 264},
		{"relu1_ch", 8}, {"relu2_ch", 32}, {"relu3_ch", 32},
		{"relu1_band", 8 * bands}, {"relu2_band", 32 * bands}, {"relu3_band", 32 * bands},
	} {
		out = append(out, Block{b.name, off, b.n})
		off += b.n
	}
	return out
}()

// EmbeddingDim is the length of an embedding (the sum of Blocks).
const EmbeddingDim = 1032

// pool accumulates one tensor's sum and sum of squares per inner element
// over the kept frames of every window.
type pool struct {
	sum, sq []float64
	n       int
	shape   []int // [bins] or [bins, channels]
}

func (p *pool) add(t Tensor) error {
	frames := t.Shape[0]
	inner := size(t.Shape[1:])
	if p.sum == nil {
		p.sum, p.sq, p.shape = make([]float64, inner), make([]float64, inner), t.Shape[1:]
	}
	if inner != len(p.sum) || frames <= 2*trim {
		return fmt.Errorf("basicpitch: activation of shape %v", t.Shape)
	}
	for f := trim; f < frames-trim; f++ {
		row := t.Data[f*inner:][:inner]
		for k, v := range row {
			p.sum[k] += float64(v)
			p.sq[k] += float64(v) * float64(v)
		}
	}
	p.n += frames - 2*trim
	return nil
}

func (p *pool) mean() []float64 {
	out := make([]float64, len(p.sum))
	for k, s := range p.sum {
		out[k] = s / float64(p.n)
	}
	return out
}

func (p *pool) std() []float64 {
	out := make([]float64, len(p.sum))
	for k, s := range p.sum {
		m := s / float64(p.n)
		out[k] = math.Sqrt(max(0, p.sq[k]/float64(p.n)-m*m))
	}
	return out
}

// channels pools a hidden layer's per-(bin, channel) means to one value
// per channel and one per channel and band.
func (p *pool) channels() (perCh, perBand []float64) {
	m := p.mean()
	freq, ch := p.shape[0], p.shape[1]
	perCh, perBand = make([]float64, ch), make([]float64, ch*bands)
	for f := range freq {
		band := min(bands-1, f*bands/freq)
		for c := range ch {
			perCh[c] += m[f*ch+c] / float64(freq)
			perBand[c*bands+band] += m[f*ch+c] / (float64(freq) / bands)
		}
	}
	return perCh, perBand
}

// Embed runs the network over excerpts windows of samples (22,050 Hz mono
// in [-1, 1]; Windows) and pools its activations into one vector laid out
// as Blocks.
func (n *Network) Embed(samples []float32, excerpts int) ([]float32, error) {
	var pools [6]pool
	for _, w := range Windows(samples, excerpts) {
		a, err := n.Run(w)
		if err != nil {
			return nil, err
		}
		for k, t := range []Tensor{a.Contour, a.Note, a.Onset, a.Relu1, a.Relu2, a.Relu3} {
			if err := pools[k].add(t); err != nil {
				return nil, err
			}
		}
	}
	contour, note, onset, relu1, relu2, relu3 := &pools[0], &pools[1], &pools[2], &pools[3], &pools[4], &pools[5]
	r1c, r1b := relu1.channels()
	r2c, r2b := relu2.channels()
	r3c, r3b := relu3.channels()
	out := make([]float32, 0, EmbeddingDim)
	for _, part := range [][]float64{note.mean(), note.std(), onset.mean(), contour.mean(), r1c, r2c, r3c, r1b, r2b, r3b} {
		for _, v := range part {
			out = append(out, float32(v))
		}
	}
	if len(out) != EmbeddingDim {
		return nil, fmt.Errorf("basicpitch: embedding of %d values, want %d", len(out), EmbeddingDim)
	}
	return out, nil
}
