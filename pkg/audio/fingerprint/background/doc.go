// Package background is the reference music a small catalog's fingerprint
// index competes with (fingerprint.WithBackground): a catalog of a few
// tracks has too few other tracks to show how well music it does not hold
// aligns by chance, and without them it names unknown music as its own
// (BenchmarkSmallCatalog in package fingerprint).
//
// The music is OpenClonk's, by K-Pone, under Creative Commons Attribution
// 3.0, from Debian's openclonk-data (background.idx holds only its
// landmark hashes and times, from which no audio can be rebuilt; sources,
// license and attribution in LICENSE). It is built offline by ./gen,
// embedded, and its SHA-256 is recorded in background.sha256
// (TestBackgroundChecksum). Regenerate it whenever the index's fingerprint
// options change.
//
// For applies it to a catalog whose audio outside its longest track is
// under Below seconds; a larger catalog has runners-up of its own, and
// merging would only add to its cold start.
package background
