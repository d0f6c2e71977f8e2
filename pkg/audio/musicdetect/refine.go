package musicdetect

import (
	"math"

	"musiccatalog/pkg/audio"
)

// Edges to the frame. Blocks are about a second long, so a range's edge
// can lie up to a block off the music's: under a voice the block holding
// the music's last tenth of a second still passes when its own faint
// partials – a chance one in the voice alone after it, say – reach the
// median, and the range ends a second late; where the music starts late
// in its first block the range starts early. The held partials are
// counted frame by frame (46 ms), so each edge between music and no music
// is placed again where they stop: within refineBlocks of its block edge,
// at the split of those frames that best separates a higher rate of held
// partials inside the range from a lower one outside (two Poisson rates,
// see split), when it gains at least minSplitGain over one rate, then out
// over partials less than maxGapFrames apart (under a voice the music's
// partials thin out near its edges rather than stop: the split alone fell
// 0.3–0.9 s inside the music at a quarter of the edges, see reachOut).
// Where the evidence does not change – a drum passage with no held pitch,
// music on past its last partial – the edge stays.
//
// Measured on the issue-16 narration benchmark's tuning half (264 videos,
// music 8 dB under the voice, whose cuts happen to lie within 0.12 s of a
// block edge): the range edges within 0.5 s of the cut 422 → 426 of 498,
// the ranges running a block into the voice alone (4 ends at +1.08 s)
// placed within 0.1 s. TestEdgesToTheFrame puts the cut anywhere in a
// block. With the cuts 0.3 s inside blocks (AUDIO_BENCH_SPEECH_LEAD=5.6,
// 96 videos at −8 and −14 dB) the split cleared minSplitGain at 76 of the
// 81 range edges near a cut on one draw, and the median distance from a
// range edge to its cut fell from 483 to 135 ms over 384 edges. The gain
// is no chance bound – a held partial adds a run of counts, not
// independent events – and next to speech about one edge in 20 moves out
// by chance (up to 1.2 s).
const (
	// refineBlocks is how many blocks inside an edge, and one outside,
	// its frames are searched over.
	refineBlocks = 2
	// minSplitGain is the least log-likelihood gain (nats) of two rates
	// over one that moves an edge.
	minSplitGain = 5.0
	// maxGapFrames is the longest run of frames without a held partial an
	// edge is carried over past the split (0.46 s; 0.28 s and 0.7 s
	// placed fewer edges within 0.5 s).
	maxGapFrames = 10
)

// frameEvidence is the held partials frame by frame (see frameHeld), with
// the frames per block and the hop (samples).
type frameEvidence struct {
	held     []float64
	perBlock int
	hop      int
}

// frameHeld is the held partials of each frame the edges are placed by: the
// faint ones (a partial is credited to the frame heldFrames/2 before the
// one that completes its hold, see holds.frame) where the frame is not
// noise-flat, the clear ones where it is – noise makes faint peaks that
// linger by chance (see Options.MaxFlatness).
func frameHeld(clear, faint, flat []float64, o Options) []float64 {
	out := make([]float64, len(faint))
	for f := range out {
		if flat[f] < o.MaxFlatness {
			out[f] = faint[f]
		} else {
			out[f] = clear[f]
		}
	}
	return out
}

