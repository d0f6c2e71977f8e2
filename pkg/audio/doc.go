// Package audio is the engine under the catalog, search and recognition
// domains. This package holds only the PCM type every stage exchanges; the
// work lives in subpackages:
//
//   - decode: any container to mono PCM through ffmpeg, WAV in pure Go, typed errors
//   - dsp: framing, FFT spectra, resampling and filters shared by the analysers
//   - features: tempo and beats, key, loudness, energy, the similarity vector
//   - highlights: hook/chorus regions from repetition and energy
//   - musicdetect: music versus silence, speech and noise as time ranges
//   - basicpitch: Spotify's Basic Pitch network in Go, pooled into the tracks'
//     audio embedding for by-id
//   - fingerprint: landmark hashes, a compact segmentable index, the matcher and
//     the whole-video timeline
//   - audiotest: synthetic signals with known ground truth for tests
package audio
