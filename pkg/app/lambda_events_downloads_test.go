package app

import (
	"context"
	"strings"
	"testing"

	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/httpapi"
)

func init() {
	lambdaEvents["api-downloads"] = httpEvents{
		group: httpapi.GroupDownloads,
		setup: func(t *testing.T, d *Deps) map[string]string {
			tr := publishTestCatalog(t, d).Tracks()[0] // its mp3 is stored; add the wav
			if err := d.Blob.Put(context.Background(), tr.Audio.WAVKey, strings.NewReader("RIFF fake wav"), -1, "audio/wav"); err != nil {
				t.Fatal(err)
			}
			return map[string]string{"TRACK_ID": tr.ID}
		},
		cases: []eventCase{
			{"post-mp3.json", 200, func(t *testing.T, b map[string]any) {
				if u, _ := b["url"].(string); !strings.Contains(u, "/_blob/") || !strings.Contains(u, "filename=") {
					t.Errorf("body %v", b)
				}
			}},
			{"get-wav-redirect.json", 302, nil},
			{"post-both-formats-zip.json", 202, func(t *testing.T, b map[string]any) {
				if b["detail"] != downloads.MsgPreparing {
					t.Errorf("body %v", b)
				}
			}},
			{"post-invalid-type.json", 400, func(t *testing.T, b map[string]any) {
				if b["type"] == nil {
					t.Errorf("body %v", b)
				}
			}},
			{"post-without-token.json", 401, nil},
			{"get-reserved-format.json", 404, nil},
		},
	}
}
