package fingerprint

import (
	"math"
	"testing"
)

// glideBursts is a music bed with sporadic gliding combs: every period
// seconds a burst of length seconds whose f0 rises three semitones from
// 120 Hz (a slide of a lead voice or instrument), 25 harmonics, louder
// than the chord.
func glideBursts(rate int, seconds, period, length float64) []float32 {
	out := synthChord(rate, seconds)
	g := float32(rms(out) * 2)
	phase := 0.0
	for i := range out {
		t := math.Mod(float64(i)/float64(rate), period)
		if t >= length {
			phase = 0
			continue
		}
		phase += 2 * math.Pi * 120 * math.Pow(2, 3.0/12*t/length) / float64(rate)
		var v float64
		for k := 1; k <= 25; k++ {
			v += math.Sin(float64(k)*phase) / math.Sqrt(float64(k))
		}
		out[i] += g * float32(v) / 3
	}
	return out
}

// gated returns the frames of x that pass voiced (gliding tracks) and
// those still masked after the density gate.
func gated(x []float32) (glide, masked, frames int) {
	fp := New(QueryOptions)
	frames = fp.spectrogram(x)
	fp.whiten(frames)
	fp.voice = newVoiceState()
	fp.voice.pitch(fp.norm, frames)
	fp.voice.voiced()
	for _, c := range fp.voice.track {
		if c >= 0 {
			glide++
		}
	}
	fp.voice.dense()
	for _, c := range fp.voice.track {
		if c >= 0 {
			masked++
		}
	}
	return glide, masked, frames
}

// TestVoiceDensity: a gliding comb that comes and goes (0.6 s every 3 s,
// a few frames of each pass the glide rule) is mostly not masked;
// continuous narration-like voice over the same chord still is.
func TestVoiceDensity(t *testing.T) {
	rate := SampleRate
	glide, masked, frames := gated(glideBursts(rate, 12, 3, 0.6))
	t.Logf("sporadic glides in a chord: %d of %d frames glide, %d masked", glide, frames, masked)
	if glide < 12 {
		t.Fatalf("only %d frames of the bursts pass the glide rule: the test does not exercise the gate", glide)
	}
	if masked > glide/3 {
		t.Errorf("%d of %d frames of sporadic glides masked, want ≤ a third", masked, glide)
	}

	chord, voice := synthChord(rate, 6), synthVoice(rate, 6)
	g := rms(chord) / rms(voice) * math.Pow(10, 10.0/20)
	mix := make([]float32, len(chord))
	for i := range mix {
		mix[i] = chord[i] + float32(g)*voice[i]
	}
	glide, masked, frames = gated(mix)
	t.Logf("continuous voice over a chord: %d of %d frames glide, %d masked", glide, frames, masked)
	if masked < glide*9/10 || masked < frames/2 {
		t.Errorf("continuous voice: %d of %d gliding frames masked (%d frames), want ≥ 90 %% of them and half the frames", masked, glide, frames)
	}
}

// TestDenseTrack checks the gate on its own: 6-frame gliding runs a second
// and a half apart are dropped whole; runs of 8 in every 10 frames (a
// narrator's syllables) are kept whole, up to the query's ends.
func TestDenseTrack(t *testing.T) {
	v := newVoiceState()
	for _, c := range []struct {
		name      string
		run, gap  int
		keptShare float64
	}{{"sporadic", 6, 30, 0}, {"narration", 8, 2, 1}} {
		v.track = v.track[:0]
		glide := 0
		for f := range 300 {
			c0 := int32(-1)
			if f%(c.run+c.gap) >= c.gap {
				c0 = int32(f % 50)
				glide++
			}
			v.track = append(v.track, c0)
		}
		v.dense()
		kept := 0
		for _, x := range v.track {
			if x >= 0 {
				kept++
			}
		}
		if want := int(c.keptShare * float64(glide)); kept != want {
			t.Errorf("%s: %d of %d gliding frames kept, want %d", c.name, kept, glide, want)
		}
	}
}
