package fingerprint

import (
	"cmp"
	"math"
	"slices"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
)

// Guided edges: once a stretch names a track at an alignment, the track's
// own audio says what the query holds at every instant of it. Each frame's
// fine spectral structure (notes, partials, the colour of the drums) is
// compared with the track's at the same instant; a voice over the music
// adds structure of its own but not the track's, so the comparison hears
// the music where landmark pairs, which need two peaks to survive the
// voice, are too sparse to place an edge.

// Source returns audio from fromSec for seconds (shorter at its end, empty
// past it), at any sample rate.
type Source func(fromSec, seconds float64) (audio.PCM, error)

// Reference returns the audio of a catalog track as a Source does.
type Reference func(trackID string, fromSec, seconds float64) (audio.PCM, error)

const (
	guidedSize  = 1024 // FFT frame at 11025 Hz: 93 ms, 10.8-Hz bins
	guidedHop   = 256  // 23 ms
	guidedLoHz  = 100.0
	guidedHiHz  = 4000.0
	guidedSmear = 12 // bins each side of the local mean taken from a log spectrum

	// guidedBlock (seconds) is the resolution of a guided edge.
	guidedBlock = 0.25
	// guidedBack and guidedIn (seconds): a start is looked for from
	// guidedBack before the stretch's start to guidedIn after it (an end
	// likewise, mirrored).
	guidedBack = 8.0
	guidedIn   = 3.0
	// guidedBar is the presence (in standard deviations of the chance
	// level) a block must exceed to count as the track. Inside a song under
	// a voice a block stands 1–4 above chance, outside it 0 ± 0.7, but the
	// music after a cut can stand 1–2.5 above chance for seconds when it
	// resembles the track (the same song again, the same composer): 1.0
	// and 1.5 carried more narrated edges and cost edges between songs on
	// the catalog timelines (tuning half seeds 4–7, round 11).
	guidedBar = 2.0
	// guidedQuiet (log10 of power): a block where the track is this much
	// (20 dB) softer than its median over the window – a rest, a fade – is
	// not heard under a voice and tells nothing either way.
	guidedQuiet = 2.0
	// guidedGap (blocks): a pause this long where the track is absent ends
	// its presence (see upTo).
	guidedGap = 4
	// guidedGapBar is guidedBar between two placed catalog stretches (see
	// settleGaps).
	guidedGapBar = 1.0
	// guidedGapGain: the summed presence over guidedGapBar that moves an
	// edge into a gap. Where neither track plays (a pause between songs)
	// blocks stand 0 ± 1 above chance, and a sum drifting down by the bar
	// each block rarely climbs this far.
	guidedGapGain = 2.5
)

// guidedSameMusic is the least mean frame correlation between the track
// at the alignment and the track displaced by a null's shift at which the
// displaced track counts as the same music there, not chance. A song's
// intro of one held chord (a demo track's first bar) correlates with
// itself 2 s away as well as with the query (0.73–0.77 against 0.72–0.78),
// so the chance level rose to the track's own level and its start was
// never heard (a review found 3.9 s of a catalog track reported as
// unidentified music after a hard cut). Set at 0.5 before measuring:
// catalog timelines 96.6 → 97.2 % (two edges won, none lost).
const guidedSameMusic = 0.5

// guidedNulls (seconds) are the displacements of the track that give the
// chance level: the same frames compared with other moments of the track.
var guidedNulls = []float64{-5.3, -3.7, -2.1, 2.3, 3.9, 5.7}

// GuideEdges widens the catalog stretches of st (not the warped ones) to
// where the track, compared with query at the stretch's alignment, begins
// and stops being heard: an edge only ever moves outwards, at most
// guidedBack seconds, never into another catalog stretch, into music the
// background explains (see WithBackground) nor before the track's start.
// Music stretches no track explains give way to the moved edges; a piece
// of one left shorter than minPiece is dropped. querySeconds is the
// query's duration.
func GuideEdges(query Source, querySeconds float64, st []Stretch, ref Reference) ([]Stretch, error) {
	out := slices.Clone(st)
	for i := range out {
		s := &out[i]
		if s.TrackID == "" || s.Speed != 0 || s.Semitones != 0 {
			continue
		}
		track := trackOf(ref, s.TrackID)
		start, end := float64(s.StartMs)/1000, float64(s.EndMs)/1000
		shift := trackShift(*s)
		lo, hi := neighbourBounds(out, i)
		lo, hi = max(lo, 0, -shift, start-guidedBack), min(hi, querySeconds, end+guidedBack)
		mid := (start + end) / 2
		if lo < start {
			p, err := presence(query, track, shift, lo, min(mid, start+guidedIn))
			if err != nil {
				return nil, err
			}
			skip := p.upTo(start-lo, -1)
			if at, ok := p.changePoint(+1, start-lo-skip); ok {
				start = min(start, lo+skip+at)
			}
		}
		if hi > end {
			from := max(mid, end-guidedIn)
			p, err := presence(query, track, shift, from, hi)
			if err != nil {
				return nil, err
			}
			p.upTo(end-from, +1)
			if at, ok := p.changePoint(-1, end-from); ok {
				end = max(end, min(hi, from+at))
			}
		}
		newStart := ms(start)
		s.TrackOffsetMs += newStart - s.StartMs
		s.StartMs, s.EndMs = newStart, ms(end)
	}
	if err := settleGaps(query, out, ref); err != nil {
		return nil, err
	}
	return giveWay(out), nil
}

