package demo

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/dsp"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

func TestGenerateIsDeterministicAndValid(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, err := Generate(t.Context(), a, 3, 9)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(t.Context(), b, 3, 9); err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", rel)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.ParseFile(pa)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Errors)+len(m.Warnings) != 0 || len(m.Assets) != 3+SoundFXCount(3) {
		t.Fatalf("manifest: %d assets, errors %v, warnings %v", len(m.Assets), m.Errors, m.Warnings)
	}
	stems := len(m.Assets[0].Stems)
	if stems == 0 || files != len(m.Assets)+stems+1 {
		t.Fatalf("%d files for %d assets with %d stems", files, len(m.Assets), stems)
	}
	for _, as := range m.Assets {
		for _, src := range append([]manifest.Source{as.Audio}, as.Stems...) {
			if _, err := os.Stat(src.Path); err != nil {
				t.Errorf("line %d: %v", as.Line, err)
			}
		}
	}
}

// TestCatalogShape checks the default catalog has what the demo promises.
func TestCatalogShape(t *testing.T) {
	tracks, sfx := Records(DefaultTracks, DefaultSeed)
	var buf bytes.Buffer
	w := manifest.NewWriter(&buf)
	for _, tr := range tracks {
		if err := w.Track(tr); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range sfx {
		if err := w.SoundFX(s); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	m, err := manifest.Parse(&buf, manifest.LocalBase("/demo"))
	if err != nil || len(m.Errors)+len(m.Warnings) != 0 {
		t.Fatalf("%v %v %v", err, m.Errors, m.Warnings)
	}
	count := map[string]int{}
	genres, moods, keys := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, a := range m.Assets {
		tr := a.Track
		if tr == nil {
			count["sfx"]++
			continue
		}
		genres[tr.Genre], moods[tr.Mood], keys[*tr.Key] = true, true, true
		count["vocals "+tr.Vocals]++
		count["tempo "+catalog.TempoDescriptor(*tr.Tempo)]++
		count["tier "+string(tr.AccessTier)]++
		for k, v := range map[string]bool{
			"explicit": tr.IsExplicit, "restricted": tr.Restricted, "stems": len(tr.Stems) > 0, "album": tr.Album != nil,
			"-JP": strings.HasSuffix(tr.Name, "-JP"), "variant": tr.Variant != "",
			"incomplete writers": catalog.CompleteRights(tr.Writers) == nil, "incomplete publishers": catalog.CompleteRights(tr.Publishers) == nil,
			"ja description": tr.Translations["ja"].Description != "", "de description": tr.Translations["de"].Description != "",
		} {
			if v {
				count[k]++
			}
		}
	}
	t.Logf("%d genres, %d moods, %d keys, counts %v", len(genres), len(moods), len(keys), count)
	if len(genres) < 8 || len(moods) < 12 || len(keys) < 18 {
		t.Errorf("too little variety: %d genres, %d moods, %d keys", len(genres), len(moods), len(keys))
	}
	for _, k := range []string{"vocals male", "vocals female", "vocals mixed", "vocals instrumental", "vocals unknown",
		"tempo slow", "tempo medium", "tempo fast", "tier free", "tier subscriber", "tier enterprise",
		"explicit", "restricted", "stems", "album", "-JP", "variant", "incomplete writers", "incomplete publishers", "ja description"} {
		if count[k] < 3 {
			t.Errorf("only %d tracks with %s", count[k], k)
		}
	}
	if count["sfx"] != 30 || count["de description"] != DefaultTracks || count["ja description"] == DefaultTracks {
		t.Errorf("sfx %d, de %d, ja %d", count["sfx"], count["de description"], count["ja description"])
	}
}

// onsetEnvelope is the half-wave rectified spectral flux of the audio at
// hop-sample frames.
func onsetEnvelope(samples []float32, hop int) []float64 {
	s := dsp.NewSpectrum(512)
	spec, frames := s.Spectrogram(samples, hop)
	bins := s.Bins()
	env := make([]float64, frames)
	for f := 1; f < frames; f++ {
		for k := 1; k < bins; k++ {
			d := math.Log1p(1000*float64(spec[f*bins+k])) - math.Log1p(1000*float64(spec[(f-1)*bins+k]))
			env[f] += max(0, d)
		}
	}
	return env
}

func autocorr(x []float64, lag int) float64 {
	var s float64
	for i := lag; i < len(x); i++ {
		s += x[i] * x[i-lag]
	}
	return s / float64(len(x)-lag)
}

// TestTempoAgreesWithTheAudio: the strongest periodicity of the onsets
// between 0.7 and 1.45 beats must be the stated beat, so a track is never
// faster or slower than its metadata says (double and half time, which an
// engine may report, lie outside that window).
func TestTempoAgreesWithTheAudio(t *testing.T) {
	const hop = 128
	fps := float64(SampleRate) / hop
	ps := plans(16, DefaultSeed)
	bad := 0
	for i, p := range ps {
		mix, _ := p.song.render()
		env := onsetEnvelope(mix, hop)
		period := 60 / p.song.bpm * fps
		best, bestLag := -1.0, 0
		for lag := int(0.7 * period); lag <= int(1.45*period); lag++ {
			if v := autocorr(env, lag); v > best {
				best, bestLag = v, lag
			}
		}
		if math.Abs(float64(bestLag)-period)/period > 0.03 {
			bad++
			t.Logf("track %d (%s/%s, %.0f BPM): strongest period %.1f frames, beat is %.1f", i, p.rec.Genre, p.rec.Subgenre, p.song.bpm, float64(bestLag), period)
		}
	}
	if bad > 1 {
		t.Fatalf("%d of %d tracks pulse at another tempo than stated", bad, len(ps))
	}
}

// Krumhansl–Kessler key profiles.
var (
	majorProfile = []float64{6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88}
	minorProfile = []float64{6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17}
)

// chroma sums the spectral peaks between 100 Hz and 2.5 kHz by pitch
// class; peaks only, so that window leakage does not smear a note into its
// neighbours.
func chroma(samples []float32) [12]float64 {
	s := dsp.NewSpectrum(4096)
	spec, frames := s.Spectrogram(samples, 2048)
	bins := s.Bins()
	var c [12]float64
	for fr := range frames {
		row := spec[fr*bins : (fr+1)*bins]
		for k := 2; k < bins-1; k++ {
			f := float64(k) * SampleRate / 4096
			if f < 100 || f > 2500 || row[k] < row[k-1] || row[k] < row[k+1] {
				continue
			}
			pc := ((int(math.Round(12*math.Log2(f/440)))+9)%12 + 12) % 12
			c[pc] += math.Sqrt(float64(row[k]))
		}
	}
	return c
}

func correlate(c [12]float64, profile []float64, tonic int) float64 {
	var mc, mp float64
	for i := range 12 {
		mc += c[i] / 12
		mp += profile[i] / 12
	}
	var num, dc, dp float64
	for i := range 12 {
		x, y := c[(i+tonic)%12]-mc, profile[i]-mp
		num += x * y
		dc += x * x
		dp += y * y
	}
	return num / math.Sqrt(dc*dp)
}

// TestKeyAgreesWithTheAudio: nearly all the pitch content lies in the
// stated key's scale, and the key whose profile best fits the chroma is
// the stated key for most tracks and a closely related one (its relative,
// or a fifth away, whose scales differ by one note at most) for the rest:
// this naive chroma counts harmonics as notes, and a bright timbre's third
// harmonic is the fifth above.
func TestKeyAgreesWithTheAudio(t *testing.T) {
	ps := plans(24, DefaultSeed)
	exact := 0
	for i, p := range ps {
		mix, layers := p.song.render()
		pitched := slices.Clone(mix) // without the drums, whose noise has no key
		for i, v := range layers[layerDrums] {
			pitched[i] -= v
		}
		pc := chroma(pitched)
		scale := majorScale
		if p.song.minor {
			scale = minorScale
		}
		var in, all float64
		for k, v := range pc {
			all += v
			d := (k - p.song.tonic + 12) % 12
			if slices.Contains(scale, d) || (p.song.minor && d == 11) { // the raised leading tone
				in += v
			}
		}
		best, bestTonic, bestMinor := -2.0, 0, false
		for tonic := range 12 {
			for _, minor := range []bool{false, true} {
				prof := majorProfile
				if minor {
					prof = minorProfile
				}
				if r := correlate(pc, prof, tonic); r > best {
					best, bestTonic, bestMinor = r, tonic, minor
				}
			}
		}
		relative := (p.song.tonic + 9) % 12 // the relative minor of a major key
		if p.song.minor {
			relative = (p.song.tonic + 3) % 12
		}
		fifth := bestMinor == p.song.minor && (bestTonic == (p.song.tonic+7)%12 || bestTonic == (p.song.tonic+5)%12)
		// The minor key on the major key's third degree shares six of its
		// seven notes; a progression that leans on iii and vi can tip a
		// profile match there, as it does for listeners.
		mediant := !p.song.minor && bestMinor && bestTonic == (p.song.tonic+4)%12
		switch {
		case bestTonic == p.song.tonic && bestMinor == p.song.minor:
			exact++
		case bestTonic == relative && bestMinor != p.song.minor, fifth, mediant:
			t.Logf("track %d (%s): chroma fits %s minor=%v best, metadata says %s", i, p.rec.Subgenre, audiotest.PitchClasses[bestTonic], bestMinor, p.rec.Key)
		default:
			t.Errorf("track %d (%s): chroma fits %s minor=%v best, metadata says %s", i, p.rec.Subgenre, audiotest.PitchClasses[bestTonic], bestMinor, p.rec.Key)
		}
		if in/all < 0.8 {
			t.Errorf("track %d (%s, %s): %.0f %% of the pitch content in the scale", i, p.rec.Subgenre, p.rec.Key, 100*in/all)
		}
	}
	if exact < len(ps)*5/6 {
		t.Fatalf("only %d of %d tracks fit their stated key best", exact, len(ps))
	}
}

func TestStemsSumToTheMix(t *testing.T) {
	p := plans(1, 5)[0]
	mix, layers := p.song.render()
	for i := range mix {
		var sum float32
		for _, l := range layers {
			sum += l[i]
		}
		if math.Abs(float64(sum-mix[i])) > 1e-5 {
			t.Fatalf("sample %d: stems sum to %g, mix is %g", i, sum, mix[i])
		}
	}
}

func TestSoundEffectsAreAudible(t *testing.T) {
	for _, p := range sfxPlans(len(sfxKinds), 3) {
		s := p.render()
		var peak float32
		for _, v := range s {
			peak = max(peak, float32(math.Abs(float64(v))))
		}
		if secs := float64(len(s)) / SampleRate; peak < 0.5 || secs < p.kind.seconds[0]-0.01 || secs > p.kind.seconds[1]+0.01 {
			t.Errorf("%s: peak %.2f, %.2f s", p.rec.Name, peak, secs)
		}
	}
}
