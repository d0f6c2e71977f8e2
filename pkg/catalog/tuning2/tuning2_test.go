package tuning2

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
)

// facetPattern matches a facet value in text: the whole name as a phrase
// (hyphens, ampersands and spaces alike), and a one-word name also with
// the suffixes that keep it the same word ("sad", "sadness", "sadly").
func facetPattern(names []string) *regexp.Regexp {
	var alts []string
	for _, n := range names {
		ws := strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == ' ' || r == '-' || r == '&' })
		for k, w := range ws {
			ws[k] = regexp.QuoteMeta(strings.TrimSuffix(w, "'s"))
		}
		p := strings.Join(ws, `[\s&-]+`)
		if len(ws) == 1 {
			p += `(?:s|es|ly|ness|'s)?`
		}
		alts = append(alts, p)
	}
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(alts, "|") + `)\b`)
}

// TestTextNeverNamesAFacet: the rule of the set (and of the held-out
// catalog, issue 15) — titles, descriptions and tags say what the music
// is in other words than its facet values.
func TestTextNeverNamesAFacet(t *testing.T) {
	re := facetPattern(FacetNames())
	c := Generate(Size, 1)
	for _, tr := range c.Tracks {
		for _, s := range append([]string{tr.Name, tr.Description}, tr.Tags...) {
			if m := re.FindString(s); m != "" {
				t.Errorf("%s: %q names the facet %q", tr.Name, s, m)
			}
		}
	}
	// The pattern itself works: it finds a facet named in passing.
	for _, s := range []string{"a sad tune", "deep House groove", "lo-fi hip hop beat", "some sadness", "female voice"} {
		if re.FindString(s) == "" {
			t.Errorf("facet pattern misses %q", s)
		}
	}
}

// TestGenerateIsDeterministic: the catalog is a function of the seed.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(Size, 7), Generate(Size, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two catalogs of one seed differ")
	}
	if len(a.Truth) != Size {
		t.Fatalf("%d distinct names for %d tracks", len(a.Truth), Size)
	}
}

// TestQueriesAreAnswerable: at least 100 queries, each with enough
// tracks at grade 2 or more to fill a good part of the first page, and
// not so many that any page would do.
func TestQueriesAreAnswerable(t *testing.T) {
	if len(Queries) < 100 {
		t.Fatalf("%d queries; the set needs at least 100", len(Queries))
	}
	c := Generate(Size, 1)
	catalogtest.CheckAnswerable(t, c.Tracks, Queries, func(q Query) string { return q.Text },
		func(q Query, tr *catalog.Track) int { return q.Grade(tr, c.TruthOf(tr)) })
}
