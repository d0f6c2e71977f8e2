// Package musicdetect finds the stretches of a recording that hold music,
// as opposed to silence, speech, babble or noise. Recognition uses it to
// report music the catalog could not identify, and to skip what is not
// music.
//
// Music holds notes. It classifies one-second blocks by how many held
// partials their frames show – spectral peaks (0.37-s frames, 2.7-Hz bins
// at 11025 Hz) that stay within a bin for eight frames – besides loudness
// and spectral change (a steady test tone is not music). Speech harmonics
// glide with the voice's pitch and babble is many such voices, so neither
// holds partials however dense it is, while music under a louder voice
// still shows held partials between the voice's harmonics. Clear partials
// count everywhere; faint ones only where the block is not noise-flat, as
// noise makes faint peaks that linger by chance. The evidence is the median
// over three blocks, then smoothed by a majority over three and merged into
// ranges, whose edges between music and no music are then placed to the
// 46-ms frame where the held partials stop (refine.go).
//
// Known limits: music with no held pitch – a drum-only passage – is not
// found; a steady hum under speech would count as held partials.
// BenchmarkSpeechOverMusic measures music alone, in noise, under narration
// at 0 to −14 dB, speech alone and 6-talker babble, on both halves of the
// issue-16 split; BenchmarkDetect the cost per minute of audio.
package musicdetect
