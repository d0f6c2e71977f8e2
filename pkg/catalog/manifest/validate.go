package manifest

import (
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/ids"
)

// Namespaces of derived ids. Changing them changes every derived id.
const (
	nsTrack   = "musiccatalog/track"
	nsStem    = "musiccatalog/stem"
	nsSoundFX = "musiccatalog/soundfx"
	nsAlbum   = "musiccatalog/album"
)

// MaxTempo is the highest tempo a manifest may state.
const MaxTempo = 300

// TrackID is the id a track line without one gets: a name-based UUID of its
// library, artist, raw title and variant, so re-ingesting the same line
// gives the same id.
func TrackID(library, artist, name, variant string) string {
	return ids.NameUUID(nsTrack, strings.Join([]string{library, artist, name, variant}, "\x00"))
}

// StemID is the id of a stem without one: from its track and its name.
func StemID(trackID, name string) string {
	return ids.NameUUID(nsStem, trackID+"\x00"+name)
}

// SoundFXID is the id of a sound effect without one: from its name and genres.
func SoundFXID(name, genre, secondary string) string {
	return ids.NameUUID(nsSoundFX, strings.Join([]string{name, genre, secondary}, "\x00"))
}

// AlbumID is the id of an album without one: from the artist and album name.
func AlbumID(artist, album string) string {
	return ids.NameUUID(nsAlbum, artist+"\x00"+album)
}

var shortIDEncoding = base32.NewEncoding("abcdefghijkmnpqrstuvwxyz23456789").WithPadding(base32.NoPadding)

// ShortID is the short public id of a track without one: 8 characters
// derived from its id.
func ShortID(id string) string {
	h := sha1.Sum([]byte(id))
	return shortIDEncoding.EncodeToString(h[:5])
}

// Slug makes a URL slug of a name: lower-case ASCII letters and digits
// joined by hyphens; names with no such characters get a hash.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	if b.Len() == 0 && name != "" {
		h := sha1.Sum([]byte(name))
		return "x-" + shortIDEncoding.EncodeToString(h[:5])
	}
	return b.String()
}

var (
	keyRE      = regexp.MustCompile(`^([A-Ga-g])\s*(#|♯|b|♭)?\s*((?i:major|maj|minor|min)|m|M)?$`)
	shortIDRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
	isrcRE     = regexp.MustCompile(`^[A-Z]{2}[A-Z0-9]{3}[0-9]{7}$`)
	vocalsSet  = map[string]bool{}
	accidental = map[string]string{"#": "#", "♯": "#", "b": "b", "♭": "b"}
)

func init() {
	for _, v := range catalog.VocalsValues {
		vocalsSet[v] = true
	}
}

// NormalizeKey returns the canonical form of a musical key ("A minor",
// "F# major", "Bb minor"; a bare note or "maj" is major, "m" or "min"
// minor), or false when s is not a key.
func NormalizeKey(s string) (string, bool) {
	m := keyRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	mode := "major"
	switch strings.ToLower(m[3]) {
	case "minor", "min", "m":
		mode = "minor"
	}
	if m[3] == "M" { // "CM" is C major by convention
		mode = "major"
	}
	return strings.ToUpper(m[1]) + accidental[m[2]] + " " + mode, true
}

// checker collects the problems of one record.
type checker struct {
	line  int
	errs  []Problem // the record is skipped
	warns []Problem // the record goes in
}

