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

// TestLocalesWithScriptAndRegion: a language with a script, a region or
// both (BCP 47's order) is a locale; its texts fall back from the most
// specific translation to the language's and then to the base language.
func TestLocalesWithScriptAndRegion(t *testing.T) {
	for in, want := range map[string]string{"en": "en", "PT_br": "pt-BR", "zh-hant": "zh-Hant", "zh-hant-tw": "zh-Hant-TW",
		"zh_Hant_tw": "zh-Hant-TW", "es-419": "es-419", "sr-Latn-419": "sr-Latn-419"} {
		if got, ok := CanonicalLocale(in); !ok || got != want {
			t.Errorf("CanonicalLocale(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "e", "english", "zh-TW-Hant", "zh-Hant-Hans", "en-US-GB", "en--US", "en-U"} {
		if got, ok := CanonicalLocale(bad); ok {
			t.Errorf("CanonicalLocale(%q) = %q, want refused", bad, got)
		}
	}
	tr := &Track{Genre: "Pop", Mood: "Happy", Translations: map[string]Translation{
		"zh": {Genre: "流行", Mood: "快乐"}, "zh-Hant": {Genre: "流行樂"}}}
	if got := tr.Localized("zh-Hant-TW"); got.Genre != "流行樂" || got.Mood != "快乐" {
		t.Errorf("zh-Hant-TW: %+v", got)
	}
	if got := tr.Language("zh-Hant-TW"); got != "zh-Hant" {
		t.Errorf("Language(zh-Hant-TW) = %q", got)
	}
	// A translation under the region alone serves the full locale too,
	// the script's over it.
	tr.Translations["zh-TW"] = Translation{Genre: "台灣流行", Mood: "快樂"}
	if got := tr.Localized("zh-Hant-TW"); got.Genre != "流行樂" || got.Mood != "快樂" {
		t.Errorf("zh-Hant-TW with zh-TW: %+v", got)
	}
	if got := tr.Localized("de-AT"); got.Genre != "Pop" || tr.Language("de-AT") != "en" {
		t.Errorf("de-AT: %+v", got)
	}
}
