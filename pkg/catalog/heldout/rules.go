package heldout

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
)

// The judging rule of the held-out set: a track's grade for a query is
// min(MaxGrade, the sum of the weights of the query's aspects whose
// condition the track's latent attributes satisfy). A condition holds when
// every key set in it holds: a list key when the track has any of the
// listed values, a not_ key when it has none of them, a bound when the
// value lies within it (inclusive). Queries and their aspects are data
// (queries.json); this file only evaluates them.

// MaxGrade is the highest grade (graded relevance 0–3).
const MaxGrade = 3

//go:embed queries.json
var queriesJSON []byte

// Query is one judged request, as an end user types it.
type Query struct {
	Text    string   `json:"text"`
	Aspects []Aspect `json:"aspects"`
}

// Aspect is one weighted condition of a query.
type Aspect struct {
	Weight int       `json:"w"`
	If     Condition `json:"if"`
}

// Condition is a predicate over a track's latent attributes.
type Condition struct {
	Scene      []string `json:"scene,omitempty"`
	Genre      []string `json:"genre,omitempty"`
	Subgenre   []string `json:"subgenre,omitempty"`
	Mood       []string `json:"mood,omitempty"`
	Voice      []string `json:"voice,omitempty"`
	Instrument []string `json:"instrument,omitempty"`
	NotMood    []string `json:"not_mood,omitempty"`
	NotVoice   []string `json:"not_voice,omitempty"`
	EnergyMin  *float64 `json:"energy_min,omitempty"`
	EnergyMax  *float64 `json:"energy_max,omitempty"`
	BPMMin     *float64 `json:"bpm_min,omitempty"`
	BPMMax     *float64 `json:"bpm_max,omitempty"`
}

// Queries returns the held-out judged set, checked: every value a rule
// names exists in the taxonomy, so a typo cannot silently judge nothing.
func Queries() ([]Query, error) {
	var doc struct {
		About   string  `json:"about"`
		Queries []Query `json:"queries"`
	}
	dec := json.NewDecoder(bytes.NewReader(queriesJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("heldout: queries.json: %w", err)
	}
	known := vocabulary()
	for _, q := range doc.Queries {
		if q.Text == "" || len(q.Aspects) == 0 {
			return nil, fmt.Errorf("heldout: query %q has no text or no aspects", q.Text)
		}
		for _, a := range q.Aspects {
			if a.Weight < 1 || a.Weight > MaxGrade {
				return nil, fmt.Errorf("heldout: %q: weight %d", q.Text, a.Weight)
			}
			if err := a.If.check(known); err != nil {
				return nil, fmt.Errorf("heldout: %q: %w", q.Text, err)
			}
		}
	}
	return doc.Queries, nil
}

// Grade is the track's relevance to the query, 0..MaxGrade.
func (q Query) Grade(l *Latent) int {
	g := 0
	for _, a := range q.Aspects {
		if a.If.Holds(l) {
			g += a.Weight
		}
	}
	return min(g, MaxGrade)
}

// Holds reports whether the track's latent attributes satisfy c.
func (c Condition) Holds(l *Latent) bool {
	anyOf := func(want []string, have ...string) bool {
		if len(want) == 0 {
			return true
		}
		for _, h := range have {
			if slices.Contains(want, h) {
				return true
			}
		}
		return false
	}
	noneOf := func(bad []string, have ...string) bool {
		for _, h := range have {
			if slices.Contains(bad, h) {
				return false
			}
		}
		return true
	}
	within := func(v float64, lo, hi *float64) bool { return (lo == nil || v >= *lo) && (hi == nil || v <= *hi) }
	return anyOf(c.Scene, l.Scenes...) && anyOf(c.Genre, l.Genre) && anyOf(c.Subgenre, l.Subgenre) &&
		anyOf(c.Mood, l.Moods...) && anyOf(c.Voice, l.Voice) && anyOf(c.Instrument, l.Instruments...) &&
		noneOf(c.NotMood, l.Moods...) && noneOf(c.NotVoice, l.Voice) &&
		within(l.Energy, c.EnergyMin, c.EnergyMax) && within(l.BPM, c.BPMMin, c.BPMMax)
}

type vocab struct{ scenes, genres, subgenres, moods, voices, instruments []string }

func vocabulary() vocab {
	v := vocab{scenes: sceneIDs(), voices: []string{VoiceNone, VoiceMale, VoiceFemale, VoiceDuet, VoiceChoir}}
	for m := range moodEnergy {
		v.moods = append(v.moods, m)
	}
	for _, sg := range subgenres {
		v.genres = append(v.genres, sg.genre)
		v.subgenres = append(v.subgenres, sg.name)
		v.instruments = append(v.instruments, sg.instruments...)
	}
	v.instruments = append(v.instruments, "choir")
	return v
}

func (c Condition) check(v vocab) error {
	for _, f := range []struct {
		key         string
		vals, known []string
	}{
		{"scene", c.Scene, v.scenes}, {"genre", c.Genre, v.genres}, {"subgenre", c.Subgenre, v.subgenres},
		{"mood", c.Mood, v.moods}, {"voice", c.Voice, v.voices}, {"instrument", c.Instrument, v.instruments},
		{"not_mood", c.NotMood, v.moods}, {"not_voice", c.NotVoice, v.voices},
	} {
		for _, x := range f.vals {
			if !slices.Contains(f.known, x) {
				return fmt.Errorf("%s %q is not in the taxonomy", f.key, x)
			}
		}
	}
	if c.isEmpty() {
		return fmt.Errorf("empty condition")
	}
	return nil
}

func (c Condition) isEmpty() bool {
	return len(c.Scene)+len(c.Genre)+len(c.Subgenre)+len(c.Mood)+len(c.Voice)+len(c.Instrument)+len(c.NotMood)+len(c.NotVoice) == 0 &&
		c.EnergyMin == nil && c.EnergyMax == nil && c.BPMMin == nil && c.BPMMax == nil
}
