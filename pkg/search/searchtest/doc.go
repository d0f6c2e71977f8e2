// Package searchtest builds catalogs for search tests and benchmarks: the
// demo catalog's metadata (genre, subgenre, mood, tempo, vocals — the
// parameters its audio is generated from), or any manifest lines' (the
// held-out catalog's), as ingestion would publish it without rendering
// audio, with optional synthetic feature vectors.
package searchtest
