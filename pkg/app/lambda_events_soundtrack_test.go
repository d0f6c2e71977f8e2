package app

import (
	"context"
	"strings"
	"testing"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/soundtrack"
)

func init() {
	detail := func(want string) func(*testing.T, map[string]any) {
		return func(t *testing.T, b map[string]any) {
			if b["detail"] != want {
				t.Errorf("body %v; want detail %q", b, want)
			}
		}
	}
	lambdaEvents["api-soundtrack"] = httpEvents{
		group: httpapi.GroupSoundtrack,
		// The render events need a signed-in user: the demo user.
		setup: func(t *testing.T, d *Deps) map[string]string {
			creds, err := EnsureDemo(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			return map[string]string{"USER_TOKEN": creds.User.Token}
		},
		cases: []eventCase{
			{"upload-url.json", 201, func(t *testing.T, b map[string]any) {
				key, _ := b["storage_key"].(string)
				if !strings.HasPrefix(key, soundtrack.UploadsPrefix) || b["content_type"] != "video/quicktime" || b["upload_url"] == "" {
					t.Errorf("upload-url %v", b)
				}
			}},
			{"create-without-source.json", 400, detail(soundtrack.MsgNeither)},
			{"create-invalid-url.json", 400, detail(soundtrack.MsgBadURL)},
			{"create-without-token.json", 401, detail("Authentication credentials were not provided.")},
			{"create-corrupt-file.json", 422, func(t *testing.T, b map[string]any) {
				if b["error_code"] != "corrupt_media" || b["detail"] == "" {
					t.Errorf("body %v", b)
				}
			}},
			{"retrieve-missing.json", 404, nil},
			{"render-with-partner-key.json", 401, nil},
			{"render-invalid-fields.json", 400, func(t *testing.T, b map[string]any) {
				for _, f := range []string{"track_id", "video_volume", "track_start"} {
					if b[f] == nil {
						t.Errorf("body %v does not name %s", b, f)
					}
				}
			}},
			{"render-missing-video.json", 404, nil},
			{"render-link-missing.json", 404, nil},
		},
	}
}
