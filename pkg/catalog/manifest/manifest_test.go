package manifest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
	"musiccatalog/pkg/ids"
)

const validTrack = `{"kind":"track","name":"Night Drive","artist":{"name":"The Owls"},"audio":"a.wav"}`

func parse(t *testing.T, lines ...string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Parse(strings.NewReader(strings.Join(lines, "\n")), manifest.LocalBase("/music"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecordValidation feeds each record after a valid one, so the
// problem must be reported on line 2 and the valid record must still go in.
func TestRecordValidation(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		field      string // of the error; "" when the record is valid
		msg        string // part of the message
	}{
		{"not JSON", `{"kind":"track",`, "", "invalid JSON"},
		{"trailing garbage", validTrack + ` x`, "", "invalid"},
		{"not an object", `[1,2]`, "", "expected"},
		{"no kind", `{"name":"x"}`, "kind", "missing"},
		{"stem kind", `{"kind":"stem","name":"x"}`, "kind", "stems"},
		{"unknown kind", `{"kind":"album"}`, "kind", `"album"`},
		{"wrong type", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","tempo":"fast"}`, "", "tempo: expected a number"},
		{"no name", `{"kind":"track","artist":{"name":"a"},"audio":"a.wav"}`, "name", "required"},
		{"blank name", `{"kind":"track","name":"  ","artist":{"name":"a"},"audio":"a.wav"}`, "name", "required"},
		{"no artist", `{"kind":"track","name":"x","audio":"a.wav"}`, "artist.name", "required"},
		{"no audio", `{"kind":"track","name":"x","artist":{"name":"a"}}`, "audio", "required"},
		{"url audio", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"https://x/a.wav"}`, "audio", "relative"},
		{"bad blob key", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"blob:../a.wav"}`, "audio", "blob key"},
		{"bad id", `{"kind":"track","id":"42","name":"x","artist":{"name":"a"},"audio":"a.wav"}`, "id", "not a UUID"},
		{"tempo zero", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","tempo":0}`, "tempo", "more than 0"},
		{"tempo huge", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","tempo":900}`, "tempo", "at most"},
		{"bad key", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","key":"H minor"}`, "key", "A minor"},
		{"bad vocals", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","vocals":"choir"}`, "vocals", "instrumental"},
		{"bad tier", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","access_tier":"gold"}`, "access_tier", "enterprise"},
		{"bad date", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","release_date":"2024-13-01"}`, "release_date", "YYYY-MM-DD"},
		{"bad isrc", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","isrc":"123"}`, "isrc", "CC-XXX"},
		{"bad share", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","writers":[{"name":"w","share":150}]}`, "writers[0].share", "percentage"},
		{"bad locale", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","translations":{"German":{"genre_name":"x"}}}`, "translations.German", "locale"},
		{"stem without name", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","stems":[{"audio":"s.wav"}]}`, "stems[0].name", "required"},
		{"stem without audio", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","stems":[{"name":"Drums"}]}`, "stems[0].audio", "required"},
		{"stem twice", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","stems":[{"name":"Drums","audio":"1.wav"},{"name":"drums","audio":"2.wav"}]}`, "stems[1].name", "twice"},
		{"album without name", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","album":{"slug":"x"}}`, "album.name", "required"},
		{"sfx without name", `{"kind":"soundfx","audio":"a.wav"}`, "name", "required"},
		{"derived id taken", validTrack, "id", "line 1"},
		{"explicit id taken", `{"kind":"soundfx","id":"` + manifest.TrackID("", "The Owls", "Night Drive", "") + `","name":"x","audio":"a.wav"}`, "id", "already used on line 1"},
		{"short id taken", `{"kind":"track","name":"y","artist":{"name":"a"},"audio":"a.wav","short_id":"` + manifest.ShortID(manifest.TrackID("", "The Owls", "Night Drive", "")) + `"}`, "short_id", "line 1"},

		{"minimal valid track", `{"kind":"track","name":"y","artist":{"name":"a"},"audio":"a.wav"}`, "", ""},
		{"other variant is another track", `{"kind":"track","name":"Night Drive","variant":"Instrumental","artist":{"name":"The Owls"},"audio":"a.wav"}`, "", ""},
		{"valid sfx", `{"kind":"soundfx","name":"Boom","genre_name":"Impacts","audio":"blob:catalog-manifests/boom.wav"}`, "", ""},
		{"published audio", `{"kind":"soundfx","name":"Boom","audio":"blob:catalog/audio/x.wav"}`, "", ""},

		// Limits: lengths in characters, counts, and where audio may come from.
		{"title too long", `{"kind":"track","name":"` + strings.Repeat("x", manifest.MaxNameChars+1) + `","artist":{"name":"a"},"audio":"a.wav"}`, "name", "at most 200"},
		{"title at the limit in characters", `{"kind":"track","name":"` + strings.Repeat("夜", manifest.MaxNameChars) + `","artist":{"name":"a"},"audio":"a.wav"}`, "", ""},
		{"description too long", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","description":"` + strings.Repeat("d", manifest.MaxDescriptionChars+1) + `"}`, "description", "at most"},
		{"translated description too long", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","translations":{"de":{"description":"` + strings.Repeat("d", manifest.MaxDescriptionChars+1) + `"}}}`, "translations.de.description", "at most"},
		{"too many tags", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","tags":` + jsonList(manifest.MaxTags+1, `"t%d"`) + `}`, "tags", "at most 50"},
		{"too many stems", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","stems":` + jsonList(manifest.MaxStems+1, `{"name":"s%d","audio":"s.wav"}`) + `}`, "stems", "at most 32"},
		{"too many translations", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","translations":{` + strings.Trim(jsonList(manifest.MaxTranslations+1, `"x%d":{}`), "[]") + `}}`, "translations", "at most"},
		{"too many writers", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","writers":` + jsonList(manifest.MaxRightsHolders+1, `{"name":"w%d","share":1}`) + `}`, "writers", "at most"},
		{"sfx name too long", `{"kind":"soundfx","name":"` + strings.Repeat("b", manifest.MaxNameChars+1) + `","audio":"a.wav"}`, "name", "at most"},
		{"blob of a recognition upload", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"blob:video-recognition/c1/j/clip.mp4"}`, "audio", "outside the catalog"},
		{"stem blob of a soundtrack upload", `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","stems":[{"name":"D","audio":"blob:soundtrack/media/0123.mp4"}]}`, "stems[0].audio", "outside the catalog"},
		{"blob of the catalog pointer", `{"kind":"soundfx","name":"x","audio":"blob:catalog/current.json"}`, "audio", "outside the catalog"},
		{"incomplete rights are kept", `{"kind":"track","name":"y","artist":{"name":"a"},"audio":"a.wav","writers":[{"name":"","share":30}]}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parse(t, validTrack, tc.line)
			if tc.field == "" && tc.msg == "" {
				if len(m.Errors) != 0 || len(m.Assets) != 2 {
					t.Fatalf("valid record: errors %v, %d assets", m.Errors, len(m.Assets))
				}
				return
			}
			if len(m.Assets) != 1 || m.Assets[0].Line != 1 {
				t.Fatalf("want only line 1 in, got %d assets", len(m.Assets))
			}
			if len(m.Errors) == 0 {
				t.Fatal("no error reported")
			}
			e := m.Errors[0]
			if e.Line != 2 || e.Field != tc.field || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("got %+v (%v), want line 2, field %q, message with %q", e, e, tc.field, tc.msg)
			}
		})
	}
}

// jsonList is a JSON array of n items, each format with its index.
func jsonList(n int, format string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(format, i)
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestLineNumbersBlankLinesAndAllProblemsOfARecord(t *testing.T) {
	m := parse(t,
		"\ufeff"+validTrack,
		"",
		"   ",
		`{"kind":"track","name":"","artist":{},"audio":"","tempo":-1}`,
		`{"kind":"soundfx","name":"Boom","audio":"b.wav"}`,
	)
	if len(m.Assets) != 2 || m.Assets[0].Line != 1 || m.Assets[1].Line != 5 {
		t.Fatalf("assets %+v", m.Assets)
	}
	var fields []string
	for _, e := range m.Errors {
		if e.Line != 4 {
			t.Errorf("error on line %d: %v", e.Line, e)
		}
		fields = append(fields, e.Field)
	}
	if want := []string{"name", "artist.name", "tempo", "audio"}; !reflect.DeepEqual(fields, want) {
		t.Fatalf("fields %v, want %v", fields, want)
	}
}

func TestUnknownFieldsWarn(t *testing.T) {
	m := parse(t, `{"kind":"track","name":"x","artist":{"name":"a","country":"SE"},"audio":"a.wav","mood":"Happy",`+
		`"writers":[{"name":"w","share":100,"email":"w@x"}],"translations":{"de":{"genre_name":"Rock","notes":"?"}},`+
		`"stems":[{"name":"Drums","audio":"d.wav","gain":1}],"jp_title":"x","is_free":true,"length":30,"NAME":"ignored case"}`)
	if len(m.Errors) != 0 || len(m.Assets) != 1 {
		t.Fatalf("errors %v", m.Errors)
	}
	var got []string
	for _, w := range m.Warnings {
		if w.Line != 1 || w.Message != "unknown field, ignored" {
			t.Errorf("warning %v", w)
		}
		got = append(got, w.Field)
	}
	want := []string{"artist.country", "mood", "stems[0].gain", "translations.de.notes", "writers[0].email"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unknown fields %v, want %v", got, want)
	}
}

func TestDerivedFields(t *testing.T) {
	m := parse(t,
		`{"kind":"track","name":" Night Drive-JP ","variant":"Instrumental","artist":{"name":"夜明けバンド"},"library_name":"Feed",`+
			`"album":{"name":"First Light"},"vocals":"Female","key":"f#m","isrc":"qz-dmo-24-00001","tags":[" a","A","b",""],`+
			`"stems":[{"name":"Drums","audio":"stems/d.wav"}],"audio":"/abs/a.ogg"}`,
		`{"kind":"soundfx","name":"Boom","genre_name":"Impacts","secondary_genre_name":"Hits","audio":"b.wav"}`,
	)
	if len(m.Errors) != 0 || len(m.Assets) != 2 {
		t.Fatalf("errors %v", m.Errors)
	}
	tr := m.Assets[0].Track
	wantID := manifest.TrackID("Feed", "夜明けバンド", "Night Drive-JP", "Instrumental")
	if tr.ID != wantID || !ids.IsUUID(tr.ID) {
		t.Fatalf("id %s, want %s", tr.ID, wantID)
	}
	if again := parse(t, `{"kind":"track","name":"Night Drive-JP","variant":"Instrumental","artist":{"name":"夜明けバンド"},"library_name":"Feed","audio":"x.wav"}`); again.Assets[0].Track.ID != tr.ID {
		t.Fatal("the derived id depends on more than library, artist, name and variant")
	}
	checks := map[string][2]any{
		"name":        {tr.Name, "Night Drive-JP"},
		"artist slug": {strings.HasPrefix(tr.Artist.Slug, "x-"), true},
		"album id":    {tr.Album.ID, manifest.AlbumID("夜明けバンド", "First Light")},
		"album slug":  {tr.Album.Slug, "first-light"},
		"vocals":      {tr.Vocals, "female"},
		"key":         {*tr.Key, "F# minor"},
		"isrc":        {tr.ISRC, "QZDMO2400001"},
		"tags":        {fmt.Sprint(tr.Tags), "[a b]"},
		"tier":        {tr.AccessTier, catalog.TierFree},
		"short id":    {tr.ShortID, manifest.ShortID(tr.ID)},
		"stem id":     {tr.Stems[0].ID, manifest.StemID(tr.ID, "Drums")},
		"audio":       {m.Assets[0].Audio, manifest.Source{Path: "/abs/a.ogg"}},
		"stem audio":  {m.Assets[0].Stems[0], manifest.Source{Path: filepath.Join("/music", "stems/d.wav")}},
		"tempo":       {tr.Tempo == nil, true},
		"sfx id":      {m.Assets[1].SoundFX.ID, manifest.SoundFXID("Boom", "Impacts", "Hits")},
	}
	for what, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s: got %v, want %v", what, c[0], c[1])
		}
	}
	if len(tr.ShortID) != 8 {
		t.Errorf("short id %q", tr.ShortID)
	}
}

func TestMissingVocalsIsUnknown(t *testing.T) {
	if v := parse(t, validTrack).Assets[0].Track.Vocals; v != catalog.VocalsUnknown {
		t.Fatalf("vocals %q", v)
	}
}

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{"A minor": "A minor", "a min": "A minor", "Am": "A minor", "C": "C major",
		"CM": "C major", "bb minor": "Bb minor", "F♯ major": "F# major", "Eb": "Eb major", "G maj": "G major"} {
		if got, ok := manifest.NormalizeKey(in); !ok || got != want {
			t.Errorf("NormalizeKey(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "H", "A dorian", "minor", "A# #"} {
		if got, ok := manifest.NormalizeKey(in); ok {
			t.Errorf("NormalizeKey(%q) = %q, want rejected", in, got)
		}
	}
}

func TestBlobBase(t *testing.T) {
	lines := strings.Join([]string{
		`{"kind":"soundfx","name":"a","audio":"audio/a.wav"}`,
		`{"kind":"soundfx","name":"b","audio":"blob:catalog-manifests/elsewhere/b.wav"}`,
		`{"kind":"soundfx","name":"c","audio":"/etc/passwd"}`,
		`{"kind":"soundfx","name":"d","audio":"../../../d.wav"}`,
		`{"kind":"soundfx","name":"e","audio":"../../video-recognition/c1/j/clip.mp4"}`,
	}, "\n")
	m, err := manifest.Parse(strings.NewReader(lines), manifest.BlobBase("catalog-manifests/2025/catalog.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Assets) != 2 || m.Assets[0].Audio.Key != "catalog-manifests/2025/audio/a.wav" || m.Assets[1].Audio.Key != "catalog-manifests/elsewhere/b.wav" {
		t.Fatalf("assets %+v", m.Assets)
	}
	if len(m.Errors) != 3 || m.Errors[0].Line != 3 || m.Errors[1].Line != 4 || m.Errors[2].Line != 5 {
		t.Fatalf("errors %v", m.Errors)
	}
}

func TestLongLineIsSkipped(t *testing.T) {
	long := `{"kind":"track","name":"x","artist":{"name":"a"},"audio":"a.wav","lyrics":"` + strings.Repeat("la ", manifest.MaxLineBytes/3+10) + `"}`
	m := parse(t, validTrack, long, `{"kind":"soundfx","name":"Boom","audio":"b.wav"}`)
	if len(m.Assets) != 2 || m.Assets[1].Line != 3 || len(m.Errors) != 1 || m.Errors[0].Line != 2 {
		t.Fatalf("assets %d, errors %v", len(m.Assets), m.Errors)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := manifest.NewWriter(&buf)
	tempo := 128.0
	if err := w.Track(manifest.Track{Name: "A & B <live>", Tempo: &tempo, Artist: catalog.Artist{Name: "X"}, Audio: "a.wav",
		Translations: map[string]catalog.Translation{"ja": {Genre: "ロック"}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.SoundFX(manifest.SoundFX{Name: "Boom", Audio: "b.wav"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "A & B <live>") {
		t.Fatalf("HTML escaped: %s", buf.String())
	}
	m, err := manifest.Parse(&buf, manifest.LocalBase("/m"))
	if err != nil || len(m.Assets) != 2 || len(m.Errors)+len(m.Warnings) != 0 {
		t.Fatalf("%v %+v", err, m)
	}
	if tr := m.Assets[0].Track; *tr.Tempo != 128 || tr.Translations["ja"].Genre != "ロック" || m.Assets[1].SoundFX.Name != "Boom" {
		t.Fatalf("round trip lost data: %+v", tr)
	}
}

// TestReadmeExampleParses keeps the README's manifest example valid.
func TestReadmeExampleParses(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "### Catalog manifest")
	_, block, ok2 := strings.Cut(rest, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no manifest example")
	}
	m, err := manifest.Parse(strings.NewReader(block), manifest.LocalBase("/music"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Errors) > 0 || len(m.Warnings) > 0 || len(m.Assets) != 2 {
		t.Fatalf("README example: %d assets, errors %v, warnings %v", len(m.Assets), m.Errors, m.Warnings)
	}
}
