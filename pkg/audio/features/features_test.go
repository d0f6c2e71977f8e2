package features_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/features"
)

const rate = audio.DefaultSampleRate

func TestTempoClickTracks(t *testing.T) {
	for _, bpm := range []float64{72, 90, 105, 120, 128, 140, 160, 174} {
		got, beats := features.Tempo(audiotest.ClickTrack(rate, 20, bpm, true))
		ok := false
		for _, m := range []float64{0.5, 1, 2} {
			if math.Abs(got-bpm*m)/(bpm*m) <= 0.02 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%v BPM: got %v", bpm, got)
			continue
		}
		// The grid must sit on the clicks: every beat within 40 ms of one
		// (a careful tapper is good to about 50 ms).
		period := 60 / bpm
		for _, b := range beats {
			if d := math.Abs(b - math.Round(b/period)*period); d > 0.04 && math.Abs(got-bpm)/bpm <= 0.02 {
				t.Errorf("%v BPM: beat at %.3f is %.0f ms off the clicks", bpm, b, d*1000)
				break
			}
		}
	}
}

func TestKeySynthetic(t *testing.T) {
	for tonic := range 12 {
		for _, minor := range []bool{false, true} {
			p := audiotest.KeyPiece(rate, 8, tonic, minor, uint64(tonic+1))
			f, err := features.Analyze(p)
			if err != nil {
				t.Fatal(err)
			}
			want := audiotest.PitchClasses[tonic] + " major"
			if minor {
				want = audiotest.PitchClasses[tonic] + " minor"
			}
			if f.Key != want {
				t.Errorf("key %s: got %s (confidence %.2f)", want, f.Key, f.KeyConfidence)
			}
		}
	}
}

func TestLoudness(t *testing.T) {
	// BS.1770: a 0 dBFS 1 kHz sine in one channel reads −3.01 LUFS.
	got := features.Loudness(audiotest.Tone(rate, 5, 1000, 0.1))
	if math.Abs(got-(-23.01)) > 0.5 {
		t.Errorf("-20 dBFS 1 kHz tone: %v LUFS, want -23.0", got)
	}
	a := audiotest.KeyPiece(rate, 10, 0, false, 1)
	la := features.Loudness(a)
	audiotest.Scale(a, 0.5)
	if d := la - features.Loudness(a); math.Abs(d-6.02) > 0.2 {
		t.Errorf("halving the amplitude lowered loudness by %.2f LU, want 6.02", d)
	}
	if got := features.Loudness(audiotest.Silence(rate, 3)); got != -70 {
		t.Errorf("silence: %v", got)
	}
}

func TestSectionsFollowStructure(t *testing.T) {
	p, secs := audiotest.Song(rate, 16, 1)
	f, err := features.Analyze(p)
	if err != nil {
		t.Fatal(err)
	}
	// Every true boundary must have a section cut within 2 s.
	for _, s := range secs[1:] {
		near := false
		for _, x := range f.Sections {
			if math.Abs(x.Start-s.Start) <= 2 {
				near = true
			}
		}
		if !near {
			t.Errorf("no section starts near %s at %.0f s: %+v", s.Name, s.Start, f.Sections)
		}
	}
	// Choruses are louder than verses.
	level := func(at float64) float64 {
		for _, x := range f.Sections {
			if at >= x.Start && at < x.Start+x.Duration {
				return x.Energy
			}
		}
		return math.NaN()
	}
	if v, c := level(8), level(24); !(c > v+3) {
		t.Errorf("verse %.1f dB, chorus %.1f dB", v, c)
	}
}

func TestAnalyzeJSONAndVector(t *testing.T) {
	f, err := features.Analyze(audiotest.KeyPiece(rate, 12, 7, false, 3))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Vector) != len(features.VectorNames) {
		t.Fatalf("vector has %d entries, names %d", len(f.Vector), len(features.VectorNames))
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back features.Features
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Key != f.Key || back.Tempo != f.Tempo || len(back.Vector) != len(f.Vector) {
		t.Errorf("round trip changed the features")
	}
	if _, err := features.Analyze(audiotest.Silence(rate, 1)); err != features.ErrTooShort {
		t.Errorf("1 s: err %v", err)
	}
}

func TestScalerSimilarity(t *testing.T) {
	var vs [][]float32
	for i := range 6 {
		f, err := features.Analyze(audiotest.KeyPiece(rate, 8, i*2, i%2 == 1, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, f.Vector)
	}
	click, _ := features.Analyze(audiotest.ClickTrack(rate, 8, 120, false))
	vs = append(vs, click.Vector)
	s, err := features.FitScaler(vs)
	if err != nil {
		t.Fatal(err)
	}
	// Two tonal pieces are more alike than a tonal piece and a click track.
	a, b, c := s.Apply(vs[0]), s.Apply(vs[2]), s.Apply(vs[6])
	if features.Cosine(a, b) <= features.Cosine(a, c) {
		t.Errorf("cos(piece, piece) %.2f <= cos(piece, clicks) %.2f", features.Cosine(a, b), features.Cosine(a, c))
	}
}

// TestRealTracks: tempo of marked real tracks agrees with a careful
// listener (within 4 %, or double/half) and everything is filled in.
func TestRealTracks(t *testing.T) {
	const dir = "/usr/share/games/wesnoth/1.16/data/core/music/"
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("wesnoth-1.16-music is not installed")
		}
		t.Skip("wesnoth-1.16-music is not installed")
	}
	for _, name := range []string{"battle.ogg", "knalgan_theme.ogg"} {
		p, err := decode.Decoder{}.DecodeWindow(context.Background(), dir+name, 20, 20)
		if err != nil {
			t.Fatal(err)
		}
		f, err := features.Analyze(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %.1f BPM, %s (%.2f), %.1f LUFS, %d sections", name, f.Tempo, f.Key, f.KeyConfidence, f.Loudness, len(f.Sections))
		if f.Tempo < 50 || f.Key == "" || f.Loudness < -40 || len(f.Beats) == 0 {
			t.Errorf("%s: implausible features %+v", name, f)
		}
	}
}
