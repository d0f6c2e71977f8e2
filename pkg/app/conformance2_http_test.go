package app

import (
	"testing"
)

// Deviations from interface.md found by the second conformance audit
// (each test failed on the code before its fix).

// TestPlaylistTrackListingSpeaksItsLocale: the {locale} of GET
// /api/v4/{locale}/tracks/?user_playlist= translates genre, subgenre and
// moods as track detail (§4.3) does, with Content-Language; the listing
// answered English whatever the locale.
func TestPlaylistTrackListingSpeaksItsLocale(t *testing.T) {
	e := newPlaylistEnv(t)
	tr := e.cat.Tracks()[0]
	e.create(e.owner, "Locales", tr.ID)
	for _, c := range []struct{ locale, lang, genre, mood string }{
		{"de", "de", tr.Genre + " (de)", "Fröhlich"},
		{"DE_at", "de", tr.Genre + " (de)", "Fröhlich"},
		{"fr", "en", tr.Genre, tr.Mood},
	} {
		r, m := e.do(e.owner, "GET", "/api/v4/"+c.locale+"/tracks/?user_playlist=locales", nil)
		res, _ := m["results"].([]any)
		if r.Status != 200 || len(res) != 1 {
			t.Fatalf("%s: %d %s", c.locale, r.Status, r.Body)
		}
		got := res[0].(map[string]any)
		if got["genre_name"] != c.genre || got["mood_name"] != c.mood || got["secondary_mood_name"] != tr.SecondaryMood ||
			r.Header.Get("Content-Language") != c.lang {
			t.Errorf("%s: genre %v, mood %v, secondary %v, Content-Language %q; want %q, %q, %q, %q",
				c.locale, got["genre_name"], got["mood_name"], got["secondary_mood_name"], r.Header.Get("Content-Language"),
				c.genre, c.mood, tr.SecondaryMood, c.lang)
		}
	}
}