// settleGaps places the edges on either side of a gap between two catalog
// stretches that follow each other (the earlier one ending before the later
// one starts, at most guidedBack apart) where neither track, on its own,
// stood above guidedBar: the gap is split into the earlier track's blocks,
// blocks of neither and the later track's blocks, at the split where the
// two tracks' presence over guidedGapBar is largest. Under a voice, a song's
// last seconds stand only 1–2 above chance – too little against every
// passage that might resemble it, enough against a neighbour that is
// itself placed.
func settleGaps(query Source, st []Stretch, ref Reference) error {
	order := make([]int, 0, len(st))
	for i, s := range st {
		if s.TrackID != "" {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(st[a].StartMs, st[b].StartMs) })
	// A gap lies between the stretch reaching furthest so far and the next
	// one to start after it; no other catalog stretch covers any of it.
	last := -1
	for i, k := range order {
		if i == 0 {
			last = k
			continue
		}
		a, b := &st[last], &st[k]
		if b.EndMs > a.EndMs {
			last = k
		}
		if a.Speed != 0 || a.Semitones != 0 || b.Speed != 0 || b.Semitones != 0 {
			continue
		}
		from, to := float64(a.EndMs)/1000, float64(b.StartMs)/1000
		if to <= from || to-from > guidedBack || heldWithin(st, a.EndMs, b.StartMs) {
			continue
		}
		pa, err := presence(query, trackOf(ref, a.TrackID), trackShift(*a), from, to)
		if err != nil {
			return err
		}
		pb, err := laterPresence(query, ref, *b, from, to, pa.block)
		if err != nil {
			return err
		}
		n := min(len(pa.z), len(pb.z))
		if n == 0 {
			continue
		}
		pa.z, pa.quiet, pb.z, pb.quiet = pa.z[:n], pa.quiet[:n], pb.z[:n], pb.quiet[:n]
		// The last block may reach past the gap: edges stay inside it.
		endA, startB := splitGap(pa, pb)
		if endA > 0 {
			a.EndMs = min(ms(from+float64(endA)*pa.block), b.StartMs)
		}
		if startB < len(pb.z) {
			newStart := min(ms(from+float64(startB)*pb.block), b.StartMs)
			b.TrackOffsetMs += newStart - b.StartMs
			b.StartMs = newStart
		}
	}
	return nil
}

// heldWithin reports whether background music explains any of the time
// from to to (ms; see heldBy): such a gap is not left by the two catalog
// stretches around it.
func heldWithin(st []Stretch, from, to int64) bool {
	return slices.ContainsFunc(st, func(s Stretch) bool {
		held, ok := s.heldBy()
		return ok && s.TrackID == "" && held.StartMs < to && from < held.EndMs
	})
}

// laterPresence is the presence of stretch b's track in the gap from to to
// (seconds): where the gap begins before the track does (a song played
// from its start), the blocks before it are absent (−guidedBar), and the
// rest measured from the track's first block in the gap on.
func laterPresence(query Source, ref Reference, b Stretch, from, to, block float64) (blockPresence, error) {
	shift := trackShift(b)
	skip := 0
	if from+shift < 0 {
		skip = int(math.Ceil((-shift - from) / block))
	}
	p, err := presence(query, trackOf(ref, b.TrackID), shift, from+float64(skip)*block, to)
	if err != nil || skip == 0 {
		return p, err
	}
	p.z = append(slices.Repeat([]float64{-guidedBar}, skip), p.z...)
	p.quiet = append(make([]bool, skip), p.quiet...)
	return p, nil
}

