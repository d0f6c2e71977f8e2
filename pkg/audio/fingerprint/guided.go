package fingerprint

import (
	"fmt"
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

// Reference returns the audio of a catalog track from fromSec for seconds
// (shorter at the track's end, empty past it), at any sample rate.
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
	// a voice a block stands 1–4 above chance, outside it 0 ± 0.7; 2 left
	// the last seconds of songs under narration out, 0.5 carried edges
	// past the cut (tuning half, seeds 4–7).
	guidedBar = 1.0
	// guidedQuiet (log10 of power): a block where the track is this much
	// (20 dB) softer than its median over the window – a rest, a fade – is
	// not heard under a voice and tells nothing either way.
	guidedQuiet = 2.0
)

// guidedNulls (seconds) are the displacements of the track that give the
// chance level: the same frames compared with other moments of the track.
var guidedNulls = []float64{-5.3, -3.7, -2.1, 2.3, 3.9, 5.7}

// GuideEdges moves the edges of the catalog stretches of st (not the warped
// ones) to where the track, compared with query at the stretch's alignment,
// begins and stops being heard, within guidedBack seconds outside and
// guidedIn inside each edge, never into a neighbouring catalog stretch.
// Music stretches no track explains give way to the moved edges; a piece of
// one left shorter than minPiece is dropped. query must be at SampleRate.
func GuideEdges(query audio.PCM, st []Stretch, ref Reference) ([]Stretch, error) {
	if query.Rate != SampleRate {
		return nil, fmt.Errorf("fingerprint: guided edges need %d Hz audio, got %d", SampleRate, query.Rate)
	}
	out := slices.Clone(st)
	qs := query.Seconds()
	var catalog []int
	for i, s := range out {
		if s.TrackID != "" && s.Speed == 0 && s.Semitones == 0 {
			catalog = append(catalog, i)
		}
	}
	for _, i := range catalog {
		s := &out[i]
		start, end := float64(s.StartMs)/1000, float64(s.EndMs)/1000
		shift := float64(s.TrackOffsetMs)/1000 - start // track time = query time + shift
		lo, hi := max(0, -shift), qs
		for j, o := range out {
			if j == i || o.TrackID == "" {
				continue
			}
			if o.EndMs <= s.StartMs {
				lo = max(lo, float64(o.EndMs)/1000)
			}
			if o.StartMs >= s.EndMs {
				hi = min(hi, float64(o.StartMs)/1000)
			}
		}
		mid := (start + end) / 2
		a := max(lo, start-guidedBack)
		z, err := presence(query, ref, s.TrackID, shift, a, min(mid, start+guidedIn))
		if err != nil {
			return nil, err
		}
		newStart := min(start, a+float64(startBlock(z))*guidedBlock)
		b := min(hi, end+guidedBack)
		from := max(mid, end-guidedIn)
		z, err = presence(query, ref, s.TrackID, shift, from, b)
		if err != nil {
			return nil, err
		}
		newEnd := max(end, min(b, from+float64(endBlock(z))*guidedBlock))
		if newEnd-newStart < 1 {
			continue
		}
		s.StartMs, s.EndMs = ms(newStart), ms(newEnd)
		s.TrackOffsetMs = ms(newStart + shift)
	}
	return giveWay(out), nil
}

// startBlock is the block where the track begins to be heard: the one
// that minimises the sum of (z − guidedBar) over the blocks before it.
func startBlock(z []float64) int {
	best, at, sum := 0.0, 0, 0.0
	for i, v := range z {
		sum += v - guidedBar
		if sum < best {
			best, at = sum, i+1
		}
	}
	return at
}

// endBlock is the block after the last one the track is heard in: the
// one that maximises the sum of (z − guidedBar) over the blocks before it.
func endBlock(z []float64) int {
	best, at, sum := 0.0, 0, 0.0
	for i, v := range z {
		sum += v - guidedBar
		if sum > best {
			best, at = sum, i+1
		}
	}
	return at
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
	slices.SortFunc(named, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	for _, s := range in {
		if s.TrackID != "" {
			out = append(out, s)
			continue
		}
		for _, piece := range (audio.Range{StartMs: s.StartMs, EndMs: s.EndMs}).Subtract(toRanges(named)) {
			if float64(piece.EndMs-piece.StartMs) >= minPiece*1000 {
				p := s
				p.StartMs, p.EndMs = piece.StartMs, piece.EndMs
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b Stretch) int { return int(a.StartMs - b.StartMs) })
	return out
}

// presence returns, for each guidedBlock of query from a to b seconds, how
// far the track at the alignment stands above chance, in standard
// deviations of the chance level (the track displaced by guidedNulls);
// guidedBar where the track is too quiet to tell, −guidedBar past its end.
func presence(query audio.PCM, ref Reference, id string, shift, a, b float64) ([]float64, error) {
	if b-a < guidedBlock {
		return nil, nil
	}
	qf, _ := whitenedFrames(query.Window(a, b-a+float64(guidedSize)/float64(query.Rate)))
	fs := float64(guidedHop) / float64(query.Rate)
	nq := int((b - a) / fs)
	qf = qf[:min(len(qf), nq)]
	margin := -guidedNulls[0] + 0.5
	r0 := max(0, a+shift-margin)
	rp, err := ref(id, r0, b+shift+margin+float64(guidedSize)/float64(query.Rate)-r0)
	if err != nil {
		return nil, err
	}
	if rp.Rate != query.Rate && len(rp.Samples) > 0 {
		rp = dsp.Resample(rp, query.Rate)
	}
	rf, re := whitenedFrames(rp)
	// frame j of rf starts at track time r0 + j·fs.
	refFrame := func(f int, d float64) int {
		return int(math.Round((a + float64(f)*fs + shift + d - r0) / fs))
	}
	per := int(math.Round(guidedBlock / fs))
	nb := (len(qf) + per - 1) / per
	score := func(d float64) (s []float64, n []int, e []float64) {
		s, n, e = make([]float64, nb), make([]int, nb), make([]float64, nb)
		for i := range e {
			e[i] = math.Inf(-1)
		}
		for f := range qf {
			j := refFrame(f, d)
			if j < 0 || j >= len(rf) {
				continue
			}
			s[f/per] += float64(dsp.Dot(qf[f], rf[j]))
			n[f/per]++
			e[f/per] = max(e[f/per], re[j])
		}
		for i := range s {
			s[i] /= float64(max(n[i], 1))
		}
		return s, n, e
	}
	at, count, energy := score(0)
	nulls := make([][]float64, len(guidedNulls))
	for k, d := range guidedNulls {
		nulls[k], _, _ = score(d)
	}
	var variance float64
	mean := make([]float64, nb)
	for i := range nb {
		for _, nl := range nulls {
			mean[i] += nl[i]
		}
		mean[i] /= float64(len(nulls))
		for _, nl := range nulls {
			variance += (nl[i] - mean[i]) * (nl[i] - mean[i])
		}
	}
	sd := math.Sqrt(variance / float64(nb*(len(nulls)-1)))
	var heard []float64
	for i := range nb {
		if count[i] > 0 && !math.IsInf(energy[i], -1) {
			heard = append(heard, energy[i])
		}
	}
	slices.Sort(heard)
	z := make([]float64, nb)
	for i := range nb {
		switch {
		case count[i] == 0:
			z[i] = -guidedBar
		case len(heard) > 0 && energy[i] < heard[len(heard)/2]-guidedQuiet:
			z[i] = guidedBar
		default:
			z[i] = min(8, max(-4, (at[i]-mean[i])/math.Max(sd, 1e-6)))
		}
	}
	return z, nil
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
