package tuning3

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
)

// TestCueTextNeverNamesAFacet: the set's rule — a cue's title, cue
// sheet, tags and stem names say what it is in other words than its
// facet values.
func TestCueTextNeverNamesAFacet(t *testing.T) {
	names := FacetNames()
	// The check itself finds a facet named in passing.
	catalogtest.CheckTextNamesNoFacet(t, Generate(Size, 1).Tracks, func(s string) []string { return NamesIn(s, names) },
		[]string{"a Tango for two", "some post-rock guitars", "very sultry", "female lead", "Gospel choirs"})
}

// TestGenerateIsDeterministic: the catalog is a function of the seed.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(Size, 5), Generate(Size, 5)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two catalogs of one seed differ")
	}
	if len(a.Truth) != Size {
		t.Fatalf("%d distinct names for %d tracks", len(a.Truth), Size)
	}
	if len(families) < 30 {
		t.Fatalf("%d subgenres; the set needs at least 30", len(families))
	}
}

// TestQueriesAreAnswerable: at least 120 distinct queries, each with
// enough cues at grade 2 or more to fill a good part of the first page,
// and not so many that any page would do; the context set (at least 40)
// by the same rule, none of its queries one of the first set's.
func TestQueriesAreAnswerable(t *testing.T) {
	if len(Queries) < 120 {
		t.Fatalf("%d queries; the set needs at least 120", len(Queries))
	}
	if len(ContextQueries) < 40 {
		t.Fatalf("%d context queries; the set needs at least 40", len(ContextQueries))
	}
	c := Generate(Size, 1)
	catalogtest.CheckAnswerable(t, c.Tracks, append(slices.Clone(Queries), ContextQueries...), func(q Query) string { return q.Text },
		func(q Query, tr *catalog.Track) int { return q.Grade(tr, c.TruthOf(tr)) })
}

// TestWantNeedsEveryField: a want with two fields holds only when both do.
func TestWantNeedsEveryField(t *testing.T) {
	bpm := 60.0
	tr := &catalog.Track{Mood: "Serene", Subgenre: "Sleep", Tempo: &bpm, Vocals: catalog.VocalsInstrumental}
	if !(Want{Moods: []string{"Serene"}, Band: catalog.TempoSlow}).met(tr, Truth{}) {
		t.Error("serene and slow: not met")
	}
	if (Want{Moods: []string{"Serene"}, Choir: true}).met(tr, Truth{}) {
		t.Error("serene without a choir met a choir want")
	}
	if got := q("x", m("Serene"), slow, aChoir).Grade(tr, Truth{}); got != 3 {
		t.Errorf("grade %d, want 3 (2 + 1, capped)", got)
	}
}

// TestDrawFacetsOneDistinctMood: a family whose moods are all one draws
// no second mood (and does not loop looking for another).
func TestDrawFacetsOneDistinctMood(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		f := DrawFacets(r, Odds{Moods: []string{"Calm", "Calm"}, BPMLo: 60, BPMHi: 60})
		if f.Mood != "Calm" || f.Second != "" || f.BPM != 60 {
			t.Fatalf("%+v", f)
		}
	}
}
