package search

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// termsSep separates the values of a `__terms` filter and the bounds of a
// `__range` filter (interface.md §4.2).
const termsSep = "__"

// Range is an inclusive [Lo, Hi] interval.
type Range struct{ Lo, Hi float64 }

// Contains reports whether v is inside the range.
func (r Range) Contains(v float64) bool { return v >= r.Lo && v <= r.Hi }

// Filters are the common search filters (interface.md §4.2). A zero
// Filters keeps every track. Each list matches any of its values; the
// different filters must all match, the single and `__terms` forms of one
// kind too ("genre=Rock&genre__terms=Cinematic" keeps nothing: filters
// narrow). Text comparisons ignore case.
type Filters struct {
	Genres, Subgenres, Moods []string // lower-cased names; mood matches the mood or the secondary mood
	Vocals                   []string // catalog.Vocals* values
	Tempos                   []string // catalog.TempoDescriptors
	BPM, Duration            *Range   // BPM, seconds
	// Exact (Title, Artist, Album) and partial (…Contains) matches,
	// lower-cased. Title compares with the display name and the raw title;
	// Artist and Album with the name and the slug.
	Title, Artist, Album                         string
	TitleContains, ArtistContains, AlbumContains string
	Restricted                                   *bool

	// asked keeps the classification parameters as given, for did_you_mean.
	asked []askedFilter
	// also holds the `__terms` forms of the kinds whose single form was
	// sent as well: they must match too (nil when there are none).
	also *Filters
}

type askedFilter struct {
	param  string   // "genre", "mood__terms", ...
	kind   string   // "genre", "subgenre", "mood"
	values []string // as given
}

// ParseFilters reads the common filters from query parameters. Every
// invalid value is reported at once as a field error (errs.Invalid,
// {param: [message]}). Genres, subgenres and moods depend on the catalog
// snapshot, so they are checked against it when the search runs
// (Filters.checkKnown): on by-text and by-prompt a near-miss typo is kept
// (it matches nothing and did_you_mean suggests the spelling); anything
// else, and a near miss where the response has no did_you_mean, is a
// field error.
func ParseFilters(q url.Values) (Filters, error) {
	const op = "search.ParseFilters"
	var f Filters
	bad := map[string][]string{}
	// into is where a `__terms` form goes: beside its single form's
	// values when that was not sent, else into f.also (both must match).
	var also Filters
	into := func(single string) *Filters {
		if len(values(q, single)) > 0 {
			return &also
		}
		return &f
	}
	for _, kind := range []string{"genre", "subgenre", "mood"} {
		for _, param := range []string{kind, kind + "__terms"} {
			vals := values(q, param)
			if len(vals) == 0 {
				continue
			}
			f.asked = append(f.asked, askedFilter{param: param, kind: kind, values: vals})
			dst := &f
			if param != kind {
				dst = into(kind)
			}
			for _, v := range vals {
				v = strings.ToLower(v)
				switch kind {
				case "genre":
					dst.Genres = append(dst.Genres, v)
				case "subgenre":
					dst.Subgenres = append(dst.Subgenres, v)
				case "mood":
					dst.Moods = append(dst.Moods, v)
				}
			}
		}
	}
	for _, param := range []string{"vocals", "vocals__terms"} {
		dst := &f
		if param != "vocals" {
			dst = into("vocals")
		}
		for _, v := range values(q, param) {
			if vv, ok := vocalsValue(v); ok {
				dst.Vocals = append(dst.Vocals, vv)
			} else {
				bad[param] = append(bad[param], choiceError(v, vocalsChoices))
			}
		}
	}
	for _, param := range []string{"tempo", "tempo__terms"} {
		dst := &f
		if param != "tempo" {
			dst = into("tempo")
		}
		for _, v := range values(q, param) {
			if d := strings.ToLower(v); slices.Contains(catalog.TempoDescriptors, d) {
				dst.Tempos = append(dst.Tempos, d)
			} else {
				bad[param] = append(bad[param], choiceError(v, catalog.TempoDescriptors))
			}
		}
	}
	if !also.empty() {
		f.also = &also
	}
	for param, dst := range map[string]**Range{"bpm__range": &f.BPM, "duration__range": &f.Duration} {
		s := strings.TrimSpace(q.Get(param))
		if s == "" {
			continue
		}
		r, ok := parseRange(s)
		if !ok {
			bad[param] = append(bad[param], "Enter two numbers separated by '__' with the lower one first, e.g. 90__120.")
			continue
		}
		*dst = &r
	}
	for param, dst := range map[string]*string{
		"title": &f.Title, "artist": &f.Artist, "album": &f.Album,
		"title__contains": &f.TitleContains, "artist__contains": &f.ArtistContains, "album__contains": &f.AlbumContains,
	} {
		*dst = strings.ToLower(strings.TrimSpace(q.Get(param)))
	}
	if s := strings.TrimSpace(q.Get("restricted")); s != "" {
		b, err := strconv.ParseBool(strings.ToLower(s))
		if err != nil {
			bad["restricted"] = append(bad["restricted"], "Must be a valid boolean (True or False).")
		} else {
			f.Restricted = &b
		}
	}
	if len(bad) > 0 {
		// The valid part comes back too: the caller checks its catalog
		// values (Service.CheckFilterValues) so that one 400 names every
		// bad parameter.
		return f, &errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}
	}
	return f, nil
}

