package app

import (
	"testing"

	"musiccatalog/pkg/httpapi"
)

func init() {
	lambdaEvents["api-tracks"] = httpEvents{
		group: httpapi.GroupTracks,
		setup: func(t *testing.T, d *Deps) map[string]string {
			return map[string]string{"TRACK_ID": publishTestCatalog(t, d).Tracks()[0].ID}
		},
		cases: []eventCase{
			{"detail-de.json", 200, func(t *testing.T, b map[string]any) {
				if b["name"] != "Track 0" || b["genre_name"] != "Rock (de)" {
					t.Errorf("detail %v", b)
				}
			}},
			{"detail-missing.json", 404, func(t *testing.T, b map[string]any) {
				if b["detail"] == nil {
					t.Errorf("body %v", b)
				}
			}},
			{"stream.json", 302, nil},
			{"waveform.json", 200, func(t *testing.T, b map[string]any) {
				if b["length"] != float64(5) {
					t.Errorf("waveform %v", b)
				}
			}},
		},
	}
}
