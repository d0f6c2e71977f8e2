// Package waveform computes the peaks a player draws as a track's waveform:
// for each run of samples ("pixel") the lowest and highest sample, in the
// JSON layout of BBC audiowaveform's version 1 format (8-bit values), which
// waveform players such as peaks.js read directly. Ingestion stores one
// Peaks per asset; the waveforms endpoint serves it as is.
package waveform
