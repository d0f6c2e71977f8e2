// Package musicdetect finds the stretches of a recording that hold music,
// as opposed to silence, speech or noise. Recognition uses it to report
// music the catalog could not identify, and to skip what is not music.
//
// It classifies one-second blocks from three cues – loudness, spectral
// flatness (noise is flat, music and speech are peaky) and how long the
// spectral peaks persist (notes are held for hundreds of milliseconds;
// speech harmonics glide and stop every syllable) – then smooths the
// decisions and merges them into ranges. A steady test tone is not music.
//
// Known limit: the persistence cue weighs peaks by energy, so music under
// louder speech – background music under narration – is mostly called not
// music (BenchmarkSpeechOverMusic measures it).
package musicdetect
