// Package semantic is the offline text embedder of search (the default
// behind search.TextEmbedder): text becomes a vector over a fixed set of
// music concepts (moods, energy, tempo, vocals, genres, instruments, use
// cases — the anchors), so that "a rainy afternoon reading" and a track
// tagged calm, acoustic and slow point the same way without anyone having
// written that synonym.
//
// The meanings come from lexicon.bin, built offline by ./gen from a
// deliberate situation lexicon (gen/lexicon.txt: occasions, scenes,
// activities and feelings mapped onto the anchors, as music libraries tag
// use cases) spread over Princeton WordNet 3.0 (Debian wordnet-base:
// synonyms, similar adjectives, derived forms, hypernyms, glosses; its
// license is WORDNET-LICENSE). The file is embedded, so the search
// function needs no WordNet at run time, and read in place: a lookup is a
// binary search over its sorted words, so nothing is decoded at cold
// start.
//
// A request is read in context (EmbedQuery, context.go): a homonym of a
// music word means its music sense only in musical context, a feeling
// comes before a topic's associations, and idioms are read before their
// words; a track's text is embedded word by word (Embed).
package semantic
