package demo

import (
	"math"
	"math/rand/v2"
	"sync"
)

// SampleRate of the demo audio: plenty for a demo, and it keeps rendering
// and transcoding cheap.
const SampleRate = 22050

const (
	tableBits = 11
	tableSize = 1 << tableBits
	// Phases are 32-bit fixed point; the top tableBits index the table.
	phaseShift = 32 - tableBits
)

// wavetable is one cycle of a periodic waveform, peak-normalized.
type wavetable []float32

func harmonicTable(amps []float64) wavetable {
	t := make([]float64, tableSize)
	for h, a := range amps {
		if a == 0 {
			continue
		}
		for i := range t {
			t[i] += a * math.Sin(2*math.Pi*float64(h+1)*float64(i)/tableSize)
		}
	}
	peak := 0.0
	for _, v := range t {
		peak = max(peak, math.Abs(v))
	}
	out := make(wavetable, tableSize)
	for i, v := range t {
		out[i] = float32(v / peak)
	}
	return out
}

func series(n int, f func(h int) float64) []float64 {
	a := make([]float64, n)
	for i := range a {
		a[i] = f(i + 1)
	}
	return a
}

var tables = sync.OnceValue(func() map[timbre]wavetable {
	return map[timbre]wavetable{
		timbreSine:    harmonicTable([]float64{1}),
		timbreSoft:    harmonicTable(series(6, func(h int) float64 { return 1 / float64(h*h) })),
		timbreSaw:     harmonicTable(series(12, func(h int) float64 { return 1 / float64(h) })),
		timbreSquare:  harmonicTable(series(11, func(h int) float64 { return float64(h%2) / float64(h) })),
		timbreOrgan:   harmonicTable([]float64{1, 0.7, 0.5, 0.35, 0, 0.25, 0, 0.2}),
		timbrePiano:   harmonicTable([]float64{1, 0.5, 0.35, 0.25, 0.15, 0.1, 0.07}),
		timbreBell:    harmonicTable([]float64{1, 0, 0.5, 0.2, 0.3, 0, 0.1}),
		timbreStrings: harmonicTable(series(10, func(h int) float64 { return 1 / float64(h) })),
	}
})

// envelope shapes a note: a linear attack, then either an exponential
// decay with time constant tau or a sustain level, and a linear release
// after the note ends.
type envelope struct {
	attack, tau, sustain, release float64
	vibrato                       float64 // depth in semitones
}

var envelopes = map[timbre]envelope{
	timbreSine:    {attack: 0.02, sustain: 0.9, release: 0.15},
	timbreSoft:    {attack: 0.005, tau: 0.9, release: 0.1},
	timbreSaw:     {attack: 0.01, sustain: 0.8, release: 0.06},
	timbreSquare:  {attack: 0.01, sustain: 0.8, release: 0.06},
	timbreOrgan:   {attack: 0.005, sustain: 1, release: 0.04},
	timbrePiano:   {attack: 0.003, tau: 1.1, release: 0.12},
	timbreBell:    {attack: 0.002, tau: 0.7, release: 0.3},
	timbreStrings: {attack: 0.25, sustain: 0.9, release: 0.35, vibrato: 0.12},
}

func midiFreq(p float64) float64 { return 440 * math.Pow(2, (p-69)/12) }

func at(t float64) int { return int(t * SampleRate) }

// tone adds a wavetable note to dst.
func tone(dst []float32, tb timbre, pitch, start, dur, amp float64) {
	playTable(dst, tables()[tb], envelopes[tb], midiFreq(pitch), 5.5, start, dur, amp)
}

