// Package heldout generates the held-out evaluation catalog of issue 15: a
// second, seeded catalog whose tracks are written from latent ground-truth
// attributes (genre and subgenre, moods, energy, tempo, vocals including
// the singer's gender or a choir, instruments, and the situations a track
// fits), and a judged set of situation and intent queries graded from
// those attributes alone (queries.json, judging rules in rules.go).
//
// The catalog is deliberately not the demo's: its own subgenres, titles and
// artists, and descriptions that say what a track feels like and where it
// belongs in other words than the facet names ("unhurried, like a slow
// exhale" for a calm track). Tracks go through the manifest types the demo
// uses, so they load through the ordinary ingest and search path, and
// Generate renders their audio with the demo's synthesizer in a style that
// depends on the genre, so similarity from audio can be measured on it.
//
// The set exists to measure search on words it was not written for: code
// that tunes ranking must never read this package's data (queries.json,
// the phrase lists) — only the evaluation harness in pkg/search does.
package heldout