// trackShift is s's track time minus query time (seconds), at any instant
// of the stretch.
func trackShift(s Stretch) float64 {
	return float64(s.TrackOffsetMs-s.StartMs) / 1000
}

// trackOf is the Source of one catalog track.
func trackOf(ref Reference, id string) Source {
	return func(from, seconds float64) (audio.PCM, error) { return ref(id, from, seconds) }
}

// splitGap returns the blocks of a gap the earlier track keeps (from its
// start) and the block the later one starts at: the split i ≤ j with the
// largest sum of the earlier track's presence over guidedGapBar – and over
// the later track's presence where that is higher – in blocks [0, i), and
// the later one's likewise in [j, n). A side whose sum stays under
// guidedGapGain keeps its edge. Quiet blocks count nothing.
func splitGap(early, late blockPresence) (endEarly, startLate int) {
	n := len(early.z)
	// head[i]: the earlier track's gain keeping blocks [0, i);
	// tail[j]: the later track's gain from block j on.
	head := make([]float64, n+1)
	tail := make([]float64, n+1)
	for i := range n {
		head[i+1] = head[i] + early.excess(i, max(guidedGapBar, late.heard(i)))
	}
	for j := n - 1; j >= 0; j-- {
		tail[j] = tail[j+1] + late.excess(j, max(guidedGapBar, early.heard(j)))
	}
	best := math.Inf(-1)
	bestHead := 0 // argmax of head over [0, j]
	endEarly, startLate = 0, n
	for j := 0; j <= n; j++ {
		if head[j] > head[bestHead] {
			bestHead = j
		}
		if g := head[bestHead] + tail[j]; g >= best-1e-9 { // ties: the later start
			best, endEarly, startLate = g, bestHead, j
		}
	}
	if head[endEarly] < guidedGapGain {
		endEarly = 0
	}
	if tail[startLate] < guidedGapGain {
		startLate = n
	}
	return endEarly, startLate
}

// heard is block k's presence, −Inf where the track is too quiet to tell.
func (p blockPresence) heard(k int) float64 {
	if p.quiet != nil && p.quiet[k] {
		return math.Inf(-1)
	}
	return p.z[k]
}

// excess is block k's presence over bar, 0 where the track is too quiet to
// tell.
func (p blockPresence) excess(k int, bar float64) float64 {
	if p.quiet != nil && p.quiet[k] {
		return 0
	}
	return p.z[k] - bar
}

// neighbourBounds is how far stretch i may widen (seconds): to the other
// catalog stretches' nearest edges before and after it (overlapping ones
// included), and to the time background music explains (heldBy), else
// unbounded.
func neighbourBounds(st []Stretch, i int) (lo, hi float64) {
	s := st[i]
	loMs, hiMs := int64(math.MinInt64), int64(math.MaxInt64)
	for j, o := range st {
		held, ok := o.heldBy()
		if j == i || !ok {
			continue
		}
		if held.StartMs < s.StartMs {
			loMs = max(loMs, min(held.EndMs, s.StartMs))
			if held.EndMs > s.EndMs {
				hiMs = min(hiMs, s.EndMs) // it holds the time on both sides
			}
		} else {
			hiMs = min(hiMs, max(held.StartMs, s.EndMs))
		}
	}
	return float64(loMs) / 1000, float64(hiMs) / 1000
}

// giveWay trims the stretches no track explains to what the catalog ones
// leave of them, dropping pieces shorter than minPiece.
func giveWay(in []Stretch) []Stretch {
	var named, out []Stretch
	for _, s := range in {
		if s.TrackID != "" {
			named = append(named, s)
		}
	}
	sortStretches(named)
	cut := toRanges(named)
	for _, s := range in {
		if s.TrackID != "" {
			out = append(out, s)
		} else {
			out = append(out, remnants(s, cut)...)
		}
	}
	sortStretches(out)
	return out
}

// blockPresence is how far a track at an alignment stands above chance in
// each block of a query window, in standard deviations of the chance level
// (the track displaced by guidedNulls): guidedBar where the track is too
// quiet to tell, −guidedBar where it has no audio (before its start, past
// its end).
type blockPresence struct {
	z     []float64
	quiet []bool  // the blocks where the track is too quiet to tell, when known
	block float64 // seconds a block spans
}

