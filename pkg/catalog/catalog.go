package catalog

import (
	"errors"
	"fmt"
	"slices"
)

// AccessTier is the lowest plan a track is meant for.
type AccessTier string

const (
	TierFree       AccessTier = "free"
	TierSubscriber AccessTier = "subscriber"
	TierEnterprise AccessTier = "enterprise"
)

// Valid reports whether a is one of the known tiers.
func (a AccessTier) Valid() bool {
	return a == TierFree || a == TierSubscriber || a == TierEnterprise
}

// Vocals values of a track (interface.md §2.2).
const (
	VocalsInstrumental = "instrumental"
	VocalsMale         = "male"
	VocalsFemale       = "female"
	VocalsMixed        = "mixed"
	VocalsUnknown      = "unknown"
)

// VocalsValues lists the vocals values in display order.
var VocalsValues = []string{VocalsInstrumental, VocalsMale, VocalsFemale, VocalsMixed, VocalsUnknown}

// Artist is a track's performing artist.
type Artist struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// ImageSizes are the URLs of one image at three sizes.
type ImageSizes struct {
	Small  string `json:"small"`
	Medium string `json:"medium"`
	Large  string `json:"large"`
}

// Album is the release a track appears on.
type Album struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Slug     string     `json:"slug"`
	URL      string     `json:"url"`
	Images   ImageSizes `json:"all_image_sizes"`
	Blurhash string     `json:"blurhash"`
}

// RightsHolder is one writer or publisher and their percentage of the split.
type RightsHolder struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
	PRO   string  `json:"pro"`
	IPI   string  `json:"ipi"`
}

// Translation holds the translatable fields of a track in one locale; an
// empty field falls back to the base language.
type Translation struct {
	Genre         string `json:"genre_name,omitempty"`
	Subgenre      string `json:"subgenre_name,omitempty"`
	Mood          string `json:"mood_name,omitempty"`
	SecondaryMood string `json:"secondary_mood_name,omitempty"`
	Description   string `json:"description,omitempty"`
}

// Region is a highlight (hook) of a track, in seconds.
type Region struct {
	Offset   float64 `json:"offset"`
	Duration float64 `json:"duration"`
}

// AudioRef locates the stored renditions of an asset's audio.
type AudioRef struct {
	MP3Key string // blob key of the mp3 rendition (streaming, downloads)
	WAVKey string // blob key of the wav rendition (downloads)
	SHA256 string // hex digest of the source audio the renditions came from
}

// Stem is one separately playable part of a track (drums, vocals, ...).
type Stem struct {
	ID          string
	Name        string
	Length      int // seconds
	Audio       AudioRef
	WaveformKey string
}

// Track is one piece of music with everything the API says about it.
type Track struct {
	ID string
	// Name is the raw title as in the source; it may end in "-JP"
	// (DisplayName strips it).
	Name string
	// Variant marks an alternate version, e.g. "Instrumental", "30s Edit".
	Variant     string
	Description string
	Length      int      // seconds, measured from the audio
	Tempo       *float64 // BPM; nil when neither given nor analyzed
	Key         *string  // e.g. "A minor"; nil when unknown
	IsExplicit  bool
	Vocals      string // VocalsInstrumental, ...
	ShortID     string

	// Base-language (en) classification names.
	Genre, Subgenre, Mood, SecondaryMood string
	// Translations by locale ("de", "ja", "pt-BR").
	Translations map[string]Translation

	Artist      Artist
	Album       *Album
	Cover       string
	LibraryName string
	Lyrics      string
	Writers     []RightsHolder
	Publishers  []RightsHolder
	Restricted  bool
	AccessTier  AccessTier
	ReleaseDate string // YYYY-MM-DD or ""
	Tags        []string
	ISRC        string
	Label       string

	Stems       []Stem
	Audio       AudioRef
	WaveformKey string

	// Features is the similarity vector standardized with the catalog's
	// FeatureScaler (z-scores, unit length): cosine similarity is a dot
	// product. Nil for tracks without analysis.
	Features []float32
	// Vector is the raw descriptor vector the analysis produced (the audio
	// engine's features.VectorNames order), from which Features is
	// standardized; kept so that a later ingestion can refit the scaler.
	Vector []float32
	// Energy is the overall energy in [0, 1] when analyzed.
	Energy     float64
	Highlights []Region
	// AudioEmbedding is what a pretrained model (Spotify's Basic Pitch,
	// package basicpitch: its pooled activations through a fixed
	// projection) hears in the audio, at unit length; by-id mixes its
	// cosine with that of Features. Nil for tracks analyzed without it.
	// Snapshots keep it at 8 bits a value.
	AudioEmbedding []float32
}

