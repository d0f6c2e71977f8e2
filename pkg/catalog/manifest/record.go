package manifest

import (
	"bufio"
	"encoding/json"
	"io"

	"musiccatalog/pkg/catalog"
)

// Record kinds.
const (
	KindTrack   = "track"
	KindSoundFX = "soundfx"
)

// BlobPrefix marks an audio reference as a blob-store key instead of a path
// relative to the manifest: "blob:uploads/2024/theme.wav".
const BlobPrefix = "blob:"

// Track is a track line of a manifest. Field names are those of the track
// detail (interface.md §2.2) where one exists.
type Track struct {
	Kind          string                         `json:"kind"`
	ID            string                         `json:"id,omitempty"`
	Name          string                         `json:"name"`
	Variant       string                         `json:"variant,omitempty"`
	Description   string                         `json:"description,omitempty"`
	Tempo         *float64                       `json:"tempo,omitempty"`
	Key           string                         `json:"key,omitempty"`
	IsExplicit    bool                           `json:"is_explicit,omitempty"`
	Vocals        string                         `json:"vocals,omitempty"`
	ShortID       string                         `json:"short_id,omitempty"`
	Genre         string                         `json:"genre_name,omitempty"`
	Subgenre      string                         `json:"subgenre_name,omitempty"`
	Mood          string                         `json:"mood_name,omitempty"`
	SecondaryMood string                         `json:"secondary_mood_name,omitempty"`
	Artist        catalog.Artist                 `json:"artist"`
	Album         *catalog.Album                 `json:"album,omitempty"`
	Cover         string                         `json:"cover,omitempty"`
	LibraryName   string                         `json:"library_name,omitempty"`
	Lyrics        string                         `json:"lyrics,omitempty"`
	Writers       []catalog.RightsHolder         `json:"writers,omitempty"`
	Publishers    []catalog.RightsHolder         `json:"publishers,omitempty"`
	Restricted    bool                           `json:"restricted,omitempty"`
	AccessTier    string                         `json:"access_tier,omitempty"`
	ReleaseDate   string                         `json:"release_date,omitempty"`
	Tags          []string                       `json:"tags,omitempty"`
	ISRC          string                         `json:"isrc,omitempty"`
	Label         string                         `json:"label,omitempty"`
	Translations  map[string]catalog.Translation `json:"translations,omitempty"`
	Audio         string                         `json:"audio"`
	Stems         []Stem                         `json:"stems,omitempty"`
}

// Stem is a stem of a Track line.
type Stem struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name"`
	Audio string `json:"audio"`
}

// SoundFX is a sound-effect line.
type SoundFX struct {
	Kind           string `json:"kind"`
	ID             string `json:"id,omitempty"`
	Name           string `json:"name"`
	Genre          string `json:"genre_name,omitempty"`
	SecondaryGenre string `json:"secondary_genre_name,omitempty"`
	Audio          string `json:"audio"`
}

// derivedFields are response fields the service computes; a manifest copied
// from API output may carry them, so they are accepted and ignored.
var derivedFields = []string{"length", "jp_title", "is_free", "has_stems", "audio_url", "short_url", "is_sfx", "highlights"}

// Writer writes manifest lines.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter returns a Writer on w; call Flush when done.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc}
}

// Track writes a track line (Kind is set for the caller).
func (w *Writer) Track(t Track) error {
	t.Kind = KindTrack
	return w.enc.Encode(t)
}

// SoundFX writes a sound-effect line.
func (w *Writer) SoundFX(s SoundFX) error {
	s.Kind = KindSoundFX
	return w.enc.Encode(s)
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }
