package manifest_test

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// maxProblemMessage bounds what one problem may say: a message names the
// field and quotes at most a short value, so a hostile manifest cannot make
// the ingest report larger than itself many times over.
const maxProblemMessage = 2048

// FuzzManifestParse parses any bytes as a manifest, read locally or from
// the blob store. Parsing never fails on a readable input, never panics,
// and reports consistently: problems on existing lines, assets in line
// order with one kind each, unique ids, valid audio references, and the
// same answer twice. Seeds: testdata/fuzz/FuzzManifestParse.
func FuzzManifestParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, inBlob bool) {
		base := manifest.LocalBase("/music")
		if inBlob {
			base = manifest.BlobBase("catalog/manifests/2030/m.jsonl")
		}
		m, err := manifest.Parse(bytes.NewReader(data), base)
		if err != nil {
			t.Fatalf("Parse of an in-memory manifest failed: %v", err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		errLines := map[int]bool{}
		for _, p := range slices.Concat(m.Errors, m.Warnings) {
			if p.Line < 1 || p.Line > lines {
				t.Fatalf("problem on line %d of %d: %v", p.Line, lines, p)
			}
			if len(p.Message) > maxProblemMessage || len(p.Field) > maxProblemMessage {
				t.Fatalf("line %d: a problem of %d bytes", p.Line, len(p.Message)+len(p.Field))
			}
		}
		for _, p := range m.Errors {
			errLines[p.Line] = true
		}
		if len(m.Assets)+len(errLines) > lines {
			t.Fatalf("%d assets and %d bad lines from %d lines", len(m.Assets), len(errLines), lines)
		}
		ids := map[string]bool{}
		shortIDs := map[string]bool{}
		for i, a := range m.Assets {
			if i > 0 && a.Line <= m.Assets[i-1].Line {
				t.Fatalf("asset lines out of order: %d after %d", a.Line, m.Assets[i-1].Line)
			}
			if errLines[a.Line] {
				t.Fatalf("line %d is both an asset and an error", a.Line)
			}
			if (a.Track == nil) == (a.SoundFX == nil) {
				t.Fatalf("line %d: asset of no or two kinds", a.Line)
			}
			checkSource(t, a.Line, a.Audio, inBlob)
			assetIDs := []string{a.ID()}
			if tr := a.Track; tr != nil {
				if len(a.Stems) != len(tr.Stems) {
					t.Fatalf("line %d: %d stem sources for %d stems", a.Line, len(a.Stems), len(tr.Stems))
				}
				for j, s := range a.Stems {
					checkSource(t, a.Line, s, inBlob)
					assetIDs = append(assetIDs, tr.Stems[j].ID)
				}
				if tr.Name == "" || tr.Artist.Name == "" || shortIDs[tr.ShortID] {
					t.Fatalf("line %d: track %+v", a.Line, tr)
				}
				shortIDs[tr.ShortID] = true
				if tr.Tempo != nil && !(*tr.Tempo > 0 && *tr.Tempo <= manifest.MaxTempo) {
					t.Fatalf("line %d: tempo %v", a.Line, *tr.Tempo)
				}
			}
			for _, id := range assetIDs {
				if id == "" || ids[id] {
					t.Fatalf("line %d: id %q empty or taken", a.Line, id)
				}
				ids[id] = true
			}
		}
		again, err := manifest.Parse(bytes.NewReader(data), base)
		if err != nil || !reflect.DeepEqual(m, again) {
			t.Fatalf("a second parse differs: %v", err)
		}
	})
}

func checkSource(t *testing.T, line int, s manifest.Source, inBlob bool) {
	t.Helper()
	if (s.Path == "") == (s.Key == "") {
		t.Fatalf("line %d: source %+v names no or two places", line, s)
	}
	if s.Key != "" && blob.ValidateKey(s.Key) != nil {
		t.Fatalf("line %d: invalid blob key %q", line, s.Key)
	}
	if inBlob && s.Path != "" {
		t.Fatalf("line %d: a manifest in the blob store named local file %q", line, s.Path)
	}
}

// FuzzManifestRoundTrip writes a track with the Writer and parses it back:
// what is accepted comes back as written (trimmed where the parser trims),
// and what is refused is refused for a field that was written.
// Seeds: testdata/fuzz/FuzzManifestRoundTrip.
func FuzzManifestRoundTrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, name, artist, genre, lyrics, tag string, tempo float64) {
		for _, s := range []string{name, artist, genre, lyrics, tag} {
			if !utf8.ValidString(s) {
				return // JSON cannot carry it: the Writer would write U+FFFD
			}
		}
		var buf bytes.Buffer
		w := manifest.NewWriter(&buf)
		in := manifest.Track{Name: name, Artist: catalog.Artist{Name: artist}, Genre: genre, Lyrics: lyrics,
			Tags: []string{tag}, Audio: "a.wav"}
		if !math.IsNaN(tempo) && !math.IsInf(tempo, 0) {
			in.Tempo = &tempo
		}
		if err := w.Track(in); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		m, err := manifest.Parse(&buf, manifest.LocalBase("/music"))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Assets) == 0 {
			written := []string{"name", "artist.name", "genre_name", "lyrics", "tags", "tempo"}
			if len(m.Errors) == 0 {
				t.Fatal("refused without a reason")
			}
			for _, p := range m.Errors {
				if !slices.ContainsFunc(written, func(f string) bool { return p.Field == f || strings.HasPrefix(p.Field, f+"[") }) {
					t.Fatalf("refused for %q (%s), a field not written", p.Field, p.Message)
				}
			}
			return
		}
		tr := m.Assets[0].Track
		if tr.Name != strings.TrimSpace(name) || tr.Artist.Name != strings.TrimSpace(artist) ||
			tr.Genre != strings.TrimSpace(genre) || tr.Lyrics != lyrics {
			t.Fatalf("round trip: got %q/%q/%q/%q", tr.Name, tr.Artist.Name, tr.Genre, tr.Lyrics)
		}
		if want := strings.TrimSpace(tag); (want == "") != (len(tr.Tags) == 0) || (want != "" && tr.Tags[0] != want) {
			t.Fatalf("tags %q from %q", tr.Tags, tag)
		}
		if (in.Tempo == nil) != (tr.Tempo == nil) || (tr.Tempo != nil && *tr.Tempo != tempo) {
			t.Fatalf("tempo %v from %v", tr.Tempo, tempo)
		}
	})
}