// values splits a filter parameter: `__terms` forms on "__", and every
// repetition of the parameter counts; blanks are dropped.
func values(q url.Values, param string) []string {
	var out []string
	for _, raw := range q[param] {
		parts := []string{raw}
		if strings.HasSuffix(param, "__terms") {
			parts = strings.Split(raw, termsSep)
		}
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func parseRange(s string) (Range, bool) {
	lo, hi, ok := strings.Cut(s, termsSep)
	if !ok {
		return Range{}, false
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if err1 != nil || err2 != nil || a < 0 || b < a || a != a || b != b || b > 1e6 {
		return Range{}, false
	}
	return Range{a, b}, true
}

// vocalsChoices are the vocals filter values shown in errors (the listing's).
var vocalsChoices = []string{catalog.VocalsInstrumental, catalog.VocalsMale, catalog.VocalsFemale, catalog.VocalsMixed}

// vocalsValue accepts a catalog vocals value or its search label
// ("Female Vocals"), in any case.
func vocalsValue(v string) (string, bool) {
	v = strings.TrimSpace(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), "vocals"))
	if slices.Contains(catalog.VocalsValues, v) {
		return v, true
	}
	return "", false
}

func choiceError(v string, choices []string) string {
	msg := "\"" + v + "\" is not a valid choice; use " + strings.Join(choices, ", ") + "."
	if s, ok := closest(strings.ToLower(v), choices); ok {
		msg += " Did you mean \"" + s + "\"?"
	}
	return msg
}

// facets are one track's filterable values, prepared once per snapshot
// so that filtering a ranked list allocates nothing.
type facets struct {
	genre, subgenre, mood, mood2 string // lower-cased
	title, rawTitle              string
	artist, artistSlug           string
	album, albumSlug             string
	vocals                       string
	// Interned codes of genre, subgenre, mood and secondary mood (0 =
	// none): similarity compares them for every track of a scan.
	genreC, subgenreC, moodC, mood2C int32
	tempo                            float64 // 0 when unknown
	length                           float64
	restricted                       bool
	// baseTitle is the lower-cased display name without the variant
	// marker; variant says whether the track carries one (sameRecording).
	baseTitle string
	variant   bool
}

func facetsOf(t *catalog.Track) facets { return facetsWith(t, strings.ToLower) }

// facetsWith is facetsOf with lower as strings.ToLower for the values
// many tracks share (an index build passes a cache: see lowerCache).
func facetsWith(t *catalog.Track, lower func(string) string) facets {
	f := facets{
		genre: lower(t.Genre), subgenre: lower(t.Subgenre),
		mood: lower(t.Mood), mood2: lower(t.SecondaryMood),
		title: strings.ToLower(t.DisplayName()), rawTitle: strings.ToLower(t.Name),
		artist: lower(t.Artist.Name), artistSlug: lower(t.Artist.Slug),
		vocals: t.Vocals, length: float64(t.Length), restricted: t.IsRestricted(),
		baseTitle: strings.ToLower(baseTitle(t)), variant: t.Variant != "",
	}
	if t.Tempo != nil {
		f.tempo = *t.Tempo
	}
	if t.Album != nil {
		f.album, f.albumSlug = lower(t.Album.Name), lower(t.Album.Slug)
	}
	return f
}

// lowerCache lower-cases the few distinct genres, moods, artists and
// albums of a catalog once each instead of once per track (an index
// build at 100k tracks spent a tenth of a second lower-casing them).
type lowerCache map[string]string

func (c lowerCache) lower(s string) string {
	l, ok := c[s]
	if !ok {
		l = strings.ToLower(s)
		c[s] = l
	}
	return l
}

// empty reports whether the filters keep every track.
func (f *Filters) empty() bool {
	return len(f.Genres)+len(f.Subgenres)+len(f.Moods)+len(f.Vocals)+len(f.Tempos) == 0 &&
		f.BPM == nil && f.Duration == nil && f.Restricted == nil &&
		f.Title+f.Artist+f.Album+f.TitleContains+f.ArtistContains+f.AlbumContains == "" && f.also == nil
}

func (f *Filters) match(x *facets) bool {
	anyOf := func(list []string, vs ...string) bool {
		if len(list) == 0 {
			return true
		}
		for _, v := range vs {
			if v != "" && slices.Contains(list, v) {
				return true
			}
		}
		return false
	}
	switch {
	case !anyOf(f.Genres, x.genre), !anyOf(f.Subgenres, x.subgenre), !anyOf(f.Moods, x.mood, x.mood2),
		!anyOf(f.Vocals, x.vocals):
		return false
	case len(f.Tempos) > 0 && !slices.Contains(f.Tempos, catalog.TempoDescriptor(x.tempo)):
		return false
	case f.BPM != nil && (x.tempo <= 0 || !f.BPM.Contains(x.tempo)):
		return false
	case f.Duration != nil && !f.Duration.Contains(x.length):
		return false
	case f.Restricted != nil && *f.Restricted != x.restricted:
		return false
	case f.Title != "" && f.Title != x.title && f.Title != x.baseTitle && f.Title != x.rawTitle:
		return false
	case f.Artist != "" && f.Artist != x.artist && f.Artist != x.artistSlug:
		return false
	case f.Album != "" && f.Album != x.album && f.Album != x.albumSlug:
		return false
	case f.TitleContains != "" && !strings.Contains(x.title, f.TitleContains) && !strings.Contains(x.rawTitle, f.TitleContains):
		return false
	case f.ArtistContains != "" && !strings.Contains(x.artist, f.ArtistContains):
		return false
	case f.AlbumContains != "" && !strings.Contains(x.album, f.AlbumContains):
		return false
	}
	return f.also == nil || f.also.match(x)
}

// didYouMean suggests spellings for genre, subgenre and mood values that
// the catalog does not have but that are close to a value it has. The
// suggestion is the whole parameter value with the typos replaced, in the
// catalog's spelling, so a client can resend it as is.
func (f *Filters) didYouMean(known map[string][]string) map[string]string {
	var out map[string]string
	for _, a := range f.asked {
		names := known[a.kind]
		fixed, changed := make([]string, len(a.values)), false
		for i, v := range a.values {
			fixed[i] = v
			if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, v) }) {
				continue
			}
			if s, ok := closest(strings.ToLower(v), names); ok {
				fixed[i], changed = s, true
			}
		}
		if changed {
			if out == nil {
				out = map[string]string{}
			}
			out[a.param] = strings.Join(fixed, termsSep)
		}
	}
	return out
}

