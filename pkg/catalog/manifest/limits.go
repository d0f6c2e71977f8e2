package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of one manifest record. A manifest is trusted input from the
// catalog team, but every value ends up in each snapshot every function
// loads and in every search index, so a record over a limit is reported
// and skipped rather than published. Lengths count characters (runes).
const (
	// MaxNameChars bounds titles, variants, names of artists, albums,
	// stems, rights holders, genres, moods, labels and libraries.
	MaxNameChars = 200
	// MaxDescriptionChars bounds a description (and its translations).
	MaxDescriptionChars = 5000
	// MaxLyricsChars bounds the lyrics.
	MaxLyricsChars = 50000
	// MaxURLChars bounds cover and album URLs and audio references.
	MaxURLChars = 2048
	// MaxCodeChars bounds short codes (slugs, PRO, IPI).
	MaxCodeChars = 100
	// MaxTags, MaxTagChars bound the tags.
	MaxTags     = 50
	MaxTagChars = 100
	// MaxStems bounds the stems of one track.
	MaxStems = 32
	// MaxRightsHolders bounds writers and publishers (each).
	MaxRightsHolders = 50
	// MaxTranslations bounds the locales of one track.
	MaxTranslations = 50
)

// CatalogBlobPrefixes are the only places in the bucket a manifest's
// audio may come from: where manifests and their audio are uploaded
// (UploadPrefix), and the catalog's own published renditions. Anything
// else in the bucket (a partner's recognition or soundtrack upload, job
// work files) must never be publishable into the catalog.
var CatalogBlobPrefixes = []string{UploadPrefix, "catalog/audio/"}

// UploadPrefix is where catalog manifests and their audio are uploaded;
// a manifest landing there starts an ingest (the catalog-ingest trigger).
const UploadPrefix = "catalog-manifests/"

func catalogBlobKey(key string) bool {
	return slices.ContainsFunc(CatalogBlobPrefixes, func(p string) bool { return strings.HasPrefix(key, p) })
}

// tooLong reports a value over max characters.
func (c *checker) tooLong(field, value string, max int) {
	if n := utf8.RuneCountInString(value); n > max {
		c.bad(field, "%d characters: at most %d", n, max)
	}
}

// allShort checks pairs of field (under prefix at) and value against max.
func (c *checker) allShort(at string, max int, pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		c.tooLong(at+pairs[i], pairs[i+1], max)
	}
}

// tooMany reports a list over max entries.
func (c *checker) tooMany(field string, n, max int) {
	if n > max {
		c.bad(field, "%d entries: at most %d", n, max)
	}
}

// limitTrack checks the lengths and counts of a track record.
func limitTrack(c *checker, r *Track) {
	c.allShort("", MaxNameChars, "name", r.Name, "variant", r.Variant, "genre_name", r.Genre,
		"subgenre_name", r.Subgenre, "mood_name", r.Mood, "secondary_mood_name", r.SecondaryMood,
		"artist.name", r.Artist.Name, "library_name", r.LibraryName, "label", r.Label)
	c.tooLong("artist.slug", r.Artist.Slug, MaxCodeChars)
	c.tooLong("description", r.Description, MaxDescriptionChars)
	c.tooLong("lyrics", r.Lyrics, MaxLyricsChars)
	c.tooLong("cover", r.Cover, MaxURLChars)
	c.tooLong("audio", r.Audio, MaxURLChars)
	if a := r.Album; a != nil {
		c.tooLong("album.name", a.Name, MaxNameChars)
		c.tooLong("album.slug", a.Slug, MaxCodeChars)
		c.tooLong("album.blurhash", a.Blurhash, MaxCodeChars)
		c.allShort("album.", MaxURLChars, "url", a.URL, "all_image_sizes.small", a.Images.Small,
			"all_image_sizes.medium", a.Images.Medium, "all_image_sizes.large", a.Images.Large)
	}
	c.tooMany("tags", len(r.Tags), MaxTags)
	for i, t := range r.Tags {
		c.tooLong(fmt.Sprintf("tags[%d]", i), t, MaxTagChars)
	}
	c.tooMany("stems", len(r.Stems), MaxStems)
	for i, s := range r.Stems {
		c.tooLong(fmt.Sprintf("stems[%d].name", i), s.Name, MaxNameChars)
		c.tooLong(fmt.Sprintf("stems[%d].audio", i), s.Audio, MaxURLChars)
	}
	for _, field := range []string{"writers", "publishers"} {
		hs := r.Writers
		if field == "publishers" {
			hs = r.Publishers
		}
		c.tooMany(field, len(hs), MaxRightsHolders)
		for i, h := range hs {
			at := fmt.Sprintf("%s[%d].", field, i)
			c.tooLong(at+"name", h.Name, MaxNameChars)
			c.tooLong(at+"pro", h.PRO, MaxCodeChars)
			c.tooLong(at+"ipi", h.IPI, MaxCodeChars)
		}
	}
	c.tooMany("translations", len(r.Translations), MaxTranslations)
	for _, loc := range slices.Sorted(maps.Keys(r.Translations)) {
		tr, at := r.Translations[loc], "translations."+loc+"."
		c.allShort(at, MaxNameChars, "genre_name", tr.Genre, "subgenre_name", tr.Subgenre,
			"mood_name", tr.Mood, "secondary_mood_name", tr.SecondaryMood)
		c.tooLong(at+"description", tr.Description, MaxDescriptionChars)
	}
}

// limitSoundFX checks the lengths of a sound-effect record.
func limitSoundFX(c *checker, r *SoundFX) {
	c.allShort("", MaxNameChars, "name", r.Name, "genre_name", r.Genre, "secondary_genre_name", r.SecondaryGenre)
	c.tooLong("audio", r.Audio, MaxURLChars)
}
