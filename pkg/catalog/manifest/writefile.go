package manifest

import (
	"io"
	"os"
)

// Write writes the track lines, then the sound-effect lines, to w.
func Write(w io.Writer, tracks []Track, sfx []SoundFX) error {
	mw := NewWriter(w)
	for _, t := range tracks {
		if err := mw.Track(t); err != nil {
			return err
		}
	}
	for _, s := range sfx {
		if err := mw.SoundFX(s); err != nil {
			return err
		}
	}
	return mw.Flush()
}

// WriteFile writes a manifest of these lines at path (Write), replacing
// any file there.
func WriteFile(path string, tracks []Track, sfx []SoundFX) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = Write(f, tracks, sfx)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
