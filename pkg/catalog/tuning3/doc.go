// Package tuning3 is search's third tuning catalog (issue 15), written
// apart from tuning2 and in another voice: about 320 generated tracks
// described the way a production-music library's editor writes a cue
// sheet — the palette ("Palette: nylon guitar, brushed snare"), the feel
// and the imagery it evokes, sometimes where it sits in an edit, and the
// stems it ships with — never naming a facet value (genre, subgenre,
// mood, vocals: TestCueTextNeverNamesAFacet). Its taxonomy is mostly its
// own (Future Bass, Post-Rock, Bebop, Hybrid Trailer, Sea Shanty,
// Afrobeat, Chant…) and so are its mood names (Serene, Somber, Heroic,
// Whimsical, Sultry, Reverent…), so the zero-shot facet side meets names
// nobody described for it.
//
// Its 120+ queries are the situations end users type — life events and
// ceremonies, times of day and seasons, places and travel, sports and
// activities, film, advertising and video scenes, feelings described
// indirectly, voices, ensembles and instruments in lay words, audiences
// — graded 0–3 by declarative wants over the generated ground truth,
// never from a ranker. Written and committed before any tuning on it.
// Everything is a function of the seed.
package tuning3
