package demo

import (
	"fmt"
	"math"
	"math/rand/v2"

	"musiccatalog/pkg/catalog/manifest"
)

// sfxKind is one kind of sound effect and how to synthesize it.
type sfxKind struct {
	name, genre, secondary string
	seconds                [2]float64 // length range
	make                   func(r *rand.Rand, seconds float64) []float32
}

var sfxKinds = []sfxKind{
	{"Heavy Impact", "Impacts", "Hits", [2]float64{1.5, 3}, impact},
	{"Deep Boom", "Impacts", "Booms", [2]float64{2, 4}, boom},
	{"Fast Whoosh", "Whooshes", "Transitions", [2]float64{0.8, 1.5}, whoosh},
	{"Slow Swell", "Whooshes", "Risers", [2]float64{3, 6}, riser},
	{"Footsteps on Gravel", "Foley", "Footsteps", [2]float64{3, 6}, footsteps},
	{"Door Knock", "Foley", "Doors", [2]float64{1.5, 3}, knock},
	{"Button Click", "UI", "Clicks", [2]float64{0.3, 0.6}, click},
	{"Notification Chime", "UI", "Notifications", [2]float64{1, 2}, chime},
	{"Gentle Wind", "Nature", "Wind", [2]float64{5, 8}, wind},
	{"Light Rain", "Nature", "Rain", [2]float64{5, 8}, rain},
	{"Bubbling Water", "Nature", "Water", [2]float64{3, 6}, bubbles},
	{"Police Siren", "Alarms", "Sirens", [2]float64{4, 7}, siren},
	{"Alarm Beeps", "Alarms", "Beeps", [2]float64{2, 4}, beeps},
	{"Laser Zap", "Sci-Fi", "Lasers", [2]float64{0.5, 1.2}, laser},
	{"Spaceship Hum", "Sci-Fi", "Drones", [2]float64{4, 8}, hum},
}

type sfxPlan struct {
	rec  manifest.SoundFX
	kind sfxKind
	seed uint64
	secs float64
	file string
}

func sfxPlans(n int, seed uint64) []sfxPlan {
	out := make([]sfxPlan, 0, n)
	for i := range n {
		r := rand.New(rand.NewPCG(seed, 1<<32+uint64(i)))
		k := sfxKinds[i%len(sfxKinds)]
		name := fmt.Sprintf("%s %d", k.name, i/len(sfxKinds)+1)
		out = append(out, sfxPlan{
			rec:  manifest.SoundFX{Name: name, Genre: k.genre, SecondaryGenre: k.secondary},
			kind: k, seed: r.Uint64(),
			secs: k.seconds[0] + (k.seconds[1]-k.seconds[0])*r.Float64(),
			file: fmt.Sprintf("sfx/%02d-%s.wav", i, manifest.Slug(name)),
		})
	}
	return out
}

func (p sfxPlan) render() []float32 {
	s := p.kind.make(rand.New(rand.NewPCG(p.seed, 13)), p.secs)
	peak := float32(0)
	for _, v := range s {
		peak = max(peak, float32(math.Abs(float64(v))))
	}
	if peak > 0 {
		for i := range s {
			s[i] *= 0.8 / peak
		}
	}
	return s
}

// lowpass runs a one-pole low-pass whose cutoff (Hz) may change per sample.
type lowpass struct{ y float64 }

func (l *lowpass) step(x, cutoff float64) float64 {
	a := 1 - math.Exp(-2*math.Pi*cutoff/SampleRate)
	l.y += a * (x - l.y)
	return l.y
}

func buffer(seconds float64) []float32 { return make([]float32, at(seconds)) }

func impact(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	hit(s, drumKit().taiko, 0, 1)
	hit(s, drumKit().snare, 0.005, 0.6)
	var lp lowpass
	for i := range s {
		t := float64(i) / SampleRate
		s[i] += float32(lp.step(2*r.Float64()-1, 800) * math.Exp(-t/0.5))
	}
	return s
}

func boom(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	phase := 0.0
	var lp lowpass
	for i := range s {
		t := float64(i) / SampleRate
		phase += 2 * math.Pi * (35 + 60*math.Exp(-t/0.3)) / SampleRate
		s[i] = float32((math.Sin(phase) + 0.5*lp.step(2*r.Float64()-1, 300)) * math.Exp(-t/(sec/3)))
	}
	return s
}