// HasStems reports whether the track has separately playable stems.
func (t *Track) HasStems() bool { return len(t.Stems) > 0 }

// SoundFX is a sound effect.
type SoundFX struct {
	ID             string
	Name           string
	Genre          string
	SecondaryGenre string
	Length         int // seconds
	Audio          AudioRef
	WaveformKey    string
}

// Segment is one fingerprint index segment and the tracks it holds. Every
// track of a catalog is in at most one segment.
type Segment struct {
	Key string // blob key of the fingerprint.Index bytes
	// TrackIDs lists the tracks the segment indexes, each followed by the
	// stems indexed under it (their hashes are in the track's entry).
	TrackIDs []string
}

// FeatureScaler standardizes raw vectors into Features: subtract Mean,
// divide by Std, scale to unit length (the audio engine's
// features.Scaler). Search applies it to the vector of a query to compare
// it with the catalog's Features.
type FeatureScaler struct {
	Mean, Std []float32
}

// Contents is what a Catalog is made of.
type Contents struct {
	Tracks   []*Track
	SoundFX  []*SoundFX
	Segments []Segment
	Scaler   FeatureScaler // fitted on the tracks' Vectors
}

// Catalog is an immutable snapshot of the catalog. Its methods are safe for
// concurrent use; the values they return are shared and must not be
// modified.
type Catalog struct {
	version   string
	contents  Contents
	tracks    map[string]*Track
	sfx       map[string]*SoundFX
	stems     map[string]stemOf
	segKeys   []string
	filters   TrackFilters // every track: what an enterprise plan sees
	shared    TrackFilters // the tracks every other plan sees
	sfxFilter SoundFXFilters
}

type stemOf struct {
	stem  *Stem
	track *Track
}

// ErrInvalidCatalog is returned by New for contents that break an
// invariant (empty or duplicate ids, a segment naming an unknown track).
var ErrInvalidCatalog = errors.New("catalog: invalid contents")

// New builds a Catalog from contents, which it takes ownership of. The
// version is the digest of the snapshot encoding, so equal contents have
// equal versions.
func New(c Contents) (*Catalog, error) {
	cat, err := build(c, "")
	if err != nil {
		return nil, err
	}
	body, err := encodeBody(c, formatOf(c))
	if err != nil {
		return nil, err
	}
	cat.version = versionOf(body)
	return cat, nil
}

