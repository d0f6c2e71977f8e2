package fingerprint

import (
	"math"
)

// Voice suppression (issue 16: music under narration). A voice 8–14 dB
// over the music takes most of a query's peak budget: its harmonics are
// the loudest points of the spectrogram, and each one is the maximum of a
// neighbourhood (peakDF bins either side) that would otherwise hold a peak
// of the music. Voiced speech is a comb of harmonics at k·f0 whose f0
// (60–500 Hz) glides from frame to frame; the music's peaks that the index
// keeps are mostly held partials. So, on the query side only (the index is
// unchanged), each frame's best harmonic comb is found, combs are linked
// into tracks across frames, and a track whose f0 keeps moving – a voice,
// not a held note or chord – has its harmonics' bins lowered to the level
// beside them before the peaks are picked, so that the peak budget goes to
// what sounds between and around them. A sung lead is a harmonic comb
// too, and its vibrato glides as fast as speech: frames where the f0 swings
// periodically around a held centre (sungNote) are a singer's note, part
// of the catalog song, and are left alone.
//
// The comb search (voiceLowF0 to voiceMaxF0) is a subharmonic summation
// (each candidate f0 scores the contrast at its first voiceHarmonics
// multiples, the k-th weighted voiceDecay^(k-1)) followed by an octave
// check (octave): a voice whose fundamental is weak or missing (a thin
// voice, a telephone band, or one under voiceLowF0, which is not searched)
// fits the comb at 2·f0 or 3·f0 as well as its own, and the summation
// prefers it when its first harmonic is gone; the check moves to f0/3 or
// f0/2 (down to voiceMinF0) when the spectrum between the chosen comb's
// teeth holds its share of the energy (the harmonics the higher comb does
// not explain). A comb at f0/2 of a true f0 leaves every other tooth empty
// and scores at most about half of it (voiceDecay), so the check is needed
// only downwards.
const (
	// voiceMinF0 and voiceMaxF0 bound the f0 of a voice (Hz): low male
	// voices go below 80 Hz, children's and excited voices above 400. With
	// 80–400 a voice around 70 Hz was tracked an octave up (its odd
	// harmonics left) and one around 450 Hz not at all.
	voiceMinF0 = 60.0
	voiceMaxF0 = 500.0
	// voiceLowF0 (Hz) is where the comb search starts; below it a voice is
	// reached through its octave: the comb at 2·f0 (its even harmonics) is
	// the best one and the octave check moves it down. A comb this low has
	// its teeth under 1 kHz and ±1 bin (c3) is ±0.5 semitone at its
	// fundamental, so the best comb of a held bass note jitters over grid
	// steps as if it glided; a track that goes below voiceLowF0 must also
	// glide in its trend: its f0 averaged over 2·voiceTrendFrames+1 frames
	// spans voiceMinRange. On the tuning halves (BenchmarkVoicedFrames:
	// music frames taken for a voice, in pink noise 10 dB under it,
	// narration frames) 80–400 Hz took 0.65 / 1.00 / 63.3 %, this 0.60 /
	// 0.99 / 63.6 % (0.73 / 0.99 / 63.8 % without the trend rule). Searching
	// from 60 Hz took 0.98 / 1.72 / 64.3 % (held notes at 64–75 Hz), 0.32 /
	// 1.46 / 63.8 % with the trend rule, and changed the masking of music
	// enough to lose TestTimelineModulatedRepeat's chance identity match.
	// The trend rule on every track took 0.22 / 0.43 but 55.1 % of the
	// narration (a syllable is short and glides in its trend only in part).
	voiceLowF0       = 80.0
	voiceTrendFrames = 2
	// voiceOctaveShare is the least share of a comb's evidence (weighted
	// contrast at its teeth) that the points between them must hold for the
	// octave check to move to f0/2 (the midpoints) or f0/3 (the thirds).
	// A voice without its fundamental holds about 0.85 there, a comb of a
	// voice or note with its fundamental about none. On the tuning halves,
	// with the search from 60 Hz, 0.4–0.6 took 0.34–0.29 % of the music's
	// frames (1.47–1.52 % in noise) and the same narration. Comparing whole
	// scores instead (the contrast between a comb's teeth as a penalty, the
	// comb at f0/2 or f0/3 taken when its penalised score is higher) took
	// 1.52 % of the noisy music's frames at 80–400 Hz against 1.04 % with
	// this check; using the penalised score for every candidate tracked a
	// sung lead over a chord better than the chord's comb and left more of
	// it to the vibrato rule, which passed 17 % of its frames
	// (TestSungLineKept).
	voiceOctaveShare = 0.5
	// voiceStepsPerSemitone is the f0 grid. A step is 0.72 % of f0, so
	// the tenth harmonic moves 0.8 bins a step at 60 Hz and 6.7 at 500 Hz:
	// a comb reads each harmonic as the best of ±1 bin (c3), which covers
	// the low harmonics between grid steps; the high ones of a high voice
	// may fall between, and maskComb re-centres every harmonic on its
	// loudest bin before masking it.
	voiceStepsPerSemitone = 8
	// voiceHarmonics is how many harmonics score a comb; voiceDecay
	// weights the k-th by voiceDecay^(k-1) so that an octave below or
	// above the true f0 scores less.
	voiceHarmonics = 10
	voiceDecay     = 0.9
	// voiceContrastBins is the half-width of the local mean a bin's
	// contrast is taken over; voiceContrastCap (log power, ~26 dB) caps one
	// bin's contribution so that a single loud partial is no comb. At 13 dB
	// a chord's comb tied a louder voice's and the track hopped to it.
	voiceContrastBins = 10
	voiceContrastCap  = 6.0
	// voiceMinSalience is the least comb score (0..1) of a voiced frame.
	voiceMinSalience = 0.3
	// voiceLinkSemitones is the largest f0 step between linked frames.
	voiceLinkSemitones = 1.0
	// A voice track lasts voiceMinFrames, spans voiceMinRange semitones,
	// moves voiceMinGlide semitones a frame on average and stays on one
	// grid step in at most voiceMaxFlat of its steps: a held note stands
	// still, a melody moves in steps between held notes, and the best comb
	// of a chord hops between its notes. Chosen on the tuning halves of the
	// songs and voices (60 s of each tuning song, alone and in pink noise
	// at 10 dB, 40 s × 3 of each tuning voice): 1.0 % of the music's frames
	// pass (1.6 % in the noise), 77 % of the voice's. Three frames let 1.1
	// / 1.7 % through and touched a real song in TestTimelineRealBoundaries.
	voiceMinFrames = 4
	voiceMinRange  = 0.5
	voiceMinGlide  = 0.125
	voiceMaxFlat   = 0.4
	// voiceMaskBins is the least half-width of a masked harmonic (the
	// window's main lobe); a gliding harmonic is smeared further, by what
	// it moves over the window, but masks wider than voiceMaskMaxBins took
	// more music than voice (tuning half, Match scores of the narrated
	// videos: 4–5 best, 3, 6, 8, 12 and half the harmonic spacing worse; 5
	// took the one aligned frame that carries TestSongUnderNarration's end).
	voiceMaskBins    = 2
	voiceMaskMaxBins = 4
	// voiceDepth (log power, ~4 dB) is how far a masked harmonic goes
	// below the level beside it: where the voice smears over its whole
	// band the level beside a harmonic is still the voice's.
	voiceDepth = 1.0
	// voiceMaskSlope (log power a bin) deepens a mask towards its centre,
	// so a masked stretch has no flat floor: a flat floor is a row of
	// tied local maxima, which the peak picker would take as peaks.
	voiceMaskSlope = 0.01
	// voiceSearch is how far (a share of the harmonic's frequency, about
	// an eighth of a semitone) a harmonic's loudest bin is looked for.
	voiceSearch = 0.008
	// A sung note (sungNote, issue 16: a catalog song's own vocal is not
	// narration): over sungWindow combed frames (0.37 s, two periods of a
	// 5.5-Hz vibrato) the f0 swings sungMinSwing to sungMaxSwing grid steps
	// (⅜ to 1½ semitones) peak to peak, crosses its centre at least
	// sungMinCrossings times, rises in as many frames as it falls (give or
	// take one), comes back to itself after 3–5 frames (mean difference at
	// that lag at most sungMaxLagDiff of the swing), and the two halves'
	// means are within sungMaxDrift grid steps. Chosen on the tuning
	// halves: a synthetic sung lead (SynthSung, 6 × 30 s) with ±0.3 / ±0.6
	// semitones of vibrato had 16 / 9 % of its frames taken for a voice
	// without the rule, 6.8 / 3.1 % with it; of espeak narration (40 s of
	// each voice) 61.8 % are taken with or without it (held-out 40.0 %
	// too). A lag difference of 0.3 kept more of the song (3.5 %) but gave
	// back 2.2 points of the narration's frames and cost narrated bounds
	// (−8 dB 91.7 → 87.5 %), 0.15 one intro edge (98.6 → 97.2 %);
	// counting direction reversals instead of centre crossings, or not
	// asking for as many rises as falls (espeak's syllables fall in a
	// 4–5 Hz sawtooth), gave back 5.5–8 points.
	sungWindow       = 8
	sungMinSwing     = 3
	sungMaxSwing     = 12
	sungMinCrossings = 3
	sungMaxLagDiff   = 0.1
	sungMaxDrift     = 1.0
)

