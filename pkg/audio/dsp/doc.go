// Package dsp holds the signal-processing building blocks the analysers
// share: windowed power spectra over gonum's FFT with reusable buffers,
// sample-rate conversion, biquad filters and the unrolled dot product of
// by-id and basicpitch. Everything that runs per frame
// writes into caller-owned buffers so hot loops do not allocate.
package dsp
