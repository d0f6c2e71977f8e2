package waveform

import (
	"math"

	"musiccatalog/pkg/audio"
)

// Version is the layout version of Peaks (audiowaveform's version 1).
const Version = 1

// DefaultSamplesPerPixel at audio.DefaultSampleRate gives about 21 pixels
// per second: enough to see bars and sections at any player width, small
// enough (≈45 KB of JSON for five minutes) to fetch before playing.
const DefaultSamplesPerPixel = 512

// Peaks is the waveform of one asset.
type Peaks struct {
	// Data holds a (min, max) pair per pixel, each in [-128, 127] where
	// ±128 is full scale.
	Data            []int8 `json:"data"`
	Length          int    `json:"length"` // pixels: len(Data)/2
	SampleRate      int    `json:"sample_rate"`
	SamplesPerPixel int    `json:"samples_per_pixel"`
	Version         int    `json:"version"`
}

// Compute returns the peaks of p with samplesPerPixel samples per pixel
// (DefaultSamplesPerPixel when not positive); a last, shorter run still
// gets its pixel.
func Compute(p audio.PCM, samplesPerPixel int) Peaks {
	if samplesPerPixel <= 0 {
		samplesPerPixel = DefaultSamplesPerPixel
	}
	n := (len(p.Samples) + samplesPerPixel - 1) / samplesPerPixel
	out := Peaks{Data: make([]int8, 0, 2*n), Length: n, SampleRate: p.Rate, SamplesPerPixel: samplesPerPixel, Version: Version}
	for i := 0; i < len(p.Samples); i += samplesPerPixel {
		lo, hi := float32(0), float32(0)
		for _, v := range p.Samples[i:min(i+samplesPerPixel, len(p.Samples))] {
			lo, hi = min(lo, v), max(hi, v)
		}
		out.Data = append(out.Data, quantize(lo), quantize(hi))
	}
	return out
}

// quantize maps [-1, 1] to [-128, 127], rounding away from zero so that a
// quiet but audible run never draws as silence.
func quantize(v float32) int8 {
	q := float64(v) * 128
	if q < 0 {
		q = math.Floor(q)
	} else {
		q = math.Ceil(q)
	}
	return int8(max(-128, min(127, q)))
}
