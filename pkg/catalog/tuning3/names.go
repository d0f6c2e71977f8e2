package tuning3

import (
	"slices"
	"strings"
	"unicode"

	"musiccatalog/pkg/catalog"
)

// Words splits s into lower-case words (letters and digits), dropping a
// plural or possessive ending, so "Sadness" stays itself but "Tangos",
// "Lounge's" read as "tango", "lounge" (the facet-name checks of this
// package and of tuning5 read text with it).
func Words(s string) []string {
	ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
	for i, w := range ws {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if len(w) > 4 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses") {
			w = strings.TrimSuffix(w, "es")
		} else if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		ws[i] = w
	}
	return ws
}

// NamesIn returns the names (each read with Words) that occur in s as a
// run of whole words.
func NamesIn(s string, names []string) []string {
	ws := Words(s)
	var found []string
	for _, name := range names {
		n := Words(name)
		for i := 0; i+len(n) <= len(ws); i++ {
			if slices.Equal(ws[i:i+len(n)], n) {
				found = append(found, strings.Join(n, " "))
				break
			}
		}
	}
	return found
}

// Met reports whether a cue t, whose truth is tr, meets w (every field
// set holds).
func (w Want) Met(t *catalog.Track, tr Truth) bool { return w.met(t, tr) }
