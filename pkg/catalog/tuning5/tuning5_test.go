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
	c := Generate(Size, 1)
	for _, tr := range c.Tracks {
		texts := append([]string{tr.Name, tr.Description}, tr.Tags...)
		for _, st := range tr.Stems {
			texts = append(texts, st.Name)
		}
		for _, s := range texts {
			if f := tuning3.NamesIn(s, names); len(f) > 0 {
				t.Errorf("%s: %q names %q", tr.Name, s, f)
			}
		}
	}
	for _, s := range []string{"some deep house", "a requiem", "very laid-back", "female lead", "two k-pop idols"} {
		if len(tuning3.NamesIn(s, names)) == 0 {
			t.Errorf("check misses the facet in %q", s)
		}
	}
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
	texts := make([]string, len(Queries))
	for i, q := range Queries {
		texts[i] = q.Text
	}
	catalogtest.CheckAnswerable(t, c.Tracks, texts, func(i int, tr *catalog.Track) int {
		return Queries[i].Grade(tr, c.TruthOf(tr))
	})
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