func build(c Contents, version string) (*Catalog, error) {
	cat := &Catalog{
		version:  version,
		contents: c,
		tracks:   make(map[string]*Track, len(c.Tracks)),
		sfx:      make(map[string]*SoundFX, len(c.SoundFX)),
		stems:    map[string]stemOf{},
	}
	seen := make(map[string]string, len(c.Tracks)+len(c.SoundFX))
	claim := func(id, what string) error {
		if id == "" {
			return fmt.Errorf("%w: %s with an empty id", ErrInvalidCatalog, what)
		}
		if prev, dup := seen[id]; dup {
			return fmt.Errorf("%w: id %s used by a %s and a %s", ErrInvalidCatalog, id, prev, what)
		}
		seen[id] = what
		return nil
	}
	for _, t := range c.Tracks {
		if err := claim(t.ID, "track"); err != nil {
			return nil, err
		}
		cat.tracks[t.ID] = t
		for i := range t.Stems {
			if err := claim(t.Stems[i].ID, "stem"); err != nil {
				return nil, err
			}
			cat.stems[t.Stems[i].ID] = stemOf{&t.Stems[i], t}
		}
	}
	for _, s := range c.SoundFX {
		if err := claim(s.ID, "sound effect"); err != nil {
			return nil, err
		}
		cat.sfx[s.ID] = s
	}
	inSegment := map[string]bool{}
	for _, s := range c.Segments {
		cat.segKeys = append(cat.segKeys, s.Key)
		for _, id := range s.TrackIDs {
			known := cat.tracks[id] != nil
			if st, ok := cat.stems[id]; ok { // indexed under its track, in the same segment
				known = slices.Contains(s.TrackIDs, st.track.ID)
			}
			if !known || inSegment[id] {
				return nil, fmt.Errorf("%w: segment %s: track %s unknown or in two segments", ErrInvalidCatalog, s.Key, id)
			}
			inSegment[id] = true
		}
	}
	cat.filters = trackFilters(c.Tracks)
	cat.shared = trackFilters(slices.DeleteFunc(slices.Clone(c.Tracks), func(t *Track) bool { return !Visible("", t) }))
	cat.sfxFilter = soundFXFilters(c.SoundFX)
	return cat, nil
}

// Version identifies the snapshot; it changes whenever the contents do.
func (c *Catalog) Version() string { return c.version }

// Track returns the track with the given id.
func (c *Catalog) Track(id string) (*Track, bool) {
	t, ok := c.tracks[id]
	return t, ok
}

// Tracks lists every track in catalog order (the order of ingestion).
func (c *Catalog) Tracks() []*Track { return c.contents.Tracks }

// SoundFX returns the sound effect with the given id.
func (c *Catalog) SoundFX(id string) (*SoundFX, bool) {
	s, ok := c.sfx[id]
	return s, ok
}

// SoundFXs lists every sound effect in catalog order.
func (c *Catalog) SoundFXs() []*SoundFX { return c.contents.SoundFX }

// Stem returns the stem with the given id and the track it belongs to.
func (c *Catalog) Stem(id string) (*Stem, *Track, bool) {
	s, ok := c.stems[id]
	return s.stem, s.track, ok
}

// FingerprintSegments lists the blob keys of the fingerprint index
// segments; together they index every track of the catalog.
func (c *Catalog) FingerprintSegments() []string { return c.segKeys }

// FeatureScaler is the standardization the tracks' Features went through.
func (c *Catalog) FeatureScaler() FeatureScaler { return c.contents.Scaler }

// Segments lists the fingerprint segments with the tracks each holds.
func (c *Catalog) Segments() []Segment { return c.contents.Segments }

// Contents returns a copy of the catalog's lists (the elements are shared),
// from which ingestion builds the next version.
func (c *Catalog) Contents() Contents {
	return Contents{
		Tracks:   slices.Clone(c.contents.Tracks),
		SoundFX:  slices.Clone(c.contents.SoundFX),
		Segments: slices.Clone(c.contents.Segments),
		Scaler:   c.contents.Scaler,
	}
}

// TrackFilters are the values of the music search filters (§2.9, §4.2)
// over the tracks plan can see (Visible), so counts never reveal hidden
// tracks; computed once per snapshot.
func (c *Catalog) TrackFilters(plan string) TrackFilters {
	if plan == planEnterprise {
		return c.filters
	}
	return c.shared
}

// AllTrackFilters are the filter values over every track, hidden ones
// included (what validation of a filter value accepts).
func (c *Catalog) AllTrackFilters() TrackFilters { return c.filters }

// FiltersShared reports whether plan sees the filters every plan without
// enterprise access sees (a response that shared caches may keep).
func FiltersShared(plan string) bool { return plan != planEnterprise }

// SoundFXFilters are the values of the sound-effect search filters.
func (c *Catalog) SoundFXFilters() SoundFXFilters { return c.sfxFilter }
