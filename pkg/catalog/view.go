package catalog

import (
	"math"
	"regexp"
	"strings"
)

// Plans as identity names them; kept as strings so the catalog does not
// depend on the identity package.
const (
	planFree       = "free"
	planSubscriber = "subscriber"
	planCommercial = "commercial"
	planEnterprise = "enterprise"
)

// Visible reports whether a caller on plan ("" for anonymous) may see the
// track at all (track detail 404 rule, interface.md §7.2): enterprise-only
// tracks exist only for enterprise accounts. Restricted tracks are visible
// (search marks them restricted) but not covered by lower plans.
func Visible(plan string, t *Track) bool {
	return t.AccessTier != TierEnterprise || plan == planEnterprise
}

// IsRestricted is the search shape's `restricted` (§2.1): the track needs
// a paid tier – its access tier is above free, or it is marked restricted.
// Its inverse is `is_free`: usable without a paid tier (Covers "free").
func (t *Track) IsRestricted() bool { return t.Restricted || t.AccessTier != TierFree }

// Covers reports whether plan's subscription covers the track: what
// recognition reports as `cleared` and what downloads allow (§5).
func Covers(plan string, t *Track) bool {
	switch plan {
	case planEnterprise:
		return true
	case planSubscriber, planCommercial:
		return t.AccessTier != TierEnterprise
	case planFree:
		return t.AccessTier == TierFree && !t.Restricted
	}
	return false
}

// jpSuffix is the source-feed marker some raw titles carry (§2.2 jp_title).
const jpSuffix = "-JP"

// DisplayName is the title shown to users: the source-feed suffix (and
// the white space before it) stripped and the variant marker appended.
// String functions rather than a regexp: search computes it for every
// track when a function starts.
func (t *Track) DisplayName() string {
	name := t.Name
	if base, ok := strings.CutSuffix(name, jpSuffix); ok {
		name = strings.TrimRight(base, " \t\n\f\r") // what \s matches in RE2
	}
	if t.Variant != "" {
		name += " (" + t.Variant + ")"
	}
	return name
}

// JPTitle is the raw title of the -JP source feed, or the display name for
// tracks from other sources (§2.2).
func (t *Track) JPTitle() string {
	if strings.HasSuffix(t.Name, jpSuffix) {
		return t.Name
	}
	return t.DisplayName()
}

// localeRE accepts "en", "de", "pt-BR", "zh-Hant", "zh-Hant-TW", "es-419"
// in any case, with "-" or "_": a language, then a script, a region or
// both (BCP 47's order).
var localeRE = regexp.MustCompile(`^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|[0-9]{3}))?$`)

// CanonicalLocale returns s in the canonical form of BCP 47 ("pt_br" →
// "pt-BR", "EN" → "en", "zh-hant-tw" → "zh-Hant-TW"), or false when s is
// not shaped like a locale code. Translations are stored under canonical
// keys.
func CanonicalLocale(s string) (string, bool) {
	m := localeRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	out := strings.ToLower(m[1])
	if script := m[2]; script != "" {
		out += "-" + strings.ToUpper(script[:1]) + strings.ToLower(script[1:])
	}
	if region := m[3]; region != "" {
		out += "-" + strings.ToUpper(region)
	}
	return out, true
}

// localeChain is a canonical locale and the locales it falls back on,
// least specific first: "zh-Hant-TW" → zh, zh-TW, zh-Hant, zh-Hant-TW (a
// catalog may hold a translation under the region alone; the script says
// more about the writing).
func localeChain(locale string) []string {
	parts := strings.Split(locale, "-")
	switch len(parts) {
	case 3:
		return []string{parts[0], parts[0] + "-" + parts[2], parts[0] + "-" + parts[1], locale}
	case 2:
		return []string{parts[0], locale}
	}
	return []string{locale}
}

// ValidLocale reports whether s is shaped like a locale code.
func ValidLocale(s string) bool { _, ok := CanonicalLocale(s); return ok }

// Language is the locale whose texts Localized(locale) gives: locale
// when the track has a translation for it or for its language, else the
// base language "en" (what Content-Language should say).
func (t *Track) Language(locale string) string {
	chain := localeChain(locale)
	for i := len(chain) - 1; i >= 0; i-- {
		if _, ok := t.Translations[chain[i]]; ok {
			return chain[i]
		}
	}
	return "en"
}

// Localized returns the translatable fields in locale, falling back field by
// field to the language without region ("pt-BR" → "pt") and then to the
// base language, so an unknown locale reads as the base language.
func (t *Track) Localized(locale string) Translation {
	out := Translation{Genre: t.Genre, Subgenre: t.Subgenre, Mood: t.Mood,
		SecondaryMood: t.SecondaryMood, Description: t.Description}
	for _, l := range localeChain(locale) { // the more specific wins
		tr, ok := t.Translations[l]
		if !ok {
			continue
		}
		out.Genre = or(tr.Genre, out.Genre)
		out.Subgenre = or(tr.Subgenre, out.Subgenre)
		out.Mood = or(tr.Mood, out.Mood)
		out.SecondaryMood = or(tr.SecondaryMood, out.SecondaryMood)
		out.Description = or(tr.Description, out.Description)
	}
	return out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// rightsTolerance is how far from 100 % a split may be and still count as
// complete ("sum to about 100", §2.2): rounding of thirds and the like.
const rightsTolerance = 0.5

// CompleteRights returns holders when the split is complete — every holder
// named with a positive share, summing to about 100 — and nil otherwise.
func CompleteRights(holders []RightsHolder) []RightsHolder {
	if len(holders) == 0 {
		return nil
	}
	sum := 0.0
	for _, h := range holders {
		if strings.TrimSpace(h.Name) == "" || h.Share <= 0 {
			return nil
		}
		sum += h.Share
	}
	if math.Abs(sum-100) > rightsTolerance {
		return nil
	}
	return holders
}

// VocalsLabel is the search-shape vocals text (§2.1): "Male Vocals",
// "Female Vocals", "Mixed Vocals", "" for instrumentals (§2.1: "Empty for
// instrumentals"), and nil (JSON null) when the vocals are unknown, so
// that a client can tell "no vocals" from "not known".
func VocalsLabel(v string) *string {
	var s string
	switch v {
	case VocalsMale:
		s = "Male Vocals"
	case VocalsFemale:
		s = "Female Vocals"
	case VocalsMixed:
		s = "Mixed Vocals"
	case VocalsInstrumental:
	default:
		return nil
	}
	return &s
}
