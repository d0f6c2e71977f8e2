package playlists

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Slugify derives a URL-friendly slug from a playlist name: accents
// dropped, lower-case ASCII letters and digits, runs of anything else
// one "-", at most maxSlugLength characters; "playlist" when nothing is left.
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r): // combining accents
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
		if b.Len() >= maxSlugLength {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxSlugLength {
		s = strings.TrimRight(s[:maxSlugLength], "-")
	}
	if s == "" {
		return "playlist"
	}
	return s
}

// pickSlug returns base unless taken, else the first free base-N.
func pickSlug(base string, taken map[string]bool) string {
	if !taken[base] {
		return base
	}
	for n := 2; ; n++ {
		s := base + "-" + strconv.Itoa(n)
		if !taken[s] {
			return s
		}
	}
}
