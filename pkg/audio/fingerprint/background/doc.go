// Package background is the reference music a small catalog's fingerprint
// index competes with (fingerprint.WithBackground): a catalog of a few
// tracks has too few other tracks to show how well music it does not hold
// aligns by chance, and without them it names unknown music as its own
// (BenchmarkSmallCatalog in package fingerprint).
//
// The music is GPL-2+ game music from Debian (background.idx holds only its
// landmark hashes and times, from which no audio can be rebuilt; sources
// and license in LICENSE). It is built offline by ./gen, embedded, and its
// SHA-256 is recorded in background.sha256 (TestBackgroundChecksum).
// Regenerate it whenever the index's fingerprint options change.
//
// For applies it to an index of less than Below seconds of catalog audio;
// a larger catalog has runners-up of its own, and merging would cost its
// cold start.
package background
