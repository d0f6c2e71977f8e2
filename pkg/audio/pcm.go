package audio

import (
	"math"
	"time"
)

// DefaultSampleRate is the analysis rate: high enough for chroma, MFCC and
// the fingerprint band (up to 4 kHz after resampling), low enough to keep
// decoding and analysis cheap.
const DefaultSampleRate = 11025

// PCM is mono audio as float32 samples in [-1, 1].
type PCM struct {
	Samples []float32
	Rate    int
}

// Duration is the length of the audio.
func (p PCM) Duration() time.Duration {
	if p.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(len(p.Samples)) / float64(p.Rate) * float64(time.Second))
}

// Seconds is the length of the audio in seconds.
func (p PCM) Seconds() float64 {
	if p.Rate <= 0 {
		return 0
	}
	return float64(len(p.Samples)) / float64(p.Rate)
}

// Window returns the audio from start for length seconds, clipped to the
// available samples. It shares memory with p.
func (p PCM) Window(start, length float64) PCM {
	a := clampIndex(int(math.Round(start*float64(p.Rate))), len(p.Samples))
	b := len(p.Samples)
	if length >= 0 {
		b = clampIndex(a+int(math.Round(length*float64(p.Rate))), len(p.Samples))
	}
	return PCM{Samples: p.Samples[a:b], Rate: p.Rate}
}

// RMS is the root mean square of the samples (0 for empty audio).
func (p PCM) RMS() float64 {
	if len(p.Samples) == 0 {
		return 0
	}
	var s float64
	for _, v := range p.Samples {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(p.Samples)))
}

func clampIndex(i, n int) int {
	if i < 0 {
		return 0
	}
	if i > n {
		return n
	}
	return i
}

// Range is a stretch of audio in milliseconds from the start, [StartMs, EndMs).
type Range struct {
	StartMs int64 `json:"start_ms"`
	EndMs   int64 `json:"end_ms"`
}

// Subtract returns the parts of r not covered by cut, in order. cut must be
// sorted by StartMs.
func (r Range) Subtract(cut []Range) []Range {
	var out []Range
	at := r.StartMs
	for _, c := range cut {
		if c.EndMs <= at || c.StartMs >= r.EndMs {
			continue
		}
		if c.StartMs > at {
			out = append(out, Range{at, c.StartMs})
		}
		at = max(at, c.EndMs)
	}
	if at < r.EndMs {
		out = append(out, Range{at, r.EndMs})
	}
	return out
}
