package demo

import (
	"math"
	"math/rand/v2"
)

// flavor is what makes one song sound like itself rather than like its
// siblings of the same style: its tuning, the tone of its instruments and
// drums, its voicings and its feel. Real recordings differ in all of
// these; without them demo tracks of one style share so many spectral
// peaks that a noisy clip of one is hard to tell from the others by its
// fingerprint. A flavor depends only on the song's seed (its own random
// stream, so the notes drawn from the song's stream are unchanged), which
// keeps versions of a song (instrumental, short edit) sounding alike.
type flavor struct {
	tune      float64 // semitones off A = 440 Hz
	tables    map[timbre]wavetable
	envs      map[timbre]envelope
	lfoHz     float64 // vibrato rate
	pluckDamp float64 // Karplus–Strong loss: the brightness of the strings
	kit       kit
	inversion int     // the usual voicing of the chords: 0–2
	spread    float64 // chance that a bar's chord takes another voicing
	humanize  float64 // timing jitter (s)
	swing     float64 // added to the pattern's swing of the off 16ths
	air       air     // a soft noise layer, which keeps the high bands alive
	noise     *rand.Rand
}

// air is band-limited noise that follows the chords: breath on a pad, the
// hiss of a bow or of tape.
type air struct {
	level  float64
	lo, hi float64 // one-pole coefficients of the band
}

func newFlavor(seed uint64) *flavor {
	r := rand.New(rand.NewPCG(seed, 13))
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	f := &flavor{
		tune:      uniform(-0.12, 0.12),
		lfoHz:     uniform(4.5, 6.5),
		pluckDamp: uniform(0.496, 0.4995),
		inversion: r.IntN(3),
		spread:    uniform(0, 0.5),
		humanize:  uniform(0.002, 0.008),
		swing:     uniform(0, 0.08),
		tables:    map[timbre]wavetable{},
		envs:      map[timbre]envelope{},
		noise:     rand.New(rand.NewPCG(seed, 19)),
	}
	f.kit = makeKit(rand.New(rand.NewPCG(seed, 17)), kitShape{
		pitch: uniform(0.94, 1.07), decay: uniform(0.9, 1.12), bright: uniform(0.6, 0.9), click: uniform(0.9, 1.1),
	})
	f.air = air{level: uniform(0.008, 0.015), lo: uniform(0.15, 0.5), hi: uniform(0.6, 0.95)}
	base := map[timbre][]float64{
		timbreSoft:    series(6, func(h int) float64 { return 1 / float64(h*h) }),
		timbreSaw:     series(12, func(h int) float64 { return 1 / float64(h) }),
		timbreSquare:  series(11, func(h int) float64 { return float64(h%2) / float64(h) }),
		timbreOrgan:   {1, 0.7, 0.5, 0.35, 0, 0.25, 0, 0.2},
		timbrePiano:   {1, 0.5, 0.35, 0.25, 0.15, 0.1, 0.07},
		timbreBell:    {1, 0, 0.5, 0.2, 0.3, 0, 0.1},
		timbreStrings: series(10, func(h int) float64 { return 1 / float64(h) }),
	}
	for tb := timbreSine; tb <= timbreStrings; tb++ {
		env := envelopes[tb]
		env.attack *= uniform(0.7, 1.4)
		env.tau *= uniform(0.7, 1.4)
		env.release *= uniform(0.8, 1.25)
		f.envs[tb] = env
		amps, ok := base[tb]
		if !ok {
			f.tables[tb] = tables()[tb] // a pure tone stays pure: it names the mode
			continue
		}
		// Each harmonic louder or softer, and the whole spectrum tilted
		// brighter or darker. Harmonics that sound a third (5, 10) never
		// grow, so the timbre cannot suggest the other mode.
		tilt := uniform(-0.15, 0.15)
		out := make([]float64, len(amps))
		for h, a := range amps {
			g := math.Exp(0.15*r.NormFloat64()) * math.Pow(float64(h+1), tilt)
			if (h+1)%5 == 0 {
				g = min(g, 1)
			}
			if h == 0 {
				g = 1
			}
			out[h] = a * g
		}
		f.tables[tb] = harmonicTable(out)
	}
	return f
}

// note plays pitch with the given instrument, in the song's tuning and
// with its tone.
func (f *flavor) note(dst []float32, r *rand.Rand, tb timbre, pitch, start, dur, amp float64) {
	freq := midiFreq(pitch + f.tune)
	if tb == timbrePluck {
		pluck(dst, r, freq, f.pluckDamp, start, dur, amp)
		return
	}
	playTable(dst, f.tables[tb], f.envs[tb], freq, f.lfoHz, start, dur, amp)
}

// jitter is a small random shift of an onset, as a player's.
func (f *flavor) jitter(r *rand.Rand) float64 { return f.humanize * r.NormFloat64() }

// voicing arranges a chord's three pitches: an inversion (the lowest
// notes raised an octave), from the song's habit or, now and then, another.
func (f *flavor) voicing(r *rand.Rand, ps []int) []int {
	inv := f.inversion
	if r.Float64() < f.spread {
		inv = r.IntN(3)
	}
	out := append([]int(nil), ps...)
	for i := range inv {
		out[i] += 12
	}
	return out
}

// breathe adds the air layer over [start, start+dur): noise band-passed by
// two one-pole filters, with soft edges.
func (f *flavor) breathe(dst []float32, start, dur, amp float64) {
	a, n := at(start), at(dur)
	edge := max(1, at(min(0.2, dur/3)))
	var lp1, lp2 float64
	for i := 0; i < n && a+i < len(dst); i++ {
		x := f.noise.NormFloat64()
		lp1 += f.air.hi * (x - lp1)   // drops the very top
		lp2 += f.air.lo * (lp1 - lp2) // what the band leaves out below
		g := min(1, float64(i)/float64(edge), float64(n-i)/float64(edge))
		if a+i >= 0 {
			dst[a+i] += float32(amp * f.air.level * g * (lp1 - lp2))
		}
	}
}
