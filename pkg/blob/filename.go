package blob

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFileNameBytes bounds a client's file name as it is stored (a title
// and a download name, not a path).
const MaxFileNameBytes = 255

// BaseName is the file name a client sent, made safe to store, to show
// and to hand back in a Content-Disposition (AttachmentDisposition): the
// part after the last "/" or "\" (Windows clients send full paths with
// backslashes), invalid UTF-8 and control and format characters removed,
// surrounding space trimmed, at most MaxFileNameBytes bytes (the end,
// with the extension, is kept). "" when nothing is left.
func BaseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	name = strings.TrimSpace(name)
	for len(name) > MaxFileNameBytes {
		_, size := utf8.DecodeRuneInString(name)
		name = name[size:]
	}
	name = strings.TrimSpace(name)
	if name == "." || name == ".." {
		return ""
	}
	return name
}
