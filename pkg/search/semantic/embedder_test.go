package semantic

import (
	"crypto/sha256"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// top returns the n strongest anchors of text.
func top(t *testing.T, e *Embedder, text string, n int) []string {
	t.Helper()
	v, err := e.Embed(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	r := rankedAnchors(e, v)
	return r[:min(n, len(r))]
}

// TestLexiconChecksum: the embedded lexicon is the one whose checksum the
// generator recorded.
func TestLexiconChecksum(t *testing.T) {
	want, err := os.ReadFile("lexicon.sha256")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(lexiconBin)); !strings.HasPrefix(string(want), got) {
		t.Fatalf("lexicon.bin sha256 %s, recorded %s", got, want)
	}
}

// TestSituations: situations nobody wrote a synonym for land on the
// concepts a music library would tag them with.
func TestSituations(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]string{
		"a rainy afternoon reading": {"calm"},
		"bedtime for a toddler":     {"sleep"},
		"slumber":                   {"sleep"},
		"a wedding ceremony":        {"wedding", "ceremony"},
		"sung by a woman":           {"female"},
		"fighting scene":            {"action", "epic"},
		"gloomy":                    {"sad"},
	} {
		got := top(t, e, text, 4)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: top anchors %v, want %s among them", text, got, w)
			}
		}
		t.Logf("%q → %v", text, got)
	}
	if v, _ := e.Embed(t.Context(), "the of a 🙂 qqqqzz"); v != nil {
		t.Errorf("nothing known, got a vector")
	}
}

func TestShow(t *testing.T) {
	if testing.Short() || os.Getenv("SHOW") == "" {
		t.Skip()
	}
	e, _ := Default()
	for _, w := range strings.Split(os.Getenv("SHOW"), ",") {
		t.Logf("%q → %v", w, top(t, e, w, 8))
	}
}

// TestCompound: two known words written as one mean what the two do; a
// word that is no such pair stays unknown.
func TestCompound(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := e.Embed(t.Context(), "skatepark")
	want, _ := e.Embed(t.Context(), "skate park")
	if got == nil || want == nil {
		t.Fatalf("skatepark %v, skate park %v", got, want)
	}
	var cos float32
	for i := range got {
		cos += got[i] * want[i]
	}
	if cos < 0.99 {
		t.Errorf("skatepark · skate park = %.3f, want the same meaning", cos)
	}
	if !e.Known("skatepark") {
		t.Error("skatepark not known")
	}
	for _, w := range []string{"lindqvist", "xqzvbnmt"} {
		if e.Known(w) {
			t.Errorf("%s known", w)
		}
	}
}
