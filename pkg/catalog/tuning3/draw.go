package tuning3

import (
	"math/rand/v2"
	"slices"

	"musiccatalog/pkg/catalog"
)

// Odds are what a family says about its tracks' facets: its moods (the
// first two most likely), its tempo range and the chances of a lead
// voice and of a choir.
type Odds struct {
	Moods        []string
	BPMLo, BPMHi int
	Sung, Choir  float64
}

// Facets are one generated track's facets.
type Facets struct {
	Mood, Second string // Second is empty for a one-mood track
	BPM          float64
	Vocals       string
	Choir        bool
}

// DrawFacets draws a track's facets from its family's odds. The draws
// come in a fixed order (mood, second mood, tempo, voice, choir), so a
// seed always makes the same catalog; the generators that share it
// (tuning3, tuning5) draw their text from r after it. A family names at
// least one mood and a tempo range with BPMLo ≤ BPMHi (the generators'
// own tables; DrawFacets panics otherwise).
func DrawFacets(r *rand.Rand, o Odds) Facets {
	if len(o.Moods) == 0 || o.BPMHi < o.BPMLo {
		panic("tuning3.DrawFacets: a family needs a mood and BPMLo <= BPMHi")
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	f := Facets{Mood: o.Moods[r.IntN(min(2, len(o.Moods)))]}
	if r.IntN(5) == 0 {
		f.Mood = pick(o.Moods)
	}
	if len(o.Moods) > 1 && r.IntN(3) > 0 && slices.ContainsFunc(o.Moods, func(m string) bool { return m != f.Mood }) {
		for f.Second == "" || f.Second == f.Mood {
			f.Second = pick(o.Moods)
		}
	}
	f.BPM = float64(o.BPMLo + r.IntN(o.BPMHi-o.BPMLo+1))
	f.Vocals = catalog.VocalsInstrumental
	if r.Float64() < o.Sung {
		switch x := r.IntN(10); {
		case x < 4:
			f.Vocals = catalog.VocalsFemale
		case x < 8:
			f.Vocals = catalog.VocalsMale
		default:
			f.Vocals = catalog.VocalsMixed
		}
	}
	f.Choir = r.Float64() < o.Choir
	if f.Choir && f.Vocals == catalog.VocalsInstrumental {
		f.Vocals = catalog.VocalsMixed
	}
	return f
}

// SortedFacetNames are the vocals values and the given genre, subgenre
// and mood names, once each and sorted: the words a generated text must
// never use.
func SortedFacetNames(names ...string) []string {
	all := append([]string{catalog.VocalsInstrumental, catalog.VocalsFemale,
		catalog.VocalsMale, catalog.VocalsMixed}, names...)
	slices.Sort(all)
	return slices.Compact(all)
}
