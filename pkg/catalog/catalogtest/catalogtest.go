package catalogtest

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/ids"
)

// NewStore returns a blob store in a temporary directory removed after the test.
func NewStore(t testing.TB) blob.Store {
	t.Helper()
	s, err := fileblob.New(t.TempDir(), "http://127.0.0.1:1", []byte("catalogtest-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Track returns track i of a small synthetic catalog with every field
// set: tempo 60+10i, genres cycling through three, German translations,
// complete rights, and on even i an album and a stem.
func Track(i int) *catalog.Track {
	id := ids.NameUUID("catalogtest/track", fmt.Sprint(i))
	tempo := 60 + 10*float64(i)
	key := []string{"C major", "A minor", "F# major"}[i%3]
	genre := []string{"Rock", "Jazz", "Electronic"}[i%3]
	t := &catalog.Track{
		ID: id, Name: fmt.Sprintf("Track %d", i), Description: fmt.Sprintf("Test track number %d.", i),
		Length: 30 + i, Tempo: &tempo, Key: &key, Vocals: catalog.VocalsInstrumental, ShortID: fmt.Sprintf("t%d", i),
		Genre: genre, Subgenre: genre + " Sub", Mood: "Happy", SecondaryMood: "Calm",
		Translations: map[string]catalog.Translation{"de": {Genre: genre + " (de)", Mood: "Fröhlich"}},
		Artist:       catalog.Artist{Name: "Artist", Slug: "artist"},
		Cover:        "https://example.com/cover.jpg", LibraryName: "Test Library",
		Writers:    []catalog.RightsHolder{{Name: "W", Share: 100, PRO: "GEMA", IPI: "123456789"}},
		Publishers: []catalog.RightsHolder{{Name: "P", Share: 100, PRO: "GEMA", IPI: "987654321"}},
		AccessTier: catalog.TierFree, ReleaseDate: "2024-01-02", Tags: []string{"test", genre},
		ISRC: "QZDMO2400001", Label: "Label",
		Audio:       catalog.AudioRef{MP3Key: "catalog/audio/" + id + ".mp3", WAVKey: "catalog/audio/" + id + ".wav", SHA256: fmt.Sprintf("%064x", i+1)},
		WaveformKey: fmt.Sprintf("catalog/waveforms/%064x.json", i+1),
		Features:    []float32{float32(i), 1, -1, 0.5},
		Vector:      []float32{float32(i) * 2, 3, 4, 5},
		Energy:      0.5, Highlights: []catalog.Region{{Offset: 5, Duration: 10}},
	}
	if i%2 == 0 {
		t.Album = &catalog.Album{ID: ids.NameUUID("catalogtest/album", fmt.Sprint(i)), Name: "Album", Slug: "album", URL: "https://example.com/a",
			Images: catalog.ImageSizes{Small: "s", Medium: "m", Large: "l"}, Blurhash: "00Jvux"}
		sid := ids.NameUUID("catalogtest/stem", fmt.Sprint(i))
		t.Stems = []catalog.Stem{{ID: sid, Name: "Drums", Length: 30 + i,
			Audio: catalog.AudioRef{MP3Key: "catalog/audio/" + sid + ".mp3", WAVKey: "catalog/audio/" + sid + ".wav", SHA256: fmt.Sprintf("%064x", 1000+i)}}}
	}
	return t
}

// SoundFX returns sound effect i: genres cycling through two, secondary
// genres through three, length 1+i seconds.
func SoundFX(i int) *catalog.SoundFX {
	id := ids.NameUUID("catalogtest/sfx", fmt.Sprint(i))
	return &catalog.SoundFX{ID: id, Name: fmt.Sprintf("Effect %d", i),
		Genre: []string{"Impacts", "Nature"}[i%2], SecondaryGenre: []string{"Hits", "Wind", "Rain"}[i%3], Length: 1 + i,
		Audio: catalog.AudioRef{MP3Key: "catalog/audio/" + id + ".mp3", WAVKey: "catalog/audio/" + id + ".wav", SHA256: fmt.Sprintf("%064x", 2000+i)}}
}

// Contents returns tracks 0..nTracks-1 and sound effects 0..nSFX-1.
func Contents(nTracks, nSFX int) catalog.Contents {
	var c catalog.Contents
	for i := range nTracks {
		c.Tracks = append(c.Tracks, Track(i))
	}
	for i := range nSFX {
		c.SoundFX = append(c.SoundFX, SoundFX(i))
	}
	return c
}

// Publish builds a catalog of c, publishes it to bs as the current one and
// returns it.
func Publish(t testing.TB, bs blob.Store, c catalog.Contents) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Publish(t.Context(), bs, cat); err != nil {
		t.Fatal(err)
	}
	return cat
}
