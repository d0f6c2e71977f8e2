package background

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"

	"musiccatalog/pkg/audio/fingerprint"
)

// TestBackgroundChecksum: the embedded index is the one whose checksum the
// generator recorded, and it decodes (an index of another format version
// would not).
func TestBackgroundChecksum(t *testing.T) {
	want, err := os.ReadFile("background.sha256")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(indexBytes)); !strings.HasPrefix(string(want), got) {
		t.Fatalf("background.idx sha256 %s, recorded %s", got, want)
	}
	ix, err := Index()
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Tracks()) == 0 || ix.Seconds() < 1200 {
		t.Errorf("background of %d tracks, %.0f s", len(ix.Tracks()), ix.Seconds())
	}
	for _, tr := range ix.Tracks() {
		if !strings.HasPrefix(tr.ID, "background:") {
			t.Errorf("background track %q: IDs start with background: so that no catalog ID repeats one", tr.ID)
		}
	}
}

// TestForSmallCatalogsOnly: the background joins a catalog whose audio
// outside its longest track is under Below seconds – a short catalog, one
// long mix – and not a larger one; no catalog stays none.
func TestForSmallCatalogsOnly(t *testing.T) {
	index := func(seconds ...float64) *fingerprint.Index {
		b := fingerprint.NewBuilder()
		for i, s := range seconds {
			if err := b.Add(fmt.Sprint("t", i), s, []fingerprint.Hash{{Key: 1, Time: 0}}); err != nil {
				t.Fatal(err)
			}
		}
		return b.Build()
	}
	for _, c := range []struct {
		name    string
		ix      *fingerprint.Index
		withBg  bool
		catalog int
	}{
		{"ten minutes", index(600), true, 1},
		{"one mix longer than Below", index(Below + 600), true, 1},
		{"a mix and an hour of songs", index(Below+600, 1800, 1800), true, 3},
		{"two mixes longer than Below", index(Below+600, Below+600), false, 2},
		{"songs adding up to Below", index(Below/2, Below/2, Below/2), false, 3},
	} {
		ix, err := For(c.ix)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ix.HasBackground() != c.withBg || (ix == c.ix) == c.withBg || len(ix.Tracks()) != c.catalog {
			t.Errorf("%s: background %v (want %v), %d tracks listed", c.name, ix.HasBackground(), c.withBg, len(ix.Tracks()))
		}
	}
	if ix, err := For(nil); err != nil || ix != nil {
		t.Errorf("no catalog: %v %v", ix, err)
	}
}

// BenchmarkFor is what the background adds to a small catalog's cold
// start: the embedded index decoded and merged with a catalog of ten
// minutes.
//
//	go test ./pkg/audio/fingerprint/background/ -run '^$' -bench BenchmarkFor -benchtime 20x
func BenchmarkFor(b *testing.B) {
	hs := make([]fingerprint.Hash, 0, 60_000)
	for i := range cap(hs) {
		hs = append(hs, fingerprint.Hash{Key: uint32(i*7919) & (1<<20 - 1), Time: uint32(i / 10)})
	}
	bl := fingerprint.NewBuilder()
	if err := bl.Add("t", 600, hs); err != nil {
		b.Fatal(err)
	}
	catalog := bl.Build()
	for b.Loop() {
		if _, err := For(catalog); err != nil {
			b.Fatal(err)
		}
	}
}