// FiltersListing is where the valid genre, subgenre and mood values are
// listed (interface.md §4.2); errors for unknown values point there.
const FiltersListing = "GET /api/v4/search/ai/filters/"

// maxListedChoices bounds how many valid values an error names inline;
// longer lists (subgenres) are only pointed to.
const maxListedChoices = 30

// checkKnown reports genre, subgenre and mood values that are neither a
// catalog value (any case) nor near enough to one to be a typo, as field
// errors naming the parameter (§7.2: an invalid filter value is a 400).
// Such a value used to answer 200 with no results, indistinguishable
// from a real filter that happens to match nothing. Near-misses ("rok")
// stay a 200 with did_you_mean where the response has one (by-text and
// by-prompt: suggest true), the contract's answer for typos; elsewhere
// (by-id, by-url, by-video) they are a 400 naming the likely spelling.
func (f *Filters) checkKnown(op string, known map[string][]string, suggest bool) error {
	var bad map[string][]string
	for _, a := range f.asked {
		names := known[a.kind]
		for _, v := range a.values {
			if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, v) }) {
				continue
			}
			near, ok := closest(v, names)
			if ok && suggest {
				continue
			}
			if bad == nil {
				bad = map[string][]string{}
			}
			if !ok {
				near = ""
			}
			bad[a.param] = append(bad[a.param], unknownValueError(a.kind, v, near, names))
		}
	}
	if bad != nil {
		return &errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}
	}
	return nil
}

func unknownValueError(kind, v, near string, names []string) string {
	if r := []rune(v); len(r) > 40 { // echo a pasted document back as a hint of it only
		v = string(r[:40]) + "…"
	}
	msg := "\"" + v + "\" is not a valid " + kind + "."
	if near != "" {
		msg += " Did you mean \"" + near + "\"?"
	}
	if len(names) > 0 && len(names) <= maxListedChoices {
		msg += " Use one of: " + strings.Join(names, ", ") + "."
	}
	return msg + " " + FiltersListing + " lists the valid values."
}

// knownValues are the catalog's classification names per filter kind.
func knownValues(c *catalog.Catalog) map[string][]string {
	names := func(vcs []catalog.ValueCount) []string {
		out := make([]string, len(vcs))
		for i, vc := range vcs {
			out[i] = vc.Value
		}
		return out
	}
	tf := c.AllTrackFilters()
	return maps.Collect(func(yield func(string, []string) bool) {
		_ = yield("genre", names(tf.Genres)) && yield("subgenre", names(tf.Subgenres)) && yield("mood", names(tf.Moods))
	})
}