// refineEdges moves the edges of rs (block edges, from ranges) between
// music and no music to the frame where the held partials stop (see
// above). Edges at the recording's ends stay; ranges keep their order and
// do not overlap, and a range the refined edges would make shorter than
// minMs – its end taken at most durMs, the audio's length, where Detect
// will cut it – keeps its block edges: both edges' searches can reach over
// the whole of a short range, and a drum passage with one held note in it
// would shrink to the note, under the length ranges drops.
func refineEdges(rs []audio.Range, ev frameEvidence, rate int, minMs, durMs int64) {
	if ev.perBlock == 0 || len(ev.held) == 0 {
		return
	}
	blockMs := float64(ev.perBlock*ev.hop) / float64(rate) * 1000
	frameMs := func(f int) int64 { return int64((float64(f) + 0.5) * float64(ev.hop) / float64(rate) * 1000) }
	n := len(ev.held)
	for k := range rs {
		r := &rs[k]
		keep := *r
		i := int(math.Round(float64(r.StartMs) / blockMs))
		j := int(math.Round(float64(r.EndMs) / blockMs))
		lo, hi := max(0, (i-1)*ev.perBlock), min(n, (i+refineBlocks)*ev.perBlock)
		if k > 0 {
			lo = max(lo, int(math.Ceil(float64(rs[k-1].EndMs)/blockMs*float64(ev.perBlock))))
		}
		if i > 0 && j > i {
			if s, ok := split(ev.held[lo:min(hi, j*ev.perBlock)], -1); ok {
				// The first credited frame is heldFrames/2−1 after the
				// first frame the partial shows in.
				r.StartMs = max(frameMs(lo+s-(heldFrames/2-1)), 0)
				if k > 0 {
					r.StartMs = max(r.StartMs, rs[k-1].EndMs)
				}
			}
		}
		lo, hi = max(i*ev.perBlock, (j-refineBlocks)*ev.perBlock), min(n, (j+1)*ev.perBlock)
		if k+1 < len(rs) {
			hi = min(hi, int(math.Round(float64(rs[k+1].StartMs)/blockMs))*ev.perBlock)
		}
		if j*ev.perBlock < n && hi > lo {
			if s, ok := split(ev.held[lo:hi], 1); ok {
				// The last credited frame is heldFrames/2 before the last
				// frame the partial shows in.
				r.EndMs = frameMs(lo + s - 1 + heldFrames/2)
				if k+1 < len(rs) {
					r.EndMs = min(r.EndMs, rs[k+1].StartMs)
				}
			}
		}
		if r.EndMs <= r.StartMs || min(r.EndMs, durMs)-r.StartMs < minMs {
			*r = keep
		}
	}
}

// mergeClose joins neighbouring ranges that refined edges left less than
// a block apart: block ranges always had a block of no music between
// them, and a gap shorter than that is no evidence of one.
func mergeClose(rs []audio.Range, gapMs int64) []audio.Range {
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.StartMs-out[n-1].EndMs < gapMs {
			out[n-1].EndMs = max(out[n-1].EndMs, r.EndMs)
			continue
		}
		out = append(out, r)
	}
	return out
}

// split finds the frame s of x where a higher rate of counts gives way to
// a lower one – inside the range first (dir +1: x[:s] inside) or last
// (dir −1: x[s:] inside) – by the log-likelihood of two Poisson rates
// over one, and reports whether it gains minSplitGain.
func split(x []float64, dir int) (int, bool) {
	total := 0.0
	for _, v := range x {
		total += v
	}
	n := float64(len(x))
	ll := func(s, m float64) float64 {
		if s <= 0 || m <= 0 {
			return 0
		}
		return s * math.Log(s/m)
	}
	one := ll(total, n)
	best, at := 0.0, -1
	left := 0.0
	for s := 1; s < len(x); s++ {
		left += x[s-1]
		m1, m2 := float64(s), n-float64(s)
		in, out := left/m1, (total-left)/m2
		if dir < 0 {
			in, out = out, in
		}
		if in <= out {
			continue
		}
		if g := ll(left, m1) + ll(total-left, m2) - one; g > best {
			best, at = g, s
		}
	}
	// Decided before reaching out: a start whose partials run back to the
	// window's first frame reaches 0 and is still a split.
	ok := at > 0 && best >= minSplitGain
	if ok {
		at = reachOut(x, at, dir)
	}
	return at, ok
}

// reachOut moves split s of x (as split returns it) outwards over held
// partials no more than maxGapFrames apart.
func reachOut(x []float64, s, dir int) int {
	g := maxGapFrames
	if dir > 0 { // x[:s] inside: the last inside frame is s-1
		last := s - 1
		for i := s; i < len(x) && i-last <= g; i++ {
			if x[i] > 0 {
				last = i
			}
		}
		return last + 1
	}
	first := s
	for i := s - 1; i >= 0 && first-i <= g; i-- {
		if x[i] > 0 {
			first = i
		}
	}
	return first
}