// voiceState holds the suppression's tables and scratch.
type voiceState struct {
	// bins[c*voiceHarmonics+k-1] is harmonic k of candidate c, as an index
	// into a row; −1 outside the rows (above 420 Hz the highest harmonics
	// are above maxBin).
	bins    []int32
	f0      []float64 // candidate c's f0 in fractional FFT bins
	weights [voiceHarmonics]float32
	wsum    float32

	// octaveSteps and third are f0/2 and f0/3 in grid steps; low is the
	// first candidate at or above voiceLowF0, where the search starts.
	octaveSteps, third, low int32

	contrast, c3 []float32
	prefix       []float64
	track        []int32   // per frame: best candidate, −1 unvoiced
	sal          []float32 // per frame: its score
	raw          []int32   // per frame: track before voiced
}

func newVoiceState() *voiceState {
	v := &voiceState{}
	binHz := float64(SampleRate) / fftSize
	// The grid is the one of a search from voiceLowF0, extended below it
	// by whole steps down to voiceMinF0.
	perOctave := 12.0 * voiceStepsPerSemitone
	v.low = int32(math.Floor(perOctave * math.Log2(voiceLowF0/voiceMinF0)))
	n := int(v.low) + int(math.Floor(perOctave*math.Log2(voiceMaxF0/voiceLowF0))) + 1
	v.octaveSteps = 12 * voiceStepsPerSemitone
	v.third = int32(math.Round(12 * voiceStepsPerSemitone * math.Log2(3)))
	v.f0 = make([]float64, n)
	v.bins = make([]int32, n*voiceHarmonics)
	for c := range n {
		p := voiceLowF0 * math.Pow(2, float64(c-int(v.low))/perOctave) / binHz
		v.f0[c] = p
		for k := 1; k <= voiceHarmonics; k++ {
			b := int32(math.Round(float64(k)*p)) - minBin
			if b < 0 || b >= nBins {
				b = -1
			}
			v.bins[c*voiceHarmonics+k-1] = b
		}
	}
	w := float32(1)
	for k := range voiceHarmonics {
		v.weights[k] = w
		v.wsum += w * voiceContrastCap
		w *= voiceDecay
	}
	return v
}

