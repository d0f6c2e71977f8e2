package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog"
)

func init() { otherEvents["catalog-ingest"] = runCatalogIngestEvents }

// runCatalogIngestEvents stores a manifest and its audio where the sample
// event says, then feeds the events through the function's handler: the
// manifest publishes a catalog (twice: the redelivery changes nothing),
// and an event for a non-manifest object is ignored.
func runCatalogIngestEvents(t *testing.T, dir string) {
	d, _ := newTestDeps(t)
	ctx := context.Background()
	handler := d.CatalogIngestHandler()
	prefix := "catalog-manifests/spring drop/" // the event's key is URL-encoded
	for i, seed := range []uint64{3, 4} {
		pcm, _ := audiotest.Song(22050, 6, seed)
		var wav bytes.Buffer
		if err := decode.WriteWAV(&wav, pcm); err != nil {
			t.Fatal(err)
		}
		name := []string{"one.wav", "two.wav"}[i]
		if err := d.Blob.Put(ctx, prefix+name, &wav, int64(wav.Len()), "audio/wav"); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"kind":"track","name":"Spring One","artist":{"name":"Drop"},"genre_name":"Pop","audio":"one.wav"}
{"kind":"track","name":"Spring Two","artist":{"name":"Drop"},"genre_name":"Pop","audio":"two.wav"}
{"kind":"track","artist":{"name":"Drop"},"audio":"two.wav"}
`
	if err := d.Blob.Put(ctx, prefix+"tracks.jsonl", bytes.NewReader([]byte(manifest)), int64(len(manifest)), "application/x-ndjson"); err != nil {
		t.Fatal(err)
	}
	feed := func(file string) {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		var ev events.S3Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		if err := handler(eventContext(), ev); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}

	feed("other-object.json")
	if _, err := catalog.ReadCurrent(ctx, d.Blob); err == nil {
		t.Fatal("an audio upload published a catalog")
	}
	feed("manifest-uploaded.json")
	cur, err := catalog.ReadCurrent(ctx, d.Blob)
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Load(ctx, d.Blob)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Tracks()); n != 2 { // the nameless record is skipped
		t.Fatalf("%d tracks published, want 2", n)
	}
	feed("manifest-uploaded.json") // S3 delivers at least once
	again, err := catalog.ReadCurrent(ctx, d.Blob)
	if err != nil || again.Version != cur.Version {
		t.Fatalf("redelivery changed the catalog: %v → %v (%v)", cur.Version, again.Version, err)
	}
}
