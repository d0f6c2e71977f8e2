package blob

import (
	"mime"
	"testing"
)

func TestAttachmentDisposition(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Neon Coast - Night Drive.mp3", `attachment; filename="Neon Coast - Night Drive.mp3"`},
		{"Café Ünïcode.wav", `attachment; filename="Cafe Unicode.wav"; filename*=UTF-8''Caf%C3%A9%20%C3%9Cn%C3%AFcode.wav`},
		{"東京 Drift.mp3", `attachment; filename="__ Drift.mp3"; filename*=UTF-8''%E6%9D%B1%E4%BA%AC%20Drift.mp3`},
	} {
		got, err := AttachmentDisposition(c.name)
		if err != nil || got != c.want {
			t.Errorf("AttachmentDisposition(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
		// Every client that reads filename* gets the exact name back.
		if _, params, err := mime.ParseMediaType(got); err != nil || params["filename"] != c.name {
			t.Errorf("%q parses as %q (%v)", got, params, err)
		}
	}
	for _, bad := range []string{"", " ", "a/b.mp3", "a\nb.mp3"} {
		if _, err := AttachmentDisposition(bad); err == nil {
			t.Errorf("AttachmentDisposition(%q) accepted", bad)
		}
	}
}