// playTable adds a note of wavetable wt at freq Hz, shaped by env, with
// vibrato at lfoHz.
func playTable(dst []float32, wt wavetable, env envelope, freq, lfoHz, start, dur, amp float64) {
	sine := tables()[timbreSine]
	a := at(start)
	n := at(dur + env.release)
	noteOff := at(dur)
	inc := freq / SampleRate * (1 << 32)
	attack := max(1, at(env.attack))
	decay := 1.0
	if env.tau > 0 {
		decay = math.Exp(-1 / (env.tau * SampleRate))
	}
	level, g := 1.0, 1.0 // level: decay or sustain; g: attack/release ramp
	var phase, lfo uint32
	lfoInc := uint32(math.Round(lfoHz / SampleRate * (1 << 32)))
	var vib float64
	if env.vibrato > 0 {
		vib = math.Pow(2, env.vibrato/12) - 1
	}
	for i := 0; i < n && a+i < len(dst); i++ {
		switch {
		case i < attack:
			g = float64(i) / float64(attack)
		case i < noteOff:
			g = 1
		default:
			g = max(0, 1-float64(i-noteOff)/(env.release*SampleRate))
		}
		if env.tau > 0 {
			level *= decay
		} else if i >= attack {
			level = env.sustain
		}
		if a+i >= 0 {
			dst[a+i] += float32(amp*level*g) * wt[phase>>phaseShift]
		}
		if vib != 0 {
			phase += uint32(inc * (1 + vib*float64(sine[lfo>>phaseShift])))
			lfo += lfoInc
		} else {
			phase += uint32(inc)
		}
	}
}

// pluck adds a Karplus–Strong plucked string: a noise burst circulating in
// a delay line one period long, low-passed on every pass.
func pluck(dst []float32, r *rand.Rand, freq, damp, start, dur, amp float64) {
	period := max(2, int(math.Round(SampleRate/freq)))
	line := make([]float32, period)
	for i := range line {
		line[i] = float32(2*r.Float64() - 1)
	}
	// A soft pick: smoothing the burst tames the upper harmonics, whose
	// fifths and thirds would otherwise colour the chord.
	for range 2 {
		prev := line[period-1]
		for i := range line {
			line[i], prev = 0.5*line[i]+0.25*(prev+line[(i+1)%period]), line[i]
		}
	}
	a, noteOff, n := at(start), at(dur), at(dur+0.08)
	for i := 0; i < n && a+i < len(dst); i++ {
		k := i % period
		v := line[k]
		line[k] = float32(damp) * (v + line[(k+1)%period])
		g := 1.0
		if i > noteOff {
			g = 1 - float64(i-noteOff)/float64(n-noteOff)
		}
		if a+i >= 0 {
			dst[a+i] += float32(amp*g) * v
		}
	}
}

// Drum one-shots, rendered once.
type kit struct {
	kick, snare, hat, openHat, clap, rim, taiko, tick []float32
}

var drumKit = sync.OnceValue(func() kit { return makeKit(rand.New(rand.NewPCG(7, 7)), kitShape{1, 1, 1, 1}) })

// kitShape varies a kit: the pitch of the drums, the decay of all hits,
// the brightness of the noise and the pitch of the metallic clicks.
type kitShape struct{ pitch, decay, bright, click float64 }

func makeKit(r *rand.Rand, v kitShape) kit {
	noise := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(2*r.Float64() - 1)
		}
		return s
	}
	shape := func(s []float32, tau float64) []float32 {
		tau *= v.decay
		for i := range s {
			s[i] *= float32(math.Exp(-float64(i) / (tau * SampleRate)))
		}
		return s
	}
	// A pitch sweep: the thump of kicks and toms.
	sweep := func(seconds, f0, f1, tau float64) []float32 {
		f0, f1, tau = f0*v.pitch, f1*v.pitch, tau*v.decay
		s := make([]float32, at(seconds))
		phase := 0.0
		for i := range s {
			t := float64(i) / SampleRate
			f := f1 + (f0-f1)*math.Exp(-t/0.04)
			phase += 2 * math.Pi * f / SampleRate
			s[i] = float32(math.Sin(phase) * math.Exp(-t/tau))
		}
		return s
	}
	// A first difference, then (bright < 1) a one-pole low-pass that
	// darkens it.
	highpass := func(s []float32) []float32 {
		prev := float32(0)
		for i, x := range s {
			s[i], prev = x-prev, x
		}
		if v.bright < 1 {
			a, y := float32(v.bright), float32(0)
			for i, x := range s {
				y += a * (x - y)
				s[i] = y
			}
		}
		return s
	}
	mix := func(a, b []float32, gb float32) []float32 {
		for i := range b {
			if i < len(a) {
				a[i] += gb * b[i]
			}
		}
		return a
	}
	return kit{
		kick:    sweep(0.35, 150, 48, 0.12),
		snare:   mix(shape(noise(at(0.2)), 0.05), sweep(0.2, 240, 180, 0.05), 0.6),
		hat:     shape(highpass(noise(at(0.05))), 0.012),
		openHat: shape(highpass(noise(at(0.35))), 0.12),
		clap:    shape(highpass(noise(at(0.18))), 0.04),
		rim:     shape(mix(sweep(0.06, 1800*v.click, 1700*v.click, 0.01), highpass(noise(at(0.06))), 0.3), 0.015),
		taiko:   mix(sweep(0.8, 110, 60, 0.3), shape(noise(at(0.1)), 0.02), 0.3),
		tick:    shape(mix(sweep(0.05, 2400*v.click, 2400*v.click, 0.01), highpass(noise(at(0.05))), 0.2), 0.01),
	}
}

