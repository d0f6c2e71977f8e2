package features

import (
	"errors"
	"math"
	"slices"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/dsp"
)

// Features of one recording. Times are seconds.
type Features struct {
	Duration float64 `json:"duration"`
	// Tempo in BPM (0 when no pulse was found) and the beat grid.
	Tempo float64   `json:"tempo"`
	Beats []float64 `json:"beats"`
	// Key such as "C major" or "A minor", with the correlation of the best
	// key profile (0–1) as confidence.
	Key           string  `json:"key"`
	KeyConfidence float64 `json:"key_confidence"`
	// Loudness is integrated loudness in LUFS (K-weighted, gated).
	Loudness float64 `json:"loudness"`
	// Energy is the RMS level in dBFS every EnergyHop seconds.
	Energy    []float64 `json:"energy"`
	EnergyHop float64   `json:"energy_hop"`
	// Sections split the track where its harmony or level changes.
	Sections []Section `json:"sections"`
	// ChromaCurve is what Chroma returns, kept from the analysis for
	// highlights.FindIn; too large to serialize.
	ChromaCurve [][12]float64 `json:"-"`

	Chroma    [12]float64       `json:"chroma"`
	MFCCMean  [NumMFCC]float64  `json:"mfcc_mean"`
	MFCCStd   [NumMFCC]float64  `json:"mfcc_std"`
	Centroid  float64           `json:"centroid"`
	Flatness  float64           `json:"flatness"`
	Contrast  [NumBands]float64 `json:"contrast"`
	OnsetRate float64           `json:"onset_rate"`

	// Vector holds the descriptors in the order VectorNames lists.
	Vector []float32 `json:"vector"`
}

// Section is a part of the track with its mean level.
type Section struct {
	Start    float64 `json:"start"`
	Duration float64 `json:"duration"`
	Energy   float64 `json:"energy"` // mean RMS dBFS
}

// ErrTooShort is returned for audio under MinSeconds.
var ErrTooShort = errors.New("features: audio too short to analyze")

// MinSeconds is the shortest audio Analyze accepts.
const MinSeconds = 2.0

const (
	fftSize = 2048
	hop     = 512
)

// frames is the shared short-time analysis: power spectra and the
// per-frame descriptors derived from them.
type frames struct {
	rate  int
	bins  int
	n     int
	power []float32 // n × bins
}

func stft(p audio.PCM) frames {
	s := dsp.NewSpectrum(fftSize)
	data, n := s.Spectrogram(p.Samples, hop)
	return frames{rate: p.Rate, bins: s.Bins(), n: n, power: data}
}

func (f frames) row(i int) []float32 { return f.power[i*f.bins : (i+1)*f.bins] }

func (f frames) hz(bin int) float64 { return float64(bin) * float64(f.rate) / fftSize }

// Analyze computes all features of pcm (any rate ≥ 8 kHz; 11025 Hz is the
// engine's default).
func Analyze(pcm audio.PCM) (Features, error) {
	if pcm.Seconds() < MinSeconds {
		return Features{}, ErrTooShort
	}
	if pcm.Rate < 8000 {
		return Features{}, errors.New("features: sample rate below 8 kHz")
	}
	f := Features{Duration: pcm.Seconds()}
	fr := stft(pcm)
	// One onset envelope serves tempo and onset rate (each detrends its own copy).
	env, fps := onsetEnvelope(pcm)
	f.Tempo, f.Beats = tempoOf(slices.Clone(env), fps)
	chroma := chromagram(fr)
	f.Chroma = meanChroma(chroma)
	f.Key, f.KeyConfidence = keyOf(f.Chroma)
	f.Loudness = Loudness(pcm)
	f.EnergyHop = EnergyHop
	f.Energy = EnergyCurve(pcm)
	f.Sections = sections(chroma, f.Energy, fr)
	f.ChromaCurve = poolChroma(chroma, pcm.Rate)
	spectral(&f, fr)
	f.OnsetRate = onsetRate(env, fps, pcm.Seconds())
	f.Vector = vector(&f)
	return f, nil
}

func db(x float64) float64 { return 10 * math.Log10(x+1e-12) }