// pitch finds each frame's best comb in norm (frames × nBins) and leaves
// it in v.track and v.sal.
func (v *voiceState) pitch(norm []float32, frames int) {
	v.contrast = grow(v.contrast, nBins)
	v.c3 = grow(v.c3, nBins)
	v.prefix = grow(v.prefix, nBins+1)
	v.track = grow(v.track, frames)
	v.sal = grow(v.sal, frames)
	for f := range frames {
		row := norm[f*nBins : (f+1)*nBins]
		for b, x := range row {
			v.prefix[b+1] = v.prefix[b] + float64(x)
		}
		for b, x := range row {
			lo, hi := max(0, b-voiceContrastBins), min(nBins, b+voiceContrastBins+1)
			m := float32((v.prefix[hi] - v.prefix[lo]) / float64(hi-lo))
			v.contrast[b] = min(max(x-m, 0), voiceContrastCap)
		}
		for b := range v.c3 {
			x := v.contrast[b]
			if b > 0 {
				x = max(x, v.contrast[b-1])
			}
			if b+1 < nBins {
				x = max(x, v.contrast[b+1])
			}
			v.c3[b] = x
		}
		best, bestS := int32(-1), float32(0)
		for c := int(v.low); c < len(v.f0); c++ {
			if s := v.score(c); s > bestS {
				best, bestS = int32(c), s
			}
		}
		if best >= 0 {
			best = v.octave(best)
			bestS = v.score(int(best))
		}
		v.sal[f] = bestS / v.wsum
		if v.sal[f] < voiceMinSalience {
			best = -1
		}
		v.track[f] = best
	}
}

