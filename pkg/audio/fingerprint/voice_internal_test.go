package fingerprint

import (
	"math"
	"testing"

	"musiccatalog/pkg/audio"
)

// synthVoice is a voice-like signal: an f0 that glides up and down
// between 108 and 132 Hz (0.8 cycles a second: intonation, up to 0.4
// semitones a frame), 25 harmonics under a falling envelope, loudness
// rising and falling with four syllables a second.
func synthVoice(rate int, seconds float64) []float32 {
	out := make([]float32, int(seconds*float64(rate)))
	phase := 0.0
	for i := range out {
		t := float64(i) / float64(rate)
		f0 := 120 + 12*math.Sin(2*math.Pi*0.8*t)
		phase += 2 * math.Pi * f0 / float64(rate)
		env := 0.65 - 0.35*math.Cos(2*math.Pi*4*t)
		var v float64
		for k := 1; k <= 25; k++ {
			v += math.Sin(float64(k)*phase) / math.Sqrt(float64(k))
		}
		out[i] = float32(env * v)
	}
	return out
}

// chordPartials are the frequencies of synthChord's partials.
func chordPartials() []float64 {
	var fs []float64
	for _, f := range []float64{220, 277.18, 329.63} { // A major
		for k := 1; k <= 6; k++ {
			fs = append(fs, f*float64(k))
		}
	}
	return fs
}

// synthChord is a held A-major chord, six partials per note.
func synthChord(rate int, seconds float64) []float32 {
	out := make([]float32, int(seconds*float64(rate)))
	for i := range out {
		t := float64(i) / float64(rate)
		var v float64
		for j, f := range chordPartials() {
			v += math.Sin(2*math.Pi*f*t) / float64(j%6+1)
		}
		out[i] = float32(v)
	}
	return out
}

func rms(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(len(x), 1)))
}

// onChord reports whether bin (a row index) is within two bins of a
// partial of the chord.
func onChord(bin int32) bool {
	binHz := float64(SampleRate) / fftSize
	for _, f := range chordPartials() {
		if math.Abs(float64(bin+minBin)-f/binHz) <= 2 {
			return true
		}
	}
	return false
}

// chordShare fingerprints pcm with opts and returns the share of its peaks
// on the chord's partials and how many chord partials (of those under
// maxBin) hold a peak somewhere.
func chordShare(opts Options, pcm audio.PCM) (share float64, partials int) {
	fp := New(opts)
	fp.Fingerprint(pcm)
	on := 0
	held := map[int]bool{}
	binHz := float64(SampleRate) / fftSize
	for _, p := range fp.peaks {
		if !onChord(p.f) {
			continue
		}
		on++
		for j, f := range chordPartials() {
			if math.Abs(float64(p.f+minBin)-f/binHz) <= 2 {
				held[j] = true
			}
		}
	}
	return float64(on) / float64(max(len(fp.peaks), 1)), len(held)
}

// TestSuppressVoice: a gliding harmonic voice 10 dB over a held chord
// takes most of the query's peaks (0.15 of them are the chord's); with the
// voice suppressed twice as many are (0.30), nearly every partial of the
// chord holds a peak, and the chord alone is left exactly as it was. The
// rest are the voice's highest harmonics, where its glide smears it over
// the whole band, and its frames where the comb was not found.
func TestSuppressVoice(t *testing.T) {
	const seconds = 6.0
	rate := SampleRate
	chord, voice := synthChord(rate, seconds), synthVoice(rate, seconds)
	g := rms(chord) / rms(voice) * math.Pow(10, 10.0/20)
	mix := make([]float32, len(chord))
	for i := range mix {
		mix[i] = chord[i] + float32(g)*voice[i]
	}
	on := QueryOptions
	on.SuppressVoice = true
	off := on
	off.SuppressVoice = false

	plain, plainPartials := chordShare(off, audio.PCM{Samples: mix, Rate: rate})
	kept, partials := chordShare(on, audio.PCM{Samples: mix, Rate: rate})
	t.Logf("peaks on the chord's partials under the voice: %.2f without suppression (%d partials hold one), %.2f with (%d)", plain, plainPartials, kept, partials)
	if kept < 1.5*plain || kept < 0.25 {
		t.Errorf("with the voice suppressed %.2f of the peaks are the chord's (%.2f without), want ≥ 0.25 and 1.5 times as many", kept, plain)
	}
	if partials < 15 || partials <= plainPartials {
		t.Errorf("%d of the chord's 18 partials hold a peak with the voice suppressed (%d without), want ≥ 15 and more than without", partials, plainPartials)
	}

	// The voice is found; the chord alone is not taken for one.
	fp := New(on)
	frames := fp.spectrogram(mix)
	fp.whiten(frames)
	fp.suppressVoice(frames)
	voiced := 0
	for _, c := range fp.voice.track {
		if c >= 0 {
			voiced++
		}
	}
	if share := float64(voiced) / float64(frames); share < 0.5 {
		t.Errorf("voice found in %.2f of the mix's frames, want ≥ 0.5", share)
	}
	a := New(on).Fingerprint(audio.PCM{Samples: chord, Rate: rate})
	b := New(off).Fingerprint(audio.PCM{Samples: chord, Rate: rate})
	if len(a) != len(b) {
		t.Fatalf("the chord alone gives %d hashes with suppression, %d without", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("the chord alone: hash %d differs with suppression", i)
		}
	}
}
