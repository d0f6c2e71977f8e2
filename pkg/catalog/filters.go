package catalog

import (
	"math"
	"slices"
	"strings"
)

// Tempo descriptor thresholds in BPM for the `tempo` filter (interface.md
// §4.2): slow < TempoMediumFrom ≤ medium < TempoFastFrom ≤ fast.
const (
	TempoMediumFrom = 90.0
	TempoFastFrom   = 120.0
)

// Tempo descriptors, slowest first.
const (
	TempoSlow   = "slow"
	TempoMedium = "medium"
	TempoFast   = "fast"
)

// TempoDescriptors lists the descriptors slowest first.
var TempoDescriptors = []string{TempoSlow, TempoMedium, TempoFast}

// TempoDescriptor names the tempo class of bpm; "" when bpm is not positive.
func TempoDescriptor(bpm float64) string {
	switch {
	case !(bpm > 0):
		return ""
	case bpm < TempoMediumFrom:
		return TempoSlow
	case bpm < TempoFastFrom:
		return TempoMedium
	}
	return TempoFast
}

// ValueCount is one value of a discrete filter and how many assets carry it.
type ValueCount struct {
	Value string
	Count int
}

// TrackFilters lists the music filter values (§2.9). Moods counts a track
// under its mood and its secondary mood (once when they are equal), since
// the mood filter matches either. Tempo lists the descriptors present,
// slowest first; Vocals the vocals values present except "unknown", in
// VocalsValues order. BPM and Duration are [min, max] over the catalog
// (BPM rounded outwards to whole beats), [0, 0] when nothing has a value.
type TrackFilters struct {
	Genres, Subgenres, Moods []ValueCount
	Tempo, Vocals            []string
	BPM, Duration            [2]float64
}

// SoundFXFilters lists the sound-effect filter values (§4.2).
type SoundFXFilters struct {
	Genres, SecondaryGenres []ValueCount
	Duration                [2]float64
}

func trackFilters(tracks []*Track) TrackFilters {
	genres, subgenres, moods := counter{}, counter{}, counter{}
	tempos, vocals := map[string]bool{}, map[string]bool{}
	var bpm, dur span
	for _, t := range tracks {
		genres.add(t.Genre)
		subgenres.add(t.Subgenre)
		moods.add(t.Mood)
		if t.SecondaryMood != t.Mood {
			moods.add(t.SecondaryMood)
		}
		if t.Tempo != nil && *t.Tempo > 0 {
			tempos[TempoDescriptor(*t.Tempo)] = true
			bpm.add(*t.Tempo)
		}
		vocals[t.Vocals] = true
		dur.add(float64(t.Length))
	}
	f := TrackFilters{
		Genres: genres.list(), Subgenres: subgenres.list(), Moods: moods.list(),
		BPM: bpm.rangeOut(), Duration: dur.rangeOut(),
	}
	for _, d := range TempoDescriptors {
		if tempos[d] {
			f.Tempo = append(f.Tempo, d)
		}
	}
	for _, v := range VocalsValues {
		if vocals[v] && v != VocalsUnknown {
			f.Vocals = append(f.Vocals, v)
		}
	}
	return f
}

func soundFXFilters(sfx []*SoundFX) SoundFXFilters {
	genres, secondary := counter{}, counter{}
	var dur span
	for _, s := range sfx {
		genres.add(s.Genre)
		secondary.add(s.SecondaryGenre)
		dur.add(float64(s.Length))
	}
	return SoundFXFilters{Genres: genres.list(), SecondaryGenres: secondary.list(), Duration: dur.rangeOut()}
}

type counter map[string]int

func (c counter) add(v string) {
	if v != "" {
		c[v]++
	}
}

// list orders values alphabetically (case-insensitively), the order a
// filter menu shows them in.
func (c counter) list() []ValueCount {
	out := make([]ValueCount, 0, len(c))
	for v, n := range c {
		out = append(out, ValueCount{v, n})
	}
	slices.SortFunc(out, func(a, b ValueCount) int {
		if d := strings.Compare(strings.ToLower(a.Value), strings.ToLower(b.Value)); d != 0 {
			return d
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

type span struct {
	lo, hi float64
	any    bool
}

func (s *span) add(v float64) {
	if !s.any {
		s.lo, s.hi, s.any = v, v, true
		return
	}
	s.lo, s.hi = min(s.lo, v), max(s.hi, v)
}

func (s span) rangeOut() [2]float64 {
	if !s.any {
		return [2]float64{}
	}
	return [2]float64{math.Floor(s.lo), math.Ceil(s.hi)}
}