// noiseSweep is filtered noise whose cutoff and loudness follow shape(x)
// over the length (x in 0..1).
func noiseSweep(r *rand.Rand, sec, lo, hi float64, shape func(x float64) float64) []float32 {
	s := buffer(sec)
	var lp, hp lowpass
	for i := range s {
		x := float64(i) / float64(len(s))
		v := shape(x)
		y := lp.step(2*r.Float64()-1, lo+(hi-lo)*v)
		y -= hp.step(y, 150)
		s[i] = float32(y * v)
	}
	return s
}

func whoosh(r *rand.Rand, sec float64) []float32 {
	return noiseSweep(r, sec, 300, 6000, func(x float64) float64 { return math.Sin(math.Pi * x) })
}

func riser(r *rand.Rand, sec float64) []float32 {
	s := noiseSweep(r, sec, 200, 8000, func(x float64) float64 { return x * x })
	tone(s, timbreSaw, 48, 0, sec*0.95, 0.2)
	return s
}

func footsteps(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	step := 0.45 + 0.15*r.Float64()
	for t := 0.1; t < sec-0.2; t += step + 0.04*(r.Float64()-0.5) {
		crunch := noiseSweep(r, 0.15, 500, 3000, func(x float64) float64 { return math.Exp(-6 * x) })
		hit(s, crunch, t, 0.8)
		hit(s, drumKit().kick, t, 0.15)
	}
	return s
}

func knock(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	knock := func(t float64) {
		hit(s, drumKit().rim, t, 0.5)
		tone(s, timbreSine, 50+r.Float64(), t, 0.05, 0.8)
	}
	for i, t := 0, 0.1; i < 3; i, t = i+1, t+0.22 {
		knock(t)
	}
	return s
}

func click(_ *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	hit(s, drumKit().tick, 0.02, 1)
	return s
}

func chime(_ *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	tone(s, timbreBell, 84, 0, 0.3, 0.6)
	tone(s, timbreBell, 91, 0.15, sec-0.5, 0.6)
	return s
}

func wind(r *rand.Rand, sec float64) []float32 {
	phase := r.Float64() * 2 * math.Pi
	return noiseSweep(r, sec, 200, 900, func(x float64) float64 {
		return (0.6 + 0.4*math.Sin(phase+x*sec*0.9)) * math.Min(1, math.Min(x*8, (1-x)*8))
	})
}

func rain(r *rand.Rand, sec float64) []float32 {
	s := noiseSweep(r, sec, 3000, 3000, func(x float64) float64 { return 0.3 * math.Min(1, math.Min(x*10, (1-x)*10)) })
	for range int(sec * 60) {
		hit(s, drumKit().tick, r.Float64()*sec, 0.1+0.2*r.Float64())
	}
	return s
}

func bubbles(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	for range int(sec * 8) {
		start := r.Float64() * (sec - 0.1)
		f0 := 300 + 900*r.Float64()
		a := at(start)
		phase := 0.0
		for i := 0; i < at(0.06) && a+i < len(s); i++ {
			t := float64(i) / SampleRate
			phase += 2 * math.Pi * f0 * (1 + 8*t) / SampleRate
			s[a+i] += float32(0.4 * math.Sin(phase) * math.Exp(-t/0.02))
		}
	}
	return s
}

func siren(_ *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	phase := 0.0
	for i := range s {
		t := float64(i) / SampleRate
		f := 750 + 350*math.Sin(2*math.Pi*t/1.6)
		phase += 2 * math.Pi * f / SampleRate
		s[i] = float32(0.5 * (math.Sin(phase) + 0.3*math.Sin(3*phase)))
	}
	return s
}

func beeps(_ *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	for t := 0.0; t < sec-0.2; t += 0.5 {
		tone(s, timbreSquare, 88, t, 0.2, 0.5)
	}
	return s
}

func laser(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	phase := 0.0
	f0 := 2500 + 1500*r.Float64()
	for i := range s {
		t := float64(i) / SampleRate
		phase += 2 * math.Pi * f0 * math.Exp(-t/(sec/4)) / SampleRate
		s[i] = float32(math.Copysign(0.5, math.Sin(phase)) * math.Exp(-t/(sec/2)))
	}
	return s
}

func hum(r *rand.Rand, sec float64) []float32 {
	s := buffer(sec)
	base := 33.0 + float64(r.IntN(5))
	for _, d := range []float64{0, 0.07, -0.05} {
		tone(s, timbreSaw, base+d, 0, sec, 0.3)
	}
	var lp lowpass
	for i := range s {
		s[i] = float32(lp.step(float64(s[i]), 400))
	}
	return s
}
