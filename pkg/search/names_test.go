package search

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
)

// TestNamesTypedLead: a request that is a track's title, its artist, or
// both, leads with those tracks, however the words read as a description
// (the audit found "silent sunrise" at rank 85 of its own title).
func TestNamesTypedLead(t *testing.T) {
	ix := demoIndex(t, 240)
	top := func(text string, n int) []string {
		t.Helper()
		res, err := ix.ByText(t.Context(), text, Options{Plan: "enterprise", Limit: n})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.Track.ID)
		}
		return ids
	}
	checked := 0
	for _, tr := range ix.tracks {
		if tr.Variant != "" || strings.ContainsAny(tr.Name, "()") || checked >= 25 {
			continue
		}
		checked++
		title := strings.ToLower(tr.DisplayName())
		if got := top(title, 1); len(got) == 0 || ix.tracks[ix.byID[strings.ToLower(got[0])]].DisplayName() != tr.DisplayName() {
			t.Errorf("%q: first %v, want a track titled %q", title, got, tr.DisplayName())
		}
		byArtist := top(tr.DisplayName()+" by "+tr.Artist.Name, 1)
		if len(byArtist) == 0 || byArtist[0] != tr.ID {
			t.Errorf("%q by %q: first %v, want %s", tr.DisplayName(), tr.Artist.Name, byArtist, tr.ID)
		}
		// The artist's tracks come first, all of them.
		var own int
		for _, x := range ix.tracks {
			if x.Artist.Name == tr.Artist.Name {
				own++
			}
		}
		for k, id := range top(strings.ToUpper(tr.Artist.Name), own) {
			if x := ix.tracks[ix.byID[strings.ToLower(id)]]; x.Artist.Name != tr.Artist.Name {
				t.Errorf("%q: result %d is %q by %q", tr.Artist.Name, k, x.DisplayName(), x.Artist.Name)
				break
			}
		}
	}
	if checked == 0 {
		t.Fatal("no track checked")
	}
	// Only the whole request is a name: a title's words inside a longer
	// description do not lift it.
	nq := newNameQuery("silent sunrise over the lake")
	if b := nq.bonus(nameKeys{title: nameKey([]string{"silent", "sunrise"})}); b != 0 {
		t.Fatalf("a title inside a description scored %v", b)
	}
}

// TestTitleFilterTakesEveryVersion: title= is the song's title as shown,
// as shown without its variant (every version of the song), or as the
// source feed wrote it (with -JP), the same for tracks of either feed.
func TestTitleFilterTakesEveryVersion(t *testing.T) {
	song := &catalog.Track{ID: "a", Name: "Winter Heartbeat-JP"}
	edit := &catalog.Track{ID: "b", Name: "Winter Heartbeat-JP", Variant: "Short Edit"}
	other := &catalog.Track{ID: "c", Name: "Northern Shadows", Variant: "Short Edit"}
	for _, c := range []struct {
		title string
		want  []*catalog.Track
	}{
		{"winter heartbeat", []*catalog.Track{song, edit}},
		{"Winter Heartbeat (Short Edit)", []*catalog.Track{edit}},
		{"Winter Heartbeat-JP", []*catalog.Track{song, edit}},
		{"northern shadows", []*catalog.Track{other}},
		{"Short Edit", nil},
	} {
		f, err := ParseFilters(url.Values{"title": {c.title}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range []*catalog.Track{song, edit, other} {
			x := facetsOf(tr)
			if got, want := f.match(&x), slices.Contains(c.want, tr); got != want {
				t.Errorf("title=%q on %q (%q): %v, want %v", c.title, tr.Name, tr.Variant, got, want)
			}
		}
	}
}
