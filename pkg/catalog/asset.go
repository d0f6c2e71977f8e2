package catalog

// Asset kinds: the `type` of downloads and streams and the `audio_type`
// of waveforms (interface.md §4.4, gaps.md).
const (
	KindTrack   = "track"
	KindSoundFX = "soundfx"
	KindStem    = "stem"
)

// ValidKind reports whether kind is one of the asset kinds.
func ValidKind(kind string) bool {
	return kind == KindTrack || kind == KindSoundFX || kind == KindStem
}

// Asset is one playable item of the catalog: a track, a sound effect or a
// stem, with what every consumer of its audio needs.
type Asset struct {
	Kind  string
	ID    string
	Track *Track // the track, or the stem's parent; nil for a sound effect
	Audio AudioRef
	// WaveformKey is the blob key of its waveform peaks ("" when none).
	WaveformKey string
	// Name is how it is shown: the track's display name, "Track - Stem",
	// or the sound effect's name.
	Name string
	// Artist is the performing artist ("" for a sound effect).
	Artist string
}

// Asset looks an asset up by kind and id; false when no asset of that kind
// has the id (an id of another kind is not found either).
func (c *Catalog) Asset(kind, id string) (Asset, bool) {
	switch kind {
	case KindTrack:
		if t, ok := c.Track(id); ok {
			return Asset{Kind: kind, ID: t.ID, Track: t, Audio: t.Audio, WaveformKey: t.WaveformKey,
				Name: t.DisplayName(), Artist: t.Artist.Name}, true
		}
	case KindSoundFX:
		if s, ok := c.SoundFX(id); ok {
			return Asset{Kind: kind, ID: s.ID, Audio: s.Audio, WaveformKey: s.WaveformKey, Name: s.Name}, true
		}
	case KindStem:
		if s, t, ok := c.Stem(id); ok {
			return Asset{Kind: kind, ID: s.ID, Track: t, Audio: s.Audio, WaveformKey: s.WaveformKey,
				Name: t.DisplayName() + " - " + s.Name, Artist: t.Artist.Name}, true
		}
	}
	return Asset{}, false
}
