// Package demo writes a demo catalog so that a new installation has music
// to search: a few hundred short synthesized tracks across genres, moods,
// tempos, keys and sung (formant-synthesized) vocals, with stems for some,
// sound effects, German and Japanese translations, rights splits (some
// incomplete), -JP source-feed titles, variants, and explicit, restricted
// and enterprise-only tracks.
//
// The metadata is the score the audio is rendered from, so the two agree:
// a track listed at 170 BPM has drums at 170 BPM, one in F# minor is built
// on F# minor chords ending on the tonic, a "female vocals" track has a
// sung line in a female range, and its stems are the very layers that sum
// to the mix. Everything is a function of the track count and the seed.
package demo
