// Package audiotest synthesizes signals with known ground truth for tests
// and benchmarks: tones, chords in a key, click tracks at a tempo, white and
// pink noise, speech-like babble, verse/chorus songs, and mixing at a given
// SNR. Everything is deterministic for a given seed.
package audiotest