// score is candidate c's comb score over the row in v.c3.
func (v *voiceState) score(c int) float32 {
	var s float32
	for k, b := range v.bins[c*voiceHarmonics : (c+1)*voiceHarmonics] {
		if b >= 0 {
			s += v.weights[k] * v.c3[b]
		}
	}
	return s
}

// octave is the octave check of the best comb c of the row in v.contrast
// and v.c3: f0/3 when the thirds between c's teeth (each pair at (k−⅓)
// and (k−⅔)·f0, averaged) hold voiceOctaveShare of the weighted contrast
// at its teeth, else f0/2 when the midpoints ((k−½)·f0) do, else c. The
// points between teeth are read without c3's ±1 bin: a tooth's own lobe
// must not count as evidence for a lower f0.
func (v *voiceState) octave(c int32) int32 {
	p := v.f0[c]
	at := func(h float64) float32 {
		if b := int(math.Round(h*p)) - minBin; b >= 0 && b < nBins {
			return v.contrast[b]
		}
		return 0
	}
	var teeth, halves, thirds float32
	for k := 1; k <= voiceHarmonics; k++ {
		w := v.weights[k-1]
		if b := v.bins[int(c)*voiceHarmonics+k-1]; b >= 0 {
			teeth += w * v.c3[b]
		}
		halves += w * at(float64(k)-0.5)
		thirds += w * (at(float64(k)-1.0/3) + at(float64(k)-2.0/3)) / 2
	}
	switch {
	case c >= v.third && thirds >= voiceOctaveShare*teeth:
		return c - v.third
	case c >= v.octaveSteps && halves >= voiceOctaveShare*teeth:
		return c - v.octaveSteps
	}
	return c
}

// voiced keeps in v.track only the frames of gliding tracks: runs of at
// least voiceMinFrames combed frames whose f0 steps stay under
// voiceLinkSemitones, span voiceMinRange, move voiceMinGlide a frame on
// average and stand still (the same grid step) in at most voiceMaxFlat of
// their steps. Others become −1.
func (v *voiceState) voiced() {
	link := int32(voiceLinkSemitones * voiceStepsPerSemitone)
	for a := 0; a < len(v.track); {
		if v.track[a] < 0 {
			a++
			continue
		}
		b := a + 1
		lo, hi := v.track[a], v.track[a]
		moved, flat := 0, 0
		for b < len(v.track) && v.track[b] >= 0 && abs32(v.track[b]-v.track[b-1]) <= link {
			d := abs32(v.track[b] - v.track[b-1])
			moved += int(d)
			if d == 0 {
				flat++
			}
			lo, hi = min(lo, v.track[b]), max(hi, v.track[b])
			b++
		}
		steps := float64(b - a - 1)
		if b-a < voiceMinFrames || !v.trend(a, b, lo) || float64(hi-lo) < voiceMinRange*voiceStepsPerSemitone ||
			float64(moved) < voiceMinGlide*voiceStepsPerSemitone*steps || float64(flat) > voiceMaxFlat*steps {
			for i := a; i < b; i++ {
				v.track[i] = -1
			}
		}
		a = b
	}
}

