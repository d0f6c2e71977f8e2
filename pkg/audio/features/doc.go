// Package features describes a track for search: tempo and a beat grid,
// key, loudness (BS.1770-style integrated LUFS) and an energy curve,
// per-section energy, spectral descriptors (MFCC and chroma statistics,
// centroid, flatness, contrast, onset rate), and all of it as one vector
// for similarity. Features is plain data and serializes to JSON.
//
// Vectors are raw descriptors; a Scaler fitted on the catalog standardizes
// them (z-scores, then unit length) so cosine and euclidean distances
// weigh every descriptor alike.
package features
