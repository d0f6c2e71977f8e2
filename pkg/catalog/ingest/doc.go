// Package ingest turns a catalog manifest into a published catalog: it
// validates the records (package manifest), decodes each asset's audio,
// measures and analyzes it (length, waveform peaks, fingerprints, and
// through an Analyzer tempo, key, features and highlights), transcodes it to
// the mp3 and wav renditions downloads need, and publishes a new immutable
// snapshot with a fingerprint index segment for the tracks not yet indexed.
// A track's stems are fingerprinted too and indexed under the track (see
// stems.go), so that music using one stem is recognised as the track.
//
// Everything derived from audio is stored under the audio's SHA-256, so an
// unchanged file is never decoded twice and re-ingesting a manifest changes
// nothing: the same contents give the same snapshot version, which is then
// already current. Admin ingest (a local manifest) and the catalog-ingest
// function (a manifest uploaded to the blob store) both run it.
package ingest
