package demo

import (
	"math"
	"math/rand/v2"
)

// song is what a track's audio is rendered from; its fields are what the
// metadata states, so the two agree by construction.
type song struct {
	seed    uint64
	bpm     float64
	tonic   int // pitch class, 0 = C
	minor   bool
	bars    int
	style   style
	energy  float64 // 0..1
	vocals  string  // "", "male", "female", "mixed"
	noVoice bool    // an instrumental version of a sung song
}

// Layers of a rendered song, which are also its stems.
const (
	layerDrums = iota
	layerBass
	layerChords
	layerMelody
	nLayers
)

var (
	majorScale = []int{0, 2, 4, 5, 7, 9, 11}
	minorScale = []int{0, 2, 3, 5, 7, 8, 10}
	// Chord roots as scale degrees. Each starts on the tonic and reaches it
	// again through the dominant (V, major also in minor), the cadence that
	// makes a key unambiguous to a listener and to a key detector.
	majorProgressions = [][4]int{{0, 3, 4, 0}, {0, 5, 3, 4}, {0, 3, 0, 4}, {0, 1, 4, 0}}
	minorProgressions = [][4]int{{0, 3, 4, 0}, {0, 5, 3, 4}, {0, 3, 0, 4}, {0, 6, 5, 4}}
)

// drum patterns on a 16-step bar: kick, snare, hat, and the swing of the
// off 16ths.
type pattern struct {
	kick, snare, hat string
	snareSample      func(kit) []float32
	hatSample        func(kit) []float32
	swing            float64
}

func snare(k kit) []float32 { return k.snare }
func clap(k kit) []float32  { return k.clap }
func hat(k kit) []float32   { return k.hat }
func rim(k kit) []float32   { return k.rim }
func taiko(k kit) []float32 { return k.taiko }
func tick(k kit) []float32  { return k.tick }

var patterns = map[drumStyle]pattern{
	drumsFourFloor: {"x...x...x...x...", "....x.......x...", "..x...x...x...x.", clap, hat, 0},
	drumsBackbeat:  {"x.......x.x.....", "....x.......x...", "x.x.x.x.x.x.x.x.", snare, hat, 0},
	drumsBoomBap:   {"x.....x...x.....", "....x.......x...", "x.x.x.x.x.x.x.x.", snare, hat, 0.15},
	drumsTrap:      {"x......x..x.....", "........x.......", "xxxxxxxxxxxxxxxx", clap, hat, 0},
	drumsDnB:       {"x.........x.....", "....x.......x...", "x.x.x.x.x.x.x.x.", snare, hat, 0},
	drumsPunk:      {"x...x...x...x...", "....x.......x...", "x.x.x.x.x.x.x.x.", snare, hat, 0},
	drumsSwing:     {"x...x...x...x...", "....x.......x...", "x...x.x.x...x.x.", snare, hat, 0.33},
	drumsBossa:     {"x..x....x..x....", "x..x..x...x..x..", "x.x.x.x.x.x.x.x.", rim, hat, 0},
	drumsTaiko:     {"x.......x.......", "x.....x.x.......", "", taiko, hat, 0},
	drumsPulse:     {"", "", "x...x...x...x...", snare, tick, 0},
}

// sections lays the bars out: an intro, verse and chorus blocks ending on a
// chorus, and a one-bar outro on the tonic.
func sections(bars int) []string {
	intro := 1
	if bars >= 10 {
		intro = 2
	}
	block := 4
	if bars < 10 {
		block = 2
	}
	out := make([]string, bars)
	for i := range out {
		out[i] = "intro"
	}
	out[bars-1] = "outro"
	middle := bars - intro - 1
	for i := 0; i < middle; i++ {
		// Count blocks back from the end so the last one is a chorus.
		if ((middle-1-i)/block)%2 == 0 {
			out[intro+i] = "chorus"
		} else {
			out[intro+i] = "verse"
		}
	}
	return out
}

type mnote struct {
	step, steps int // in 8ths from the start of the phrase
	degree      int // scale degree from the tonic (may exceed 7)
}

// phrase makes two bars of melody on an 8th-note grid: a random walk on
// the scale whose notes on the beat fall on chord tones.
func phrase(r *rand.Rand, chords [4]int, first int, density float64) []mnote {
	var out []mnote
	deg := 4 + r.IntN(3)
	for step := 0; step < 16; step++ {
		if step != 0 && r.Float64() > density {
			continue
		}
		deg = max(0, min(11, deg+r.IntN(5)-2))
		if step%4 == 0 {
			root := chords[(first+step/8)%4]
			deg = nearestChordTone(deg, root)
		}
		if len(out) > 0 {
			p := &out[len(out)-1]
			p.steps = min(step-p.step, 4)
		}
		out = append(out, mnote{step: step, degree: deg, steps: 2})
	}
	if last := &out[len(out)-1]; last.step+last.steps > 16 {
		last.steps = 16 - last.step
	}
	return out
}