// upTo keeps the blocks from the edge (seconds from the window's start)
// outwards (dir −1: before it, +1: after it) only up to and including the
// first guidedGap blocks in a row where the track is absent (z under
// guidedBar/2): an edge is widened over the music that goes on from it,
// not across a pause to a later passage that resembles the track – music
// repeats itself, and the next part of a video may play the same song
// again. It returns the seconds dropped from the window's start.
func (p *blockPresence) upTo(edge float64, dir int) float64 {
	e := min(len(p.z), max(0, int(edge/p.block)))
	run := 0
	if dir > 0 {
		for k := e; k < len(p.z); k++ {
			if run = absentRun(run, p.z[k]); run == guidedGap {
				p.z = p.z[:k+1]
				if p.quiet != nil {
					p.quiet = p.quiet[:k+1]
				}
				break
			}
		}
		return 0
	}
	for k := e - 1; k >= 0; k-- {
		if run = absentRun(run, p.z[k]); run == guidedGap {
			p.z = p.z[k:]
			if p.quiet != nil {
				p.quiet = p.quiet[k:]
			}
			return float64(k) * p.block
		}
	}
	return 0
}

// absentRun is the run of absent blocks after one with presence z.
func absentRun(run int, z float64) int {
	if z < guidedBar/2 {
		return run + 1
	}
	return 0
}

