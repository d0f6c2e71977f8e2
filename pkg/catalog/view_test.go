package catalog

import (
	"regexp"
	"testing"
)

// TestDisplayNameStripsTheJPSuffix holds DisplayName to the regular
// expression it replaced (`\s*-JP$` removed).
func TestDisplayNameStripsTheJPSuffix(t *testing.T) {
	re := regexp.MustCompile(`\s*-JP$`)
	for _, name := range []string{"Song -JP", "Song  \t\n-JP", "Song-JP", "Song -JP ", "-JP", " -JP", "Song -jp",
		"Song -JP-JP", "Song\u00a0-JP", "Song\v-JP", "Sóng -JP", "", "Song"} {
		tr := &Track{Name: name}
		if got, want := tr.DisplayName(), re.ReplaceAllString(name, ""); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", name, got, want)
		}
		if got, want := tr.JPTitle(), name; re.MatchString(name) && got != want {
			t.Errorf("JPTitle(%q) = %q", name, got)
		}
	}
	v := &Track{Name: "Song -JP", Variant: "Instrumental"}
	if got := v.DisplayName(); got != "Song (Instrumental)" {
		t.Errorf("with a variant: %q", got)
	}
}
