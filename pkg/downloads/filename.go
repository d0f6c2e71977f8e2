package downloads

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/catalog"
)

// maxFilenameBytes keeps a saved name under every file system's 255-byte
// limit with room for a browser's " (1)".
const maxFilenameBytes = 200

// Filename is the name a download saves as: "Artist - Title.ext" for tracks
// and stems ("Artist - Title - Stem.ext"), "Name.ext" for sound effects,
// with characters file systems refuse replaced. The exact Unicode name is
// kept; the blob store adds the ASCII fallback.
func Filename(a catalog.Asset, format string) string {
	base := a.Name
	if a.Artist != "" {
		base = a.Artist + " - " + a.Name
	}
	base = cleanName(base)
	if base == "" {
		base = a.Kind + "-" + a.ID
	}
	return base + "." + format
}

// cleanName drops control characters, replaces the characters Windows,
// macOS or a URL path would trip on, collapses spaces and trims the
// result (leading/trailing dots and spaces included) to maxFilenameBytes
// on a rune boundary.
func cleanName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			continue
		case strings.ContainsRune(`/\:*?"<>|`, r):
			r = '_'
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	for len(out) > maxFilenameBytes {
		_, size := utf8.DecodeLastRuneInString(out)
		out = out[:len(out)-size]
	}
	return strings.Trim(out, " .")
}
