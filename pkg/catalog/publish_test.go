package catalog_test

import (
	"errors"
	"io"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
)

// TestPublishStoresArtifacts: the artifacts of a version are stored next
// to its snapshot when it is published, and a republish of the current
// version adds the ones it lacks without building the others again; a
// failing build publishes nothing.
func TestPublishStoresArtifacts(t *testing.T) {
	bs := catalogtest.NewStore(t)
	cat, err := catalog.New(catalogtest.Contents(3, 0))
	if err != nil {
		t.Fatal(err)
	}
	builds := map[string]int{}
	art := func(name string) catalog.Artifact {
		return catalog.Artifact{Name: name, Build: func(c *catalog.Catalog) ([]byte, error) {
			builds[name]++
			return []byte(name + " of " + c.Version()), nil
		}}
	}
	broken := catalog.Artifact{Name: "broken", Build: func(*catalog.Catalog) ([]byte, error) { return nil, errors.New("no") }}
	if _, err := catalog.Publish(t.Context(), bs, cat, broken); err == nil {
		t.Fatal("a failing artifact published")
	}
	if _, err := catalog.ReadCurrent(t.Context(), bs); !errors.Is(err, catalog.ErrNoCatalog) {
		t.Fatalf("pointer after a failed publish: %v", err)
	}
	if ok, err := catalog.Publish(t.Context(), bs, cat, art("text")); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if ok, err := catalog.Publish(t.Context(), bs, cat, art("text"), art("more")); err != nil || ok {
		t.Fatal(ok, err)
	}
	for name, want := range map[string]int{"text": 1, "more": 1} {
		if builds[name] != want {
			t.Errorf("%s built %d times", name, builds[name])
		}
		rc, _, err := bs.Get(t.Context(), catalog.ArtifactKey(cat.Version(), name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != name+" of "+cat.Version() {
			t.Errorf("%s: %q", name, b)
		}
	}
}