func hit(dst, sample []float32, start, amp float64) {
	a := at(start)
	for i, v := range sample {
		if a+i >= len(dst) {
			return
		}
		if a+i >= 0 {
			dst[a+i] += float32(amp) * v
		}
	}
}

// Vowel formants (Hz) of an adult male voice; a female voice's are ~15 %
// higher.
var vowels = [][3]float64{{730, 1090, 2440}, {530, 1840, 2480}, {270, 2290, 3010}, {570, 840, 2410}, {300, 870, 2240}}

type voiceKey struct {
	vowel, pitch int
	female       bool
}

var voiceTables sync.Map // voiceKey → wavetable

// voiceTable is one period of a sung vowel at a pitch: a glottal source
// (harmonics falling as 1/h) shaped by the vowel's three formants. Tables
// are per pitch so that the formants stay put as the melody moves.
func voiceTable(vowel, pitch int, female bool) wavetable {
	k := voiceKey{vowel, pitch, female}
	if t, ok := voiceTables.Load(k); ok {
		return t.(wavetable)
	}
	f0 := midiFreq(float64(pitch))
	scale := 1.0
	if female {
		scale = 1.15
	}
	fm := vowels[vowel]
	n := min(40, int(SampleRate/2*0.9/f0))
	amps := series(n, func(h int) float64 {
		f := float64(h) * f0
		g := 0.15 + 8*math.Exp(-sq((f-fm[0]*scale)/110)) + 5*math.Exp(-sq((f-fm[1]*scale)/150)) + 2.5*math.Exp(-sq((f-fm[2]*scale)/220))
		return g / float64(h)
	})
	t := harmonicTable(amps)
	voiceTables.Store(k, t)
	return t
}

func sq(x float64) float64 { return x * x }

// sing adds one sung syllable: a vowel with a soft onset and vibrato that
// sets in after the attack, as singers do.
func sing(dst []float32, r *rand.Rand, pitch int, tune float64, female bool, start, dur, amp float64) {
	wt := voiceTable(r.IntN(len(vowels)), pitch, female)
	sine := tables()[timbreSine]
	a, noteOff, n := at(start), at(dur), at(dur+0.08)
	attack := at(0.04)
	inc := midiFreq(float64(pitch)+tune) / SampleRate * (1 << 32)
	const depth = 0.025 // ±0.4 semitone
	lfoInc := uint32(math.Round(5.5 / SampleRate * (1 << 32)))
	var phase, lfo uint32
	for i := 0; i < n && a+i < len(dst); i++ {
		g := 1.0
		switch {
		case i < attack:
			g = float64(i) / float64(attack)
		case i > noteOff:
			g = 1 - float64(i-noteOff)/float64(n-noteOff)
		}
		vib := depth * min(1, float64(i)/(0.25*SampleRate))
		if a+i >= 0 {
			dst[a+i] += float32(amp*g) * wt[phase>>phaseShift]
		}
		phase += uint32(inc * (1 + vib*float64(sine[lfo>>phaseShift])))
		lfo += lfoInc
	}
}