// trend reports whether the track in v.track[a:b], whose lowest grid step
// is lo, glides in its trend: a track that goes below voiceLowF0 must span
// voiceMinRange with its f0 averaged over 2·voiceTrendFrames+1 frames.
func (v *voiceState) trend(a, b int, lo int32) bool {
	if v.f0[lo]*float64(SampleRate)/fftSize >= voiceLowF0 {
		return true
	}
	tlo, thi := math.Inf(1), math.Inf(-1)
	for i := a; i < b; i++ {
		var sum float64
		n := 0
		for j := max(a, i-voiceTrendFrames); j <= min(b-1, i+voiceTrendFrames); j++ {
			sum += float64(v.track[j])
			n++
		}
		m := sum / float64(n)
		tlo, thi = min(tlo, m), max(thi, m)
	}
	return thi-tlo >= voiceMinRange*voiceStepsPerSemitone
}

// mask lowers the harmonics of the voiced frames in norm below the level at
// their sides. Frames next to a track are left alone: masking them with
// the track's comb as well (the window still holds the voice's start or
// end) cost more of the music than it took of the voice (tuning half).
func (v *voiceState) mask(norm []float32, frames int) {
	for f := range frames {
		if v.track[f] >= 0 {
			v.maskAt(norm[f*nBins:(f+1)*nBins], f, frames)
		}
	}
}

// maskAt masks row with the comb of voiced frame at.
func (v *voiceState) maskAt(row []float32, at, frames int) {
	c := v.track[at]
	// The glide: f0 change per frame, from the neighbouring voiced frames.
	glide := 0.0
	if at > 0 && v.track[at-1] >= 0 {
		glide = math.Abs(v.f0[v.track[at-1]] - v.f0[c])
	}
	if at+1 < frames && v.track[at+1] >= 0 {
		glide = max(glide, math.Abs(v.f0[v.track[at+1]]-v.f0[c]))
	}
	maskComb(row, v.f0[c], glide)
}

// maskComb lowers the harmonics of f0 p (fractional FFT bins) gliding by
// glide bins a frame in row below the lower of the levels just outside
// each, by voiceDepth at the edges and a little more towards the centre (a
// flat floor would be a row of tied peaks); what is already below stays.
// Each harmonic is centred on the loudest bin within voiceSearch of k·p,
// and p refined from them: the comb's f0 is on a grid and, under a glide,
// a little off, which puts the high harmonics bins away.
func maskComb(row []float32, p, glide float64) {
	// p is refined harmonic by harmonic from the loudest bins found
	// (least squares through the origin: Σk·x / Σk²).
	var kx, kk float64
	for k := 1; float64(k)*p < maxBin; k++ {
		want := int(math.Round(float64(k)*p)) - minBin
		r := 1 + int(float64(k)*p*voiceSearch)
		centre := want
		for b := max(0, want-r); b <= min(nBins-1, want+r); b++ {
			if centre < 0 || centre >= nBins || row[b] > row[centre] {
				centre = b
			}
		}
		kx += float64(k) * float64(centre+minBin)
		kk += float64(k * k)
		p = kx / kk
		// The window spans fftSize/hop frames; the harmonic moves k·glide
		// bins a frame, so it is smeared over k·glide·fftSize/hop bins.
		hw := min(voiceMaskMaxBins, voiceMaskBins+int(math.Round(float64(k)*glide*fftSize/hop/2)))
		lo, hi := centre-hw, centre+hw
		if hi < 0 || lo >= nBins {
			continue
		}
		side := float32(math.Inf(1))
		if lo-1 >= 0 {
			side = row[lo-1]
		}
		if hi+1 < nBins {
			side = min(side, row[hi+1])
		}
		for b := max(lo, 0); b <= min(hi, nBins-1); b++ {
			d := hw - max(b-centre, centre-b)
			row[b] = min(row[b], side-voiceDepth-voiceMaskSlope*float32(d))
		}
	}
}

