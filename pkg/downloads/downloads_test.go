package downloads

import (
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
)

func TestFilename(t *testing.T) {
	long := strings.Repeat("é", 150)
	for _, c := range []struct {
		as     catalog.Asset
		format string
		want   string
	}{
		{catalog.Asset{Kind: "track", Name: "Night Drive (Instrumental)", Artist: "Neon Coast"}, "mp3", "Neon Coast - Night Drive (Instrumental).mp3"},
		{catalog.Asset{Kind: "track", Name: "AC/DC: What?  \t\"Now\"", Artist: " Bänd\u200b "}, "wav", "Bänd - AC_DC_ What_ _Now_.wav"},
		{catalog.Asset{Kind: "soundfx", Name: "Door Slam"}, "wav", "Door Slam.wav"},
		{catalog.Asset{Kind: "soundfx", ID: "abc", Name: "..."}, "mp3", "soundfx-abc.mp3"},
		{catalog.Asset{Kind: "track", Name: long}, "mp3", strings.Repeat("é", 100) + ".mp3"},
	} {
		if got := Filename(c.as, c.format); got != c.want {
			t.Errorf("Filename(%+v) = %q, want %q", c.as, got, c.want)
		}
	}
}

func TestRequestNormalized(t *testing.T) {
	r, err := Request{Type: "track", Formats: []string{"WAV", "mp3", "wav"}, FormatsSent: true}.normalized()
	if err != nil || strings.Join(r.Formats, ",") != "mp3,wav" || !r.zip() {
		t.Errorf("normalized %v %v", r.Formats, err)
	}
	r, err = Request{Type: "stem"}.normalized()
	if err != nil || strings.Join(r.Formats, ",") != "mp3" || r.zip() {
		t.Errorf("default %v %v", r.Formats, err)
	}
	_, err = Request{Type: "soundfx", Formats: []string{"ogg"}, FormatsSent: true, FormatField: "fmt", IncludeStems: true}.normalized()
	if err == nil || !strings.Contains(err.Error(), "fmt") || !strings.Contains(err.Error(), "include_stems") {
		t.Errorf("bad request: %v", err)
	}
}
