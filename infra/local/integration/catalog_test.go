package integration

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

// TestCatalogIngestThenSearch: a manifest uploaded under
// catalog-manifests/ runs the catalog-ingest binary through the bucket's
// notification; it publishes a snapshot, and the api-search binary serves
// the new tracks.
func TestCatalogIngestThenSearch(t *testing.T) {
	s := newStack(t, nil, nil)
	files := map[string][]byte{}
	for i, seed := range []uint64{11, 12} {
		pcm, _ := audiotest.Song(22050, 8, seed)
		var wav bytes.Buffer
		if err := decode.WriteWAV(&wav, pcm); err != nil {
			t.Fatal(err)
		}
		files[[]string{"harbor.wav", "lantern.wav"}[i]] = wav.Bytes()
	}
	manifest := `{"kind":"track","name":"Harbor Lights","artist":{"name":"Tide Drop"},"genre_name":"Pop","audio":"harbor.wav"}
{"kind":"track","name":"Lantern Walk","artist":{"name":"Tide Drop"},"genre_name":"Pop","audio":"lantern.wav"}
`
	ingestThroughBinary(t, s, "catalog-manifests/spring drop/", files, manifest)

	r := s.call("ApiSearchFunction", "GET", "/api/v4/search/ai/by-text/", "text="+url.QueryEscape("harbor lights")+"&limit=5", nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("by-text: %d %s", r.Status, r.Body)
	}
	body := r.JSON(t)
	results, _ := body["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("by-text found nothing in the new catalog: %s", r.Body)
	}
	first, _ := results[0].(map[string]any)
	if first["name"] != "Harbor Lights" {
		t.Errorf("first result %v, want Harbor Lights", first)
	}
}
