package tuning5

import (
	"reflect"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/tuning3"
)

// TestUploadTextNeverNamesAFacet: the set's rule — a track's title,
// upload notes, tags and stem names say what it is in other words than its
// facet values.
func TestUploadTextNeverNamesAFacet(t *testing.T) {
	names := FacetNames()
	catalogtest.CheckTextNamesNoFacet(t, Generate(Size, 1).Tracks, func(s string) []string { return tuning3.NamesIn(s, names) },
		[]string{"some deep house", "a requiem", "very laid-back", "female lead", "two k-pop idols"})
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
}

// TestQueriesAreAnswerable: at least 60 distinct queries, each with enough
// tracks at grade 2 or more to fill a good part of the first page, and not
// so many that any page would do.
func TestQueriesAreAnswerable(t *testing.T) {
	if len(Queries) < 60 {
		t.Fatalf("%d queries; the set needs at least 60", len(Queries))
	}
	c := Generate(Size, 1)
	catalogtest.CheckAnswerable(t, c.Tracks, Queries, func(q Query) string { return q.Text },
		func(q Query, tr *catalog.Track) int { return q.Grade(tr, c.TruthOf(tr)) })
}

// TestNotExcludes: a track meeting an exclusion grades 0 whatever it
// meets otherwise.
func TestNotExcludes(t *testing.T) {
	bpm := 60.0
	tr := &catalog.Track{Mood: "Melancholy", Tempo: &bpm, Vocals: catalog.VocalsFemale}
	base := q("x", m("Melancholy"), sung)
	if got := base.Grade(tr, tuning3.Truth{}); got != 3 {
		t.Fatalf("grade %d, want 3", got)
	}
	if got := not(base, slow).Grade(tr, tuning3.Truth{}); got != 0 {
		t.Errorf("slow track excluded by 'not slow': grade %d, want 0", got)
	}
	if got := not(base, fast).Grade(tr, tuning3.Truth{}); got != 3 {
		t.Errorf("slow track under 'not fast': grade %d, want 3", got)
	}
}
