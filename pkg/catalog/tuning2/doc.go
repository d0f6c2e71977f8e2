// Package tuning2 is search's second tuning catalog (issue 15): about 300
// generated tracks whose titles, descriptions and tags are written in
// everyday words — paraphrases of how the music sounds, feels and is
// played — and never name a facet value (genre, subgenre, mood, vocals:
// TestTextNeverNamesAFacet), with a taxonomy that only partly overlaps
// the demo catalog's, and situation/intent queries (bedtime, a romantic
// evening, an action scene, a feeling sung by a voice of a given gender,
// a ceremony, a choir...) graded 0–3 by rules over the generated ground
// truth, never from a ranker.
//
// It was written, and committed, before the ranking was tuned on it, so
// that the ranking is tuned against a catalog whose words are not the
// facets' (as real catalogs and the held-out set are), beside the demo
// tuning set. Everything is a function of the seed.
package tuning2
