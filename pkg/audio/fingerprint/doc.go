// Package fingerprint identifies music by landmarks: pairs of spectral peaks
// whose (frequency, frequency difference, time difference) form a hash that
// survives noise, speech over the music, lossy re-encoding and volume
// changes.
//
// Fingerprinter turns PCM into hashes. Builder and Index store the hashes of
// a catalog compactly (one uint32 per posting, delta-varint on disk) in
// segments that Merge combines. Index.Match votes on the time offset between
// query and track to find the tracks a clip comes from; Index.Timeline does
// the same along a whole video, splitting it into stretches of songs,
// unmatched music and silence.
//
// Index and query use different peak densities on purpose: the index keeps
// few, strong peaks to stay small, the query keeps more so that the index's
// peaks are still among them after noise has buried some. The query also
// lowers the harmonics of a gliding voice before its peaks are picked
// (voice.go), so that narration over the music does not take them.
//
// Music played faster or slower, or pitch-shifted, matches no key as it is:
// Index.MatchWarped, and Timeline over what the identity pass leaves
// unexplained, warp the query's hashes back over a grid of speeds and
// shifts (warp.go) and report the Warp found.
//
// Under a voice, the landmarks at a song's edges are too sparse to place
// them. GuideEdges (guided.go) widens a catalog stretch's edges by the
// track's own audio: frame by frame, the query against the track at the
// stretch's alignment, measured against the track displaced (chance); a
// gap left between two catalog stretches is then split by both tracks'
// presence in it, each against the other.
package fingerprint