// sungNote reports whether window w (sungWindow combed frames' grid
// steps, about two vibrato periods at 4–7 Hz) holds a sung note: the f0
// swings sungMinSwing to sungMaxSwing grid steps peak to peak, crossing
// its centre at least sungMinCrossings times, rising as often as it falls
// (±1), repeats itself after 3–5 frames (the mean difference at that lag
// within sungMaxLagDiff of the swing), and the centre stays put (the means of the window's two halves,
// each about one period, within sungMaxDrift grid steps). Speech glides
// from syllable to syllable and has no such periodic modulation; a
// singer's vibrato, smeared by the window, moves the comb as fast as a
// voice's glide and would pass voiced's rule on its own.
func sungNote(w []int32) bool {
	lo, hi := w[0], w[0]
	var first, second, sum int32
	for i, c := range w {
		lo, hi = min(lo, c), max(hi, c)
		sum += c
		if i < len(w)/2 {
			first += c
		} else {
			second += c
		}
	}
	swing := hi - lo
	if swing < sungMinSwing || swing > sungMaxSwing || float64(abs32(first-second)) > sungMaxDrift*float64(len(w)/2) {
		return false
	}
	// Crossings of the centre (sum/len(w)), in units of 1/len(w) step.
	crossings, side := 0, int32(0)
	for _, c := range w {
		d := c*int32(len(w)) - sum
		if d == 0 {
			continue
		}
		sd := int32(1)
		if d < 0 {
			sd = -1
		}
		if side != 0 && sd != side {
			crossings++
		}
		side = sd
	}
	if crossings < sungMinCrossings {
		return false
	}
	// A vibrato rises as often as it falls; a voice's syllables fall (or
	// rise) over several frames and jump back in one.
	ups, downs := 0, 0
	for i := 1; i < len(w); i++ {
		if w[i] > w[i-1] {
			ups++
		} else if w[i] < w[i-1] {
			downs++
		}
	}
	if max(ups, downs) > min(ups, downs)+1 {
		return false
	}
	for lag := 3; lag <= 5; lag++ {
		var d int32
		for i := lag; i < len(w); i++ {
			d += abs32(w[i] - w[i-lag])
		}
		if float64(d) <= sungMaxLagDiff*float64(swing)*float64(len(w)-lag) {
			return true
		}
	}
	return false
}

// unsing clears in v.track the frames of every window of sungWindow
// combed frames of raw (the track before voiced) that sungNote takes for
// a sung note. The windows need not be linked: a wide vibrato jumps
// further between frames than voiceLinkSemitones and breaks its track
// into short pieces that pass voiced's rule one by one.
func (v *voiceState) unsing(raw []int32) {
	run := 0
	for f, c := range raw {
		if c < 0 {
			run = 0
			continue
		}
		run++
		if run >= sungWindow && sungNote(raw[f+1-sungWindow:f+1]) {
			for i := f + 1 - sungWindow; i <= f; i++ {
				v.track[i] = -1
			}
		}
	}
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// suppressVoice runs pitch, voiced and mask over fp.norm.
func (fp *Fingerprinter) suppressVoice(frames int) {
	if fp.voice == nil {
		fp.voice = newVoiceState()
	}
	fp.voice.pitch(fp.norm, frames)
	fp.voice.raw = append(fp.voice.raw[:0], fp.voice.track...)
	fp.voice.voiced()
	fp.voice.unsing(fp.voice.raw)
	fp.voice.mask(fp.norm, frames)
}