func nearestChordTone(deg, root int) int {
	best, bestD := deg, 99
	for o := -7; o <= 14; o += 7 {
		for _, t := range []int{0, 2, 4} {
			c := root + t + o
			if c < 0 {
				continue
			}
			if d := abs(c - deg); d < bestD {
				best, bestD = c, d
			}
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// render synthesizes the song's layers and scales them together so the
// mix peaks at a level set by the energy. The layers are the stems: they
// add up to the mix.
func (s song) render() (mix []float32, layers [nLayers][]float32) {
	r := rand.New(rand.NewPCG(s.seed, 11))
	beat := 60 / s.bpm
	bar := 4 * beat
	step16 := beat / 4
	n := at(float64(s.bars)*bar + 1.2)
	for i := range layers {
		layers[i] = make([]float32, n)
	}
	scale, progs := majorScale, majorProgressions
	if s.minor {
		scale, progs = minorScale, minorProgressions
	}
	prog := progs[r.IntN(len(progs))]
	root := 48 + s.tonic // C3..B3
	if s.tonic >= 7 {
		root -= 12
	}
	pitchOf := func(deg, octave int) int {
		return root + 12*octave + scale[((deg%7)+7)%7] + 12*floorDiv(deg, 7)
	}
	// The chord's third, raised on the dominant in minor (harmonic minor),
	// which is what makes a minor key unambiguous.
	chordPitches := func(rootDeg, octave int) []int {
		ps := []int{pitchOf(rootDeg, octave), pitchOf(rootDeg+2, octave), pitchOf(rootDeg+4, octave)}
		if s.minor && rootDeg%7 == 4 {
			ps[1]++
		}
		return ps
	}
	// Bass an octave below the chords, but not below E1 where small
	// speakers have nothing left.
	bassOf := func(deg int) int {
		p := pitchOf(deg, -1)
		if p < 40 {
			p += 12
		}
		return p
	}
	hook := phrase(r, prog, 0, 0.55)
	secs := sections(s.bars)
	f := newFlavor(s.seed)
	k := f.kit
	pat := patterns[s.style.drums]
	e := s.energy
	for b, sec := range secs {
		t0 := float64(b) * bar
		chord := prog[b%4]
		if sec == "outro" {
			chord = 0
		}
		level := map[string]float64{"intro": 0.55, "verse": 0.7, "chorus": 1, "outro": 0.8}[sec]

		// Drums.
		if s.style.drums != drumsNone {
			for st := 0; st < 16; st++ {
				t := t0 + float64(st)*step16 + f.jitter(r)
				if st%2 == 1 {
					t += (pat.swing + f.swing) * step16
				}
				if sec == "outro" && st > 0 {
					break
				}
				full := sec != "intro" || s.style.drums == drumsPulse
				if full && on(pat.kick, st) {
					hit(layers[layerDrums], k.kick, t, 0.9*level)
				}
				if full && on(pat.snare, st) {
					hit(layers[layerDrums], pat.snareSample(k), t, 0.6*level)
				}
				if on(pat.hat, st) && (e > 0.35 || st%4 == 0 || s.style.drums == drumsPulse) {
					hit(layers[layerDrums], pat.hatSample(k), t, 0.3*level*(0.6+0.4*e))
				}
			}
			if sec == "chorus" && secs[max(b-1, 0)] != "chorus" || sec == "outro" {
				hit(layers[layerDrums], k.openHat, t0, 0.35)
			}
		}

		// Bass.
		bassRoot := bassOf(chord)
		bassTimbre := timbreSoft
		switch s.style.bass {
		case bassRoots:
			f.note(layers[layerBass], r, timbreSine, float64(bassRoot), t0, bar*0.95, 0.45*level)
		case bassEighths:
			for st := 0; st < 8; st++ {
				f.note(layers[layerBass], r, bassTimbre, float64(bassRoot), t0+float64(st)*2*step16, 1.6*step16, 0.45*level)
			}
		case bassOffbeat:
			for st := 2; st < 16; st += 4 {
				f.note(layers[layerBass], r, bassTimbre, float64(bassRoot), t0+float64(st)*step16, 1.8*step16, 0.5*level)
			}
		case bassRootFifth:
			f.note(layers[layerBass], r, bassTimbre, float64(bassRoot), t0, beat*0.9, 0.5*level)
			f.note(layers[layerBass], r, bassTimbre, float64(bassOf(chord+4)), t0+2*beat, beat*0.9, 0.5*level)
		case bassWalking:
			next := bassOf(prog[(b+1)%4])
			walk := []int{bassRoot, bassOf(chord + 1), bassOf(chord + 2), next - 1}
			for i, p := range walk {
				f.note(layers[layerBass], r, bassTimbre, float64(p), t0+float64(i)*beat, beat*0.9, 0.5*level)
			}
		case bass808:
			f.note(layers[layerBass], r, timbreSine, float64(bassRoot), t0, bar*0.9, 0.7*level)
		}

		// Chords, over a soft tonic pedal that adds the key's third on
		// tonic bars: a pure tone, so it names the mode without harmonics.
		f.note(layers[layerChords], r, timbreSine, float64(pitchOf(0, 0)), t0, bar*0.98, 0.08*level)
		if chord == 0 {
			f.note(layers[layerChords], r, timbreSine, float64(pitchOf(2, 1)), t0, bar*0.98, 0.07*level)
		}
		cp := chordPitches(chord, 1)
		if h := s.style.harmony; h != harmonyPower && h != harmonyPulse {
			cp = f.voicing(r, cp) // those two pick their chord tones by place
		}
		f.breathe(layers[layerChords], t0, bar*0.98, level)
		ct := s.style.chords
		ca := 0.16 * level
		switch {
		case sec == "outro" || s.style.harmony == harmonyPad:
			for _, p := range cp {
				f.note(layers[layerChords], r, ct, float64(p), t0, bar*0.98, ca)
			}
		case s.style.harmony == harmonyStabs:
			for st := 2; st < 16; st += 4 {
				for _, p := range cp {
					f.note(layers[layerChords], r, ct, float64(p), t0+float64(st)*step16, 1.5*step16, ca)
				}
			}
		case s.style.harmony == harmonyArp:
			arp := []int{cp[0], cp[1], cp[2], cp[0] + 12}
			for st := 0; st < 8; st++ {
				f.note(layers[layerChords], r, ct, float64(arp[st%4]), t0+float64(st)*2*step16, 2*step16, ca*1.4)
			}
		case s.style.harmony == harmonyStrum:
			for bt := 0; bt < 4; bt++ {
				for i, p := range cp {
					f.note(layers[layerChords], r, ct, float64(p), t0+float64(bt)*beat+float64(i)*0.015, beat*0.95, ca*1.3)
				}
			}
		case s.style.harmony == harmonyComp:
			for _, bt := range []int{1, 3} {
				for _, p := range cp {
					f.note(layers[layerChords], r, ct, float64(p), t0+float64(bt)*beat, beat*0.8, ca)
				}
			}
		case s.style.harmony == harmonyPulse:
			for st := 0; st < 8; st++ {
				for _, p := range cp[:2] {
					f.note(layers[layerChords], r, ct, float64(p), t0+float64(st)*2*step16, step16, ca)
				}
			}
		case s.style.harmony == harmonyPower:
			// Root and fifth chug in 8ths; a power chord alone leaves the
			// mode open (and a bright timbre's fifth harmonic even suggests
			// major), so a second guitar holds the third above.
			for st := 0; st < 8; st++ {
				for _, p := range []int{cp[0], cp[2]} {
					f.note(layers[layerChords], r, ct, float64(p), t0+float64(st)*2*step16, 1.7*step16, ca*0.8)
				}
			}
			f.note(layers[layerChords], r, timbreSoft, float64(cp[1]+12), t0, bar*0.95, ca*1.5)
		}

		// Melody: a new phrase every two verse bars, the hook in the chorus.
		if sec == "intro" || sec == "outro" {
			continue
		}
		var ph []mnote
		first := b % 4
		half := 0
		if sec == "chorus" {
			ph = hook
			first = 0
		} else {
			ph = phrase(r, prog, first, 0.4)
		}
		if b%2 == 1 {
			half = 8 // the second bar of a two-bar phrase
		}
		for _, m := range ph {
			if m.step < half || m.step >= half+8 {
				continue
			}
			t := t0 + float64(m.step-half)*2*step16
			dur := float64(m.steps) * 2 * step16 * 0.92
			amp := 0.22 * level
			s.playMelody(f, layers[layerMelody], r, sec, pitchOf, m.degree, t+f.jitter(r), dur, amp)
		}
	}
	gain := float32(0.5 + 0.45*e)
	peak := float32(0)
	mix = make([]float32, n)
	for i := range mix {
		var v float32
		for l := range layers {
			v += layers[l][i]
		}
		mix[i] = v
		peak = max(peak, float32(math.Abs(float64(v))))
	}
	if peak > 0 {
		gain /= peak
	}
	for i := range mix {
		mix[i] *= gain
	}
	for l := range layers {
		for i := range layers[l] {
			layers[l][i] *= gain
		}
	}
	return mix, layers
}

// playMelody plays one melody note: sung on vocal tracks (male an octave
// below female; mixed swaps voices between verse and chorus), otherwise on
// the lead instrument, doubled an octave down in the chorus.
func (s song) playMelody(f *flavor, dst []float32, r *rand.Rand, sec string, pitchOf func(int, int) int, deg int, t, dur, amp float64) {
	if s.vocals != "" && !s.noVoice {
		female := s.vocals == "female" || (s.vocals == "mixed" && sec == "chorus")
		octave := 1
		if female {
			octave = 2
		}
		sing(dst, r, pitchOf(deg, octave), f.tune, female, t, dur, amp*1.2)
		return
	}
	if s.vocals != "" && s.noVoice {
		return // the instrumental version leaves the vocal line out
	}
	lead := s.style.lead
	f.note(dst, r, lead, float64(pitchOf(deg, 2)), t, dur, amp)
	if sec == "chorus" {
		f.note(dst, r, lead, float64(pitchOf(deg, 1)), t, dur, amp*0.6)
	}
}

func on(p string, step int) bool { return step < len(p) && p[step] == 'x' }

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
