// Package search ranks catalog tracks for the search endpoints
// (interface.md §4.2): natural-language text and prompts (by-text,
// by-prompt), similarity to a catalog track (by-id) and to reference audio
// (by-url, by-video through ByAudio).
//
// A Service serves the catalog snapshot of a catalog.Source and keeps one
// Index per snapshot version, built when a new version shows up, so a
// newly published catalog is searched without a restart. An Index holds a
// bleve text index over the tracks' metadata (BM25 with an English
// analyzer), the standardized feature vectors packed for a fast cosine
// scan, and the per-track attributes the query words map onto (tempo,
// vocals, duration).
//
// Text queries are first understood (Understand): music vocabulary that is
// not a plain keyword is lifted out of the text — tempo words and "120
// bpm" become BPM ranges, vocals and duration words become attribute
// preferences, "no vocals" / "without drums" become exclusions — and the
// remaining words are expanded with mood and genre synonyms before they go
// to the text engine, one bleve query per concept whose BM25 figures are
// cached for the snapshot (requests repeat their words far more than their
// sentences). Filters (Filters) narrow the ranked list afterwards,
// as the contract says; visibility by plan is applied before anything else
// so hidden tracks cannot leak through any path.
//
// Beside BM25, by-text ranks by meaning (semantic.go): a TextEmbedder
// (offline by default: package semantic, a situation lexicon spread over
// WordNet) turns the request's words (read in context when the embedder
// can: a homonym of a music word, a feeling beside a topic, an idiom) and
// every track's own text into vectors over music concepts; the track
// vectors are computed when the
// text index is built and ship with it in the snapshot. A track's
// semantic score mixes its vector's cosine with the request's content
// (its voice words go to the vocals facet; each concept group — mood,
// energy, style, instrument, voice, use — weighed by a learned weight)
// and how close the request is to its facet values (zero-shot facets),
// and the ranking is a linear mix, fitted on the judged and tuning sets
// (semantic_groups.go), of the BM25 score (normalized to the best match,
// or to 0.55 of what a track matching every word as well as its best
// match would score when that is higher), that score and the lifted
// preferences,
// less the closeness to what the request excludes. The tracks closest in
// meaning are candidates whatever words they hold. A genre's or
// subgenre's vector also holds the centroid of its tracks' own words, so
// a catalog that never names its facets still teaches what they mean.
//
// The package never imports an adapter: the catalog comes through
// catalog.Source and the caller's playlists through the PlaylistFinder port.
package search
