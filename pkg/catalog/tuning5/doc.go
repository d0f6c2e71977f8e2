// Package tuning5 is search's fifth tuning set (issue 15, generalization
// round 5): about 320 generated tracks described the way composers
// describe their own uploads on a stock-music marketplace — first-person
// notes on how they made it, what to picture, what it is great for, the
// gear — never naming a facet value (genre, subgenre, mood, vocals:
// TestUploadTextNeverNamesAFacet), over a taxonomy (Deep House, Drum and
// Bass, Grunge, K-Pop, Motown Soul, Film Noir, Requiem, Western, Celtic,
// Mariachi, A Cappella, Cartoon Chase…) and mood names (Euphoric,
// Melancholy, Menacing, Devotional, Laid-back…) that are neither the
// demo's nor tuning2's or tuning3's.
//
// Its queries are what end users type: film and video scenes,
// occasions and ceremonies, activities, feelings sung by a voice,
// ensembles, brand and ad briefs, platform content types (vlogs,
// podcasts, reels, streams), negations and a facet mixed with a
// situation — graded 0–3 by declarative wants (tuning3.Want) over the
// generated ground truth, plus exclusions a cue must not meet, never from
// a ranker. Written and committed before any tuning on it. Everything is
// a function of the seed.
package tuning5
