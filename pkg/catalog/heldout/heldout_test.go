package heldout

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/manifest"
)

func TestTracksAreDeterministicPrefixes(t *testing.T) {
	a, b := Tracks(DefaultTracks, DefaultSeed), Tracks(DefaultTracks, DefaultSeed)
	if len(a) < 300 || !reflect.DeepEqual(a, b) {
		t.Fatalf("%d tracks; equal across runs: %v", len(a), reflect.DeepEqual(a, b))
	}
	if small := Tracks(40, DefaultSeed); !reflect.DeepEqual(small, a[:40]) {
		t.Fatal("a smaller catalog is not a prefix of the larger")
	}
	if other := Tracks(40, DefaultSeed+1); reflect.DeepEqual(other, a[:40]) {
		t.Fatal("another seed gives the same catalog")
	}
	isrc := map[string]bool{}
	for _, tr := range a {
		if isrc[tr.Manifest.ISRC] {
			t.Fatalf("ISRC %s twice", tr.Manifest.ISRC)
		}
		isrc[tr.Manifest.ISRC] = true
	}
}

// TestMetadataIsWrittenFromLatent: the facets are the latent attributes,
// the scenes are exactly those whose rule holds, and the audio is rendered
// in a demo style with the stated tempo and vocals.
func TestMetadataIsWrittenFromLatent(t *testing.T) {
	styles := demo.StyleNames()
	for _, tr := range Tracks(DefaultTracks, DefaultSeed) {
		m, l := tr.Manifest, tr.Latent
		if m.Genre != l.Genre || m.Subgenre != l.Subgenre || m.Mood != l.Moods[0] || m.SecondaryMood != l.Moods[len(l.Moods)-1] ||
			*m.Tempo != l.BPM || m.Vocals != catalogVocals(l.Voice) {
			t.Fatalf("%s: manifest %+v does not state latent %+v", m.Name, m, l)
		}
		var want []string
		for _, s := range scenes {
			if s.fits(&l) {
				want = append(want, s.id)
			}
		}
		if !slices.Equal(want, l.Scenes) {
			t.Fatalf("%s: scenes %v, rules say %v", m.Name, l.Scenes, want)
		}
		if !slices.Contains(styles, tr.Sound.Style) || tr.Sound.BPM != l.BPM || (tr.Sound.Vocals == "") != (l.Voice == VoiceNone) {
			t.Fatalf("%s: sound %+v for latent %+v", m.Name, tr.Sound, l)
		}
		if (l.Voice == VoiceChoir) != slices.Contains(l.Instruments, "choir") {
			t.Fatalf("%s: voice %s with instruments %v", m.Name, l.Voice, l.Instruments)
		}
	}
}

// TestDescriptionsAvoidFacetNames: the point of the set is that a track is
// described in other words than its facets, so no description names a
// genre, subgenre, mood, vocals value or tempo band, and they vary.
func TestDescriptionsAvoidFacetNames(t *testing.T) {
	var names []string
	for _, sg := range subgenres {
		names = append(names, sg.genre, sg.name)
	}
	for m := range moodEnergy {
		names = append(names, m)
	}
	names = append(names, catalog.VocalsValues...)
	names = append(names, catalog.TempoSlow, catalog.TempoMedium, catalog.TempoFast)
	var alts []string
	for _, n := range names {
		alts = append(alts, regexp.QuoteMeta(strings.ToLower(n)))
	}
	facet := regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
	seen := map[string]bool{}
	for _, tr := range Tracks(DefaultTracks, DefaultSeed) {
		d := tr.Manifest.Description
		if w := facet.FindString(strings.ToLower(d)); w != "" {
			t.Errorf("%s names the facet %q: %s", tr.Manifest.Name, w, d)
		}
		if seen[d] {
			t.Errorf("description repeated: %s", d)
		}
		seen[d] = true
	}
}

// TestQueriesJudgeTheCatalog: at least 100 queries, each with something
// to find (tracks at grade 2 or more) and something to miss, and graded
// (not every relevant track at the same grade for every query).
func TestQueriesJudgeTheCatalog(t *testing.T) {
	qs, err := Queries()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 100 {
		t.Fatalf("%d queries; the held-out set needs at least 100", len(qs))
	}
	tracks := Tracks(DefaultTracks, DefaultSeed)
	texts := map[string]bool{}
	graded := 0
	for _, q := range qs {
		if texts[q.Text] {
			t.Errorf("%q twice", q.Text)
		}
		texts[q.Text] = true
		var n [MaxGrade + 1]int
		for i := range tracks {
			n[q.Grade(&tracks[i].Latent)]++
		}
		if n[2]+n[3] < 2 || n[0] < len(tracks)/2 {
			t.Errorf("%q: grades 0..3 count %v: too little to find or too much", q.Text, n)
		}
		if n[1] > 0 && n[2]+n[3] > 0 {
			graded++
		}
	}
	if graded < len(qs)*3/4 {
		t.Errorf("only %d of %d queries grade relevance in more than one step", graded, len(qs))
	}
}

func TestConditionHolds(t *testing.T) {
	l := &Latent{Genre: "Jazz", Subgenre: "Lounge", Moods: []string{"Calm", "Romantic"}, Energy: 0.3, BPM: 80,
		Voice: VoiceFemale, Instruments: []string{"saxophone"}, Scenes: []string{"romantic-evening"}}
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		c    Condition
		want bool
	}{
		{Condition{Mood: []string{"Sad", "Romantic"}}, true},
		{Condition{Mood: []string{"Romantic"}, Voice: []string{VoiceMale}}, false},
		{Condition{Scene: []string{"romantic-evening"}, EnergyMax: f(0.3)}, true},
		{Condition{EnergyMin: f(0.31)}, false},
		{Condition{BPMMin: f(80), BPMMax: f(80)}, true},
		{Condition{NotMood: []string{"Calm"}}, false},
		{Condition{NotVoice: []string{VoiceNone}, Instrument: []string{"saxophone"}}, true},
	} {
		if got := c.c.Holds(l); got != c.want {
			t.Errorf("%+v holds: %v, want %v", c.c, got, c.want)
		}
	}
	q := Query{Aspects: []Aspect{{2, Condition{Genre: []string{"Jazz"}}}, {2, Condition{Voice: []string{VoiceFemale}}}}}
	if g := q.Grade(l); g != MaxGrade {
		t.Errorf("grade %d, want the cap %d", g, MaxGrade)
	}
	if err := (Condition{Mood: []string{"Chill"}}).check(vocabulary()); err == nil {
		t.Error("a mood outside the taxonomy passed the check")
	}
}

func TestGenerateWritesAValidCatalog(t *testing.T) {
	dir := t.TempDir()
	path, err := Generate(t.Context(), dir, 3, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Errors)+len(m.Warnings) != 0 || len(m.Assets) != 3 {
		t.Fatalf("manifest: %d assets, errors %v, warnings %v", len(m.Assets), m.Errors, m.Warnings)
	}
	want := Tracks(3, DefaultSeed)
	for i, as := range m.Assets {
		if as.Track == nil || as.Track.ISRC != want[i].Manifest.ISRC || as.Track.Subgenre != want[i].Latent.Subgenre {
			t.Fatalf("asset %d: %+v", i, as.Track)
		}
		if fi, err := os.Stat(as.Audio.Path); err != nil || fi.Size() < 15*demo.SampleRate*2 {
			t.Fatalf("asset %d audio: %v %v", i, fi, err)
		}
	}
	if _, err := Generate(t.Context(), dir, 0, DefaultSeed); err == nil {
		t.Error("an empty catalog was generated")
	}
}