func (c *checker) bad(field, format string, args ...any) {
	c.errs = append(c.errs, Problem{Line: c.line, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) warn(field, format string, args ...any) {
	c.warns = append(c.warns, Problem{Line: c.line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// id checks an explicit id or derives one, and claims it for this line.
func (p *parser) id(c *checker, field, given, derived, from string) string {
	id := derived
	if given != "" {
		canon, ok := ids.CanonicalUUID(given)
		if !ok {
			c.bad(field, "%q is not a UUID", given)
			return ""
		}
		id = canon
	}
	if other, dup := p.seen[id]; dup {
		if given == "" {
			c.bad(field, "derived id %s (from %s) is already used on line %d; give one of them an explicit id", id, from, other)
		} else {
			c.bad(field, "%s is already used on line %d", id, other)
		}
	}
	return id
}

func (p *parser) audio(c *checker, field, ref string) Source {
	if strings.TrimSpace(ref) == "" {
		c.bad(field, "required")
		return Source{}
	}
	s, err := p.base.resolve(ref)
	if err != nil {
		c.bad(field, "%v", err)
	}
	return s
}

func (p *parser) track(c *checker, r *Track) *Asset {
	line := c.line
	limitTrack(c, r)
	name := strings.TrimSpace(r.Name)
	if name == "" {
		c.bad("name", "required")
	}
	artist := catalog.Artist{Name: strings.TrimSpace(r.Artist.Name), Slug: strings.TrimSpace(r.Artist.Slug)}
	if artist.Name == "" {
		c.bad("artist.name", "required")
	}
	if artist.Slug == "" {
		artist.Slug = Slug(artist.Name)
	}
	variant := strings.TrimSpace(r.Variant)
	library := strings.TrimSpace(r.LibraryName)
	t := &catalog.Track{
		Name: name, Variant: variant, Description: strings.TrimSpace(r.Description),
		IsExplicit: r.IsExplicit, Vocals: strings.ToLower(strings.TrimSpace(r.Vocals)),
		Genre: strings.TrimSpace(r.Genre), Subgenre: strings.TrimSpace(r.Subgenre),
		Mood: strings.TrimSpace(r.Mood), SecondaryMood: strings.TrimSpace(r.SecondaryMood),
		Artist: artist, Cover: r.Cover, LibraryName: library, Lyrics: r.Lyrics,
		Restricted: r.Restricted, AccessTier: catalog.AccessTier(r.AccessTier),
		ReleaseDate: r.ReleaseDate, Tags: cleanTags(r.Tags), ISRC: r.ISRC, Label: strings.TrimSpace(r.Label),
	}
	t.ID = p.id(c, "id", r.ID, TrackID(library, artist.Name, name, variant), "library_name, artist.name, name and variant")
	if r.Tempo != nil {
		if v := *r.Tempo; !(v > 0 && v <= MaxTempo) {
			c.bad("tempo", "%g BPM: want more than 0 and at most %d", v, MaxTempo)
		} else {
			t.Tempo = &v
		}
	}
	if r.Key != "" {
		if k, ok := NormalizeKey(r.Key); ok {
			t.Key = &k
		} else {
			c.bad("key", `%q: want a key such as "A minor" or "F# major"`, r.Key)
		}
	}
	if t.Vocals == "" {
		t.Vocals = catalog.VocalsUnknown
	} else if !vocalsSet[t.Vocals] {
		c.bad("vocals", "%q: want one of %s", t.Vocals, strings.Join(catalog.VocalsValues, ", "))
	}
	if t.AccessTier == "" {
		t.AccessTier = catalog.TierFree
	} else if !t.AccessTier.Valid() {
		c.bad("access_tier", "%q: want free, subscriber or enterprise", r.AccessTier)
	}
	if t.ReleaseDate != "" {
		if _, err := time.Parse(time.DateOnly, t.ReleaseDate); err != nil {
			c.bad("release_date", "%q: want YYYY-MM-DD", t.ReleaseDate)
		}
	}
	if t.ISRC != "" {
		t.ISRC = strings.ToUpper(strings.ReplaceAll(t.ISRC, "-", ""))
		if !isrcRE.MatchString(t.ISRC) {
			c.bad("isrc", "%q: want CC-XXX-YY-NNNNN", r.ISRC)
		}
	}
	switch {
	case r.ShortID == "":
		t.ShortID = ShortID(t.ID)
	case !shortIDRE.MatchString(r.ShortID):
		c.bad("short_id", "%q: want up to 32 letters, digits, '-' or '_'", r.ShortID)
	default:
		t.ShortID = r.ShortID
	}
	if other, dup := p.shortIDs[t.ShortID]; dup && t.ShortID != "" {
		c.bad("short_id", "%q is already used on line %d", t.ShortID, other)
	}
	if r.Album != nil {
		a := *r.Album
		a.Name = strings.TrimSpace(a.Name)
		if a.Name == "" {
			c.bad("album.name", "required when album is given")
		}
		if a.ID == "" {
			a.ID = AlbumID(artist.Name, a.Name)
		} else if canon, ok := ids.CanonicalUUID(a.ID); ok {
			a.ID = canon
		} else {
			c.bad("album.id", "%q is not a UUID", a.ID)
		}
		if a.Slug == "" {
			a.Slug = Slug(a.Name)
		}
		t.Album = &a
	}
	t.Writers = rights(c, "writers", r.Writers)
	t.Publishers = rights(c, "publishers", r.Publishers)
	if len(r.Translations) > 0 {
		t.Translations = make(map[string]catalog.Translation, len(r.Translations))
		for loc, tr := range r.Translations {
			canon, ok := catalog.CanonicalLocale(loc)
			if !ok {
				c.bad("translations."+loc, "not a locale code such as de, ja or pt-BR")
				continue
			}
			if _, dup := t.Translations[canon]; dup {
				c.bad("translations."+loc, "%s is given twice", canon)
				continue
			}
			t.Translations[canon] = tr
		}
	}
	a := &Asset{Line: line, Track: t, Audio: p.audio(c, "audio", r.Audio)}
	stemNames := map[string]bool{}
	for i, s := range r.Stems {
		field := fmt.Sprintf("stems[%d]", i)
		sname := strings.TrimSpace(s.Name)
		if sname == "" {
			c.bad(field+".name", "required")
		} else if stemNames[strings.ToLower(sname)] {
			c.bad(field+".name", "%q appears twice", sname)
		}
		stemNames[strings.ToLower(sname)] = true
		st := catalog.Stem{Name: sname}
		if t.ID != "" {
			st.ID = p.id(c, field+".id", s.ID, StemID(t.ID, sname), "the track id and stem name")
		}
		t.Stems = append(t.Stems, st)
		a.Stems = append(a.Stems, p.audio(c, field+".audio", s.Audio))
	}
	if len(c.errs) > 0 {
		return nil
	}
	// Ids must also differ within the record (an explicit stem id equal to the track's).
	own := map[string]bool{}
	for _, id := range assetIDs(a) {
		if own[id] {
			c.bad("stems", "id %s is used twice in this record", id)
		}
		own[id] = true
	}
	return a
}

func (p *parser) soundFX(c *checker, r *SoundFX) *Asset {
	line := c.line
	limitSoundFX(c, r)
	s := &catalog.SoundFX{Name: strings.TrimSpace(r.Name), Genre: strings.TrimSpace(r.Genre), SecondaryGenre: strings.TrimSpace(r.SecondaryGenre)}
	if s.Name == "" {
		c.bad("name", "required")
	}
	s.ID = p.id(c, "id", r.ID, SoundFXID(s.Name, s.Genre, s.SecondaryGenre), "name, genre_name and secondary_genre_name")
	a := &Asset{Line: line, SoundFX: s, Audio: p.audio(c, "audio", r.Audio)}
	return a
}

// rights checks a split. An incomplete one (a holder without a name, shares
// not summing to 100) is kept: the detail endpoint hides it, and the data
// may be completed later.
func rights(c *checker, field string, hs []catalog.RightsHolder) []catalog.RightsHolder {
	sum := 0.0
	for i, h := range hs {
		if h.Share < 0 || h.Share > 100 || math.IsNaN(h.Share) {
			c.bad(fmt.Sprintf("%s[%d].share", field, i), "%g: want a percentage from 0 to 100", h.Share)
		}
		hs[i].Name = strings.TrimSpace(h.Name)
		sum += h.Share
	}
	if sum > 100.5 {
		c.warn(field, "shares sum to %g %%, more than 100", sum)
	}
	return hs
}

func cleanTags(tags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	return out
}
