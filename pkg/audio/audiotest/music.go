package audiotest

import (
	"math"
	"math/rand/v2"

	"musiccatalog/pkg/audio"
)

// PitchClasses names the twelve pitch classes from C.
var PitchClasses = [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}

// Note is a MIDI pitch sounding from Start for Dur seconds.
type Note struct {
	Pitch      int
	Start, Dur float64
	Amp        float64
}

// Render synthesizes notes as harmonic tones (four partials, soft attack and
// exponential decay) into seconds of audio.
func Render(rate int, seconds float64, notes []Note) audio.PCM {
	s := samples(rate, seconds)
	for _, n := range notes {
		f := 440 * math.Pow(2, float64(n.Pitch-69)/12)
		a := int(n.Start * float64(rate))
		m := int(n.Dur * float64(rate))
		for i := 0; i < m && a+i < len(s); i++ {
			if a+i < 0 {
				continue
			}
			t := float64(i) / float64(rate)
			env := math.Min(1, t/0.01) * math.Exp(-t/(n.Dur*1.5)) * math.Min(1, float64(m-i)/(0.01*float64(rate)))
			var v float64
			for h := 1; h <= 4; h++ {
				if f*float64(h) < float64(rate)/2 {
					v += math.Sin(2*math.Pi*f*float64(h)*t) / float64(h)
				}
			}
			s[a+i] += float32(n.Amp * env * v)
		}
	}
	return audio.PCM{Samples: s, Rate: rate}
}

// Scale degrees (semitones above the tonic) of major and natural minor.
var (
	MajorScale = []int{0, 2, 4, 5, 7, 9, 11}
	MinorScale = []int{0, 2, 3, 5, 7, 8, 10}
)

// KeyPiece is a piece firmly in the key tonic (0 = C) major or minor: the
// I–IV–V–I cadence (i–iv–V–i in minor, with the leading tone) repeated, with
// a bass line and a melody on scale notes.
func KeyPiece(rate int, seconds float64, tonic int, minor bool, seed uint64) audio.PCM {
	r := rand.New(rand.NewPCG(seed, 3))
	scale := MajorScale
	if minor {
		scale = MinorScale
	}
	// Chords as scale-degree indexes (root, third, fifth).
	prog := [][3]int{{0, 2, 4}, {3, 5, 0}, {4, 6, 1}, {0, 2, 4}}
	var notes []Note
	const chordDur = 1.0
	for c := 0; float64(c)*chordDur < seconds; c++ {
		ch := prog[c%len(prog)]
		t := float64(c) * chordDur
		for i, d := range ch {
			p := 60 + tonic + scale[d]
			if d < ch[0] {
				p += 12
			}
			if minor && c%len(prog) == 2 && i == 1 { // raised leading tone of the dominant
				p++
			}
			notes = append(notes, Note{Pitch: p, Start: t, Dur: chordDur, Amp: 0.12})
		}
		notes = append(notes, Note{Pitch: 48 + tonic + scale[ch[0]], Start: t, Dur: chordDur, Amp: 0.18})
		for k := range 2 {
			d := ch[r.IntN(3)]
			notes = append(notes, Note{Pitch: 72 + tonic + scale[d], Start: t + float64(k)*chordDur/2, Dur: chordDur / 2, Amp: 0.08})
		}
	}
	return Render(rate, seconds, notes)
}

// Section is one part of a synthetic song.
type Section struct {
	Name    string
	Start   float64
	Seconds float64
}

// Song is a verse/chorus piece with known structure: a quiet verse whose
// melody never repeats and a loud chorus with a fixed hook that recurs,
// laid out as verse, chorus, verse, chorus, bridge, chorus. It returns the
// audio and the sections in order.
func Song(rate int, sectionSeconds float64, seed uint64) (audio.PCM, []Section) {
	r := rand.New(rand.NewPCG(seed, 4))
	layout := []string{"verse", "chorus", "verse", "chorus", "bridge", "chorus"}
	hook := make([]int, 16)
	for i := range hook {
		hook[i] = MajorScale[r.IntN(7)]
	}
	var notes []Note
	var sections []Section
	beat := 0.25
	for si, name := range layout {
		t0 := float64(si) * sectionSeconds
		sections = append(sections, Section{Name: name, Start: t0, Seconds: sectionSeconds})
		steps := int(sectionSeconds / beat)
		for k := range steps {
			t := t0 + float64(k)*beat
			switch name {
			case "chorus":
				p := 72 + hook[k%len(hook)]
				notes = append(notes,
					Note{Pitch: p, Start: t, Dur: beat, Amp: 0.3},
					Note{Pitch: p - 12, Start: t, Dur: beat, Amp: 0.2})
				if k%4 == 0 {
					notes = append(notes, Note{Pitch: 43 + hook[(k/4)%len(hook)], Start: t, Dur: 4 * beat, Amp: 0.3})
				}
			default:
				p := 60 + r.IntN(24)
				notes = append(notes, Note{Pitch: p, Start: t, Dur: beat, Amp: 0.07})
			}
		}
	}
	return Render(rate, float64(len(layout))*sectionSeconds, notes), sections
}

// Babble is speech-like sound: voiced syllables (a gliding glottal pitch
// through vowel-like formant peaks) of 100–250 ms, 3–5 per second, with
// pauses between phrases.
func Babble(rate int, seconds float64, seed uint64) audio.PCM {
	r := rand.New(rand.NewPCG(seed, 5))
	s := samples(rate, seconds)
	formants := [][2]float64{{730, 1090}, {270, 2290}, {300, 870}, {530, 1840}, {660, 1720}}
	t := 0.0
	for t < seconds {
		if r.Float64() < 0.15 {
			t += 0.3 + 0.4*r.Float64() // phrase pause
			continue
		}
		dur := 0.1 + 0.15*r.Float64()
		f0 := 100 + 120*r.Float64()
		glide := (r.Float64() - 0.5) * 60
		fm := formants[r.IntN(len(formants))]
		a := int(t * float64(rate))
		m := int(dur * float64(rate))
		phase := 0.0
		for i := 0; i < m && a+i < len(s); i++ {
			x := float64(i) / float64(m)
			f := f0 + glide*x
			phase += 2 * math.Pi * f / float64(rate)
			env := math.Sin(math.Pi * x)
			var v float64
			for h := 1; float64(h)*f < float64(rate)/2 && h < 30; h++ {
				hf := float64(h) * f
				g := math.Exp(-math.Pow((hf-fm[0])/120, 2)) + 0.7*math.Exp(-math.Pow((hf-fm[1])/150, 2)) + 0.05
				v += g * math.Sin(float64(h)*phase)
			}
			s[a+i] += float32(0.15 * env * v)
		}
		t += dur + 0.03 + 0.08*r.Float64()
	}
	return audio.PCM{Samples: s, Rate: rate}
}
