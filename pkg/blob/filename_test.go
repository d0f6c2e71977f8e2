package blob_test

import (
	"strings"
	"testing"

	"musiccatalog/pkg/blob"
)

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{
		`evil\name.mp4`:                    "name.mp4",
		`C:\Users\me\Videos\My Clip.mp4`:   "My Clip.mp4",
		"a/b/c.mov":                        "c.mov",
		"tab\there\x00.mp4\x7f":            "tabhere.mp4",
		"  Übersicht – Ende.mp4 ":          "Übersicht – Ende.mp4",
		"bad\xffutf8.avi":                  "badutf8.avi",
		"rtl\u202eoverride.mp4":            "rtloverride.mp4",
		`..`:                               "",
		`dir\`:                             "",
		strings.Repeat("é", 200) + ".mpeg": strings.Repeat("é", 125) + ".mpeg",
	} {
		got := blob.BaseName(in)
		if got != want {
			t.Errorf("BaseName(%q) = %q, want %q", in, got, want)
		}
		if got != "" {
			if _, err := blob.AttachmentDisposition(got); err != nil {
				t.Errorf("BaseName(%q) = %q is no download name: %v", in, got, err)
			}
		}
	}
}