// changePoint is where the track's presence begins (dir +1) or ends (dir
// −1), seconds from the window's start: the block boundary that best
// splits the window into absent and present blocks (the sum of z −
// guidedBar over the present ones is largest). Blocks that tell nothing
// tie: a tie that spans edge (the edge as it is, seconds from the window's
// start) keeps it, another is split in the middle. False for an empty
// window.
func (p blockPresence) changePoint(dir int, edge float64) (float64, bool) {
	if len(p.z) == 0 {
		return 0, false
	}
	// gain[k]: the present blocks are those from k on (a start) or before
	// k (an end).
	gain := make([]float64, len(p.z)+1)
	for k := range p.z {
		gain[k+1] = gain[k] + p.z[k] - guidedBar
	}
	if dir > 0 {
		for k := range gain {
			gain[k] = gain[len(p.z)] - gain[k]
		}
	}
	best := slices.Max(gain)
	first, last := -1, 0
	for k, g := range gain {
		if g >= best-1e-9 {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	lo, hi := float64(first)*p.block, float64(last)*p.block
	if edge >= lo-p.block/2 && edge <= hi+p.block/2 {
		return edge, true
	}
	return (lo + hi) / 2, true
}

// presence measures the track at shift (track time = query time + shift)
// in the query from a to b seconds.
func presence(query, track Source, shift, a, b float64) (blockPresence, error) {
	fs := float64(guidedHop) / SampleRate
	per := int(math.Round(guidedBlock / fs))
	p := blockPresence{block: float64(per) * fs}
	frames := int((b - a) / fs)
	if frames < per {
		return p, nil
	}
	frameSeconds := float64(guidedSize) / SampleRate
	qa, err := query(a, float64(frames)*fs+frameSeconds)
	if err != nil {
		return p, err
	}
	qf, _ := whitenedFrames(atRate(qa))
	qf = qf[:min(len(qf), frames)]
	// The track's window starts a whole number of hops (lead) before the
	// query's aligned start, so that undisplaced frames line up exactly.
	widest := 0.0
	for _, d := range guidedNulls {
		widest = max(widest, math.Abs(d))
	}
	lead := min(int(math.Ceil(widest/fs))+1, int(math.Floor((a+shift)/fs)))
	r0 := a + shift - float64(lead)*fs
	ta, err := track(r0, float64(frames+2*lead)*fs+frameSeconds)
	if err != nil {
		return p, err
	}
	tf, energy := whitenedFrames(atRate(ta))
	at := blockScores(qf, tf, energy, lead, per)
	// The track's own frames at the alignment: where the track displaced
	// by a null's shift is the same music (a held chord, a loop), that
	// null is no chance level there (see guidedSameMusic).
	self := tf[min(lead, len(tf)):min(lead+len(qf), len(tf))]
	var nulls []scores
	for _, d := range guidedNulls {
		off := lead + int(math.Round(d/fs))
		null := blockScores(qf, tf, energy, off, per)
		same := blockScores(self, tf, energy, off, per)
		for b := range null.n {
			if b < len(same.n) && same.n[b] > 0 && same.mean[b] >= guidedSameMusic {
				null.n[b] = 0
			}
		}
		nulls = append(nulls, null)
	}
	mean, sd := chanceLevel(nulls, len(at.mean))
	quiet := quietLevel(at)
	p.z = make([]float64, len(at.mean))
	p.quiet = make([]bool, len(at.mean))
	for i := range p.z {
		switch {
		case at.n[i] == 0:
			p.z[i] = -guidedBar
		case at.loudest[i] < quiet:
			p.z[i], p.quiet[i] = guidedBar, true
		default:
			p.z[i] = min(8, max(-4, (at.mean[i]-mean[i])/math.Max(sd, 1e-6)))
		}
	}
	return p, nil
}

// atRate is p at SampleRate.
func atRate(p audio.PCM) audio.PCM {
	if p.Rate != SampleRate && len(p.Samples) > 0 {
		return dsp.Resample(p, SampleRate)
	}
	return p
}

// scores are a comparison's per-block mean frame correlations, the frames
// compared (0 where the track has none) and the track's loudest frame
// (log10 power).
type scores struct {
	mean, loudest []float64
	n             []int
}

// blockScores compares query frame f with track frame f+offset, per block
// of per frames.
func blockScores(qf, tf [][]float32, energy []float64, offset, per int) scores {
	nb := (len(qf) + per - 1) / per
	s := scores{mean: make([]float64, nb), loudest: make([]float64, nb), n: make([]int, nb)}
	for i := range s.loudest {
		s.loudest[i] = math.Inf(-1)
	}
	for f := range qf {
		j, b := f+offset, f/per
		if j < 0 || j >= len(tf) {
			continue
		}
		s.mean[b] += float64(dsp.Dot(qf[f], tf[j]))
		s.n[b]++
		s.loudest[b] = max(s.loudest[b], energy[j])
	}
	for b := range s.mean {
		s.mean[b] /= float64(max(s.n[b], 1))
	}
	return s
}

// chanceLevel is each block's mean over the displaced comparisons that
// have track frames there, and the standard deviation pooled over all
// blocks.
func chanceLevel(nulls []scores, blocks int) (mean []float64, sd float64) {
	mean = make([]float64, blocks)
	var ss float64
	df := 0
	for b := range blocks {
		k := 0
		for _, n := range nulls {
			if n.n[b] > 0 {
				mean[b] += n.mean[b]
				k++
			}
		}
		if k < 2 {
			continue
		}
		mean[b] /= float64(k)
		for _, n := range nulls {
			if n.n[b] > 0 {
				ss += (n.mean[b] - mean[b]) * (n.mean[b] - mean[b])
			}
		}
		df += k - 1
	}
	return mean, math.Sqrt(ss / float64(max(df, 1)))
}

// quietLevel is the loudness (log10 power) under which a block of the
// track is too quiet to tell: guidedQuiet under the median of its blocks
// that have frames.
func quietLevel(s scores) float64 {
	var heard []float64
	for b, n := range s.n {
		if n > 0 {
			heard = append(heard, s.loudest[b])
		}
	}
	if len(heard) == 0 {
		return math.Inf(-1)
	}
	slices.Sort(heard)
	return heard[len(heard)/2] - guidedQuiet
}

// whitenedFrames returns the frames of p as log spectra between guidedLoHz
// and guidedHiHz with their local mean across frequency removed and unit
// norm (a silent frame is all zeros), and each frame's log10 power there.
func whitenedFrames(p audio.PCM) (frames [][]float32, energy []float64) {
	sp := dsp.NewSpectrum(guidedSize)
	lo := int(guidedLoHz * guidedSize / float64(p.Rate))
	hi := int(guidedHiHz * guidedSize / float64(p.Rate))
	n := dsp.FrameCount(len(p.Samples), guidedSize, guidedHop)
	pow := make([]float32, sp.Bins())
	lg := make([]float64, hi-lo)
	prefix := make([]float64, hi-lo+1)
	for f := range n {
		a := f * guidedHop
		sp.Power(pow, p.Samples[a:min(a+guidedSize, len(p.Samples))])
		e := 0.0
		for k := lo; k < hi; k++ {
			e += float64(pow[k])
			lg[k-lo] = math.Log(float64(pow[k]) + 1e-9)
			prefix[k-lo+1] = prefix[k-lo] + lg[k-lo]
		}
		row := make([]float32, hi-lo)
		if e > 1e-6 {
			var norm float64
			for k := range lg {
				a, b := max(0, k-guidedSmear), min(len(lg), k+guidedSmear+1)
				v := lg[k] - (prefix[b]-prefix[a])/float64(b-a)
				row[k] = float32(v)
				norm += v * v
			}
			if norm > 0 {
				s := float32(1 / math.Sqrt(norm))
				for k := range row {
					row[k] *= s
				}
			}
		}
		frames = append(frames, row)
		energy = append(energy, math.Log10(e+1e-12))
	}
	return frames, energy
}
