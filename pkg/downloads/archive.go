package downloads

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// LicenseFile is the name of the text entry with the track's facts.
const LicenseFile = "LICENSE.txt"

// stemsDir holds the stems in an archive with include_stems.
const stemsDir = "Stems/"

// Entry is one audio file of an archive: its name in the archive and the
// rendition it copies.
type Entry struct {
	Name string
	Key  string
}

// Entries lists the audio files of the archive for as and req: the asset
// in each asked format, then (include_stems) each stem of the track in
// each format under Stems/. Names are the download names (Filename), made
// unique by " (2)", " (3)"… before the extension. A missing rendition is a
// *BuildError.
func Entries(as catalog.Asset, req Request) ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	add := func(dir string, a catalog.Asset) error {
		for _, f := range req.Formats {
			key := a.Audio.MP3Key
			if f == FormatWAV {
				key = a.Audio.WAVKey
			}
			if key == "" {
				return &BuildError{Reason: fmt.Sprintf(reasonNoRendered, f) + " (" + a.Name + ")"}
			}
			name := dir + Filename(a, f)
			for i := 2; seen[strings.ToLower(name)]; i++ {
				base := dir + strings.TrimSuffix(Filename(a, f), "."+f)
				name = base + " (" + strconv.Itoa(i) + ")." + f
			}
			seen[strings.ToLower(name)] = true // case-insensitive file systems
			out = append(out, Entry{Name: name, Key: key})
		}
		return nil
	}
	if err := add("", as); err != nil {
		return nil, err
	}
	if req.IncludeStems && as.Track != nil {
		for _, st := range as.Track.Stems {
			sa := catalog.Asset{Kind: catalog.KindStem, ID: st.ID, Track: as.Track, Audio: st.Audio,
				Name: as.Track.DisplayName() + " - " + st.Name, Artist: as.Artist}
			if err := add(stemsDir, sa); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// BuildError is a build that cannot succeed however often it is retried
// (a source missing): Step Functions sees the error name "BuildError" and
// does not retry it. Reason is what the client is told.
type BuildError struct{ Reason string }

func (e *BuildError) Error() string { return e.Reason }

// WriteArchive streams the archive of entries and the license text into
// w: every audio entry stored as it is (zip.Store; audio does not
// deflate), read from src one at a time, so memory does not grow with the
// archive. It returns the bytes of audio copied. A source missing from src
// is a *BuildError.
func WriteArchive(ctx context.Context, w io.Writer, src blob.Store, entries []Entry, license string, modified time.Time) (int64, error) {
	zw := zip.NewWriter(w)
	var total int64
	for _, e := range entries {
		n, err := copyEntry(ctx, zw, src, e, modified)
		if err != nil {
			return total, err
		}
		total += n
	}
	lw, err := zw.CreateHeader(&zip.FileHeader{Name: LicenseFile, Method: zip.Deflate, Modified: modified})
	if err != nil {
		return total, err
	}
	if _, err := io.WriteString(lw, license); err != nil {
		return total, err
	}
	return total, zw.Close()
}

func copyEntry(ctx context.Context, zw *zip.Writer, src blob.Store, e Entry, modified time.Time) (int64, error) {
	r, _, err := src.Get(ctx, e.Key)
	if errors.Is(err, blob.ErrNotFound) {
		return 0, &BuildError{Reason: fmt.Sprintf(reasonNoSource, e.Name)}
	}
	if err != nil {
		return 0, err
	}
	defer r.Close()
	hdr := &zip.FileHeader{Name: e.Name, Method: zip.Store, Modified: modified}
	hdr.SetMode(0o644)
	ew, err := zw.CreateHeader(hdr)
	if err != nil {
		return 0, err
	}
	return io.Copy(ew, r)
}

// LicenseText is the LICENSE.txt of an archive: what the files are, the
// track's facts (title, artist, album, ISRC, label, writers, publishers,
// release date) and the terms the download was made under. It holds
// nothing of the requesting client: identical requests share the archive.
func LicenseText(as catalog.Asset, entries []Entry, built time.Time) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-13s %s\n", k+":", v)
		}
	}
	b.WriteString("LICENSE AND TRACK INFORMATION\n=============================\n\n")
	line("Title", as.Name)
	line("Artist", as.Artist)
	line("Asset", as.Kind+" "+as.ID)
	if t := as.Track; t != nil {
		if t.Album != nil {
			line("Album", t.Album.Name)
		}
		line("ISRC", t.ISRC)
		line("Label", t.Label)
		line("Library", t.LibraryName)
		line("Released", t.ReleaseDate)
		if t.Length > 0 {
			line("Length", fmt.Sprintf("%d:%02d", t.Length/60, t.Length%60))
		}
		if t.Tempo != nil {
			line("Tempo", fmt.Sprintf("%.0f BPM", *t.Tempo))
		}
		if t.Key != nil {
			line("Key", *t.Key)
		}
		line("Writers", holders(t.Writers))
		line("Publishers", holders(t.Publishers))
	}
	line("Built", built.UTC().Format(time.RFC3339))
	b.WriteString("\nFiles:\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "  %s\n", e.Name)
	}
	b.WriteString("\nTerms:\n" +
		"This music is licensed to the account that downloaded it, under that account's agreement\n" +
		"and plan. It may be used in productions that agreement covers; it may not be resold,\n" +
		"redistributed as music, or registered with a content identification system.\n" +
		"To clear a published video against a Content ID claim, generate a license for it\n" +
		"(POST /api/v1/licenses/generate) and submit its license page.\n")
	return b.String()
}

func holders(hs []catalog.RightsHolder) string {
	var parts []string
	for _, h := range hs {
		s := h.Name
		if h.PRO != "" {
			s += " (" + h.PRO + ")"
		}
		if h.Share > 0 {
			s += fmt.Sprintf(" %g%%", h.Share)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
