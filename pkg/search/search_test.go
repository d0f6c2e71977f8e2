package search

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"sync"
	"testing"

	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/search/similarity"
)

func TestUnderstand(t *testing.T) {
	words := func(q Query) (out []string) {
		for _, g := range q.Groups {
			out = append(out, g[0].phrase)
		}
		return out
	}
	for _, tc := range []struct {
		text     string
		words    []string
		tempo    *Range
		vocals   string
		noVocals bool
		duration *Range
		exclude  int
	}{
		{text: "chill lo-fi beats for studying", words: []string{"chill", "lo fi", "beats", "studying"}},
		{text: "120 BPM house", words: []string{"house"}, tempo: &Range{115, 125}},
		{text: "90-100 bpm", tempo: &Range{90, 100}},
		{text: "between 80 and 95 bpm jazz", words: []string{"jazz"}, tempo: &Range{80, 95}},
		{text: "fast rock with female vocals", words: []string{"rock"}, tempo: &Range{catalog.TempoFastFrom, 300}, vocals: catalog.VocalsFemale},
		{text: "slow piano", words: []string{"piano"}, tempo: &Range{1, catalog.TempoMediumFrom - 0.01}},
		{text: "instrumental", vocals: catalog.VocalsInstrumental},
		{text: "no vocals", vocals: catalog.VocalsInstrumental, noVocals: true},
		{text: "happy song without any singing", words: []string{"happy"}, vocals: catalog.VocalsInstrumental, noVocals: true},
		{text: "calm without drums", words: []string{"calm"}, exclude: 1},
		{text: "a sad song that isn't slow", words: []string{"sad"}, exclude: 1},
		{text: "calm music that doesn’t have drums", words: []string{"calm"}, exclude: 1},
		{text: "only voices, no instruments at all", words: []string{"only", "voices", "all"}, vocals: vocalsAny},
		{text: "choir without accompaniment", words: []string{"choir"}, vocals: vocalsAny},
		{text: "solo cello without accompaniment", words: []string{"solo", "cello"}, exclude: 1},
		{text: "solo piano, no band", words: []string{"solo", "piano"}, exclude: 1},
		{text: "a love song that ain't slow", words: []string{"love"}, exclude: 1},
		{text: "a sad song that isnt slow", words: []string{"sad"}, exclude: 1},
		{text: "calm music that doesnt have drums", words: []string{"calm"}, exclude: 1},
		{text: "happy, don't want vocals", words: []string{"happy"}, vocals: catalog.VocalsInstrumental, noVocals: true},
		{text: "3am and can't sleep", words: []string{"3am", "can", "t", "sleep"}},
		{text: "30 second ident", words: []string{"ident"}, duration: &Range{24, 36}},
		{text: "under 2 minutes", duration: &Range{0, 120}},
		{text: "short happy jingle", words: []string{"happy", "jingle"}, duration: &Range{0, 60}},
		{text: "80s retro", words: []string{"80s", "retro"}},
		{text: "hip hop", words: []string{"hip hop"}},
		{text: "duet", vocals: catalog.VocalsMixed},
	} {
		q := Understand(tc.text, 5)
		if !slices.Equal(words(q), tc.words) || q.Vocals != tc.vocals || q.NoVocals != tc.noVocals || len(q.Exclude) != tc.exclude ||
			!sameRange(q.Tempo, tc.tempo) || !sameRange(q.Duration, tc.duration) {
			t.Errorf("%q: words %v tempo %v vocals %q/%v duration %v exclude %d", tc.text, words(q), q.Tempo, q.Vocals, q.NoVocals, q.Duration, len(q.Exclude))
		}
	}
	// Synonym clusters widen a word.
	g := Understand("chill", 5).Groups[0]
	if !slices.ContainsFunc(g, func(a alt) bool { return a.phrase == "relaxed" && a.weight < 1 }) ||
		!slices.ContainsFunc(Understand("epic", 5).Groups[0], func(a alt) bool { return a.phrase == "cinematic" }) {
		t.Errorf("clusters: %v", g)
	}
}

func sameRange(a, b *Range) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func TestParseFilters(t *testing.T) {
	f, err := ParseFilters(url.Values{
		"genre__terms": {"jazz__ Pop", "Rock"}, "vocals": {"Female Vocals"}, "tempo__terms": {"FAST__slow"},
		"bpm__range": {"90__120"}, "restricted": {"True"}, "title__contains": {" Neon "},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Genres, []string{"jazz", "pop", "rock"}) || !slices.Equal(f.Vocals, []string{"female"}) ||
		!slices.Equal(f.Tempos, []string{"fast", "slow"}) || *f.BPM != (Range{90, 120}) || !*f.Restricted || f.TitleContains != "neon" ||
		f.also != nil {
		t.Errorf("parsed %+v", f)
	}
	_, err = ParseFilters(url.Values{"vocals": {"robot"}, "tempo": {"fsat"}, "bpm__range": {"120__90"}, "duration__range": {"x__1"}, "restricted": {"maybe"}})
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Invalid || len(e.Fields) != 5 {
		t.Fatalf("bad values: %v", err)
	}
	if msg := e.Fields["tempo"][0]; msg != `"fsat" is not a valid choice; use slow, medium, fast. Did you mean "fast"?` {
		t.Errorf("tempo message %q", msg)
	}
	f, _ = ParseFilters(url.Values{"genre": {"rok"}, "subgenre__terms": {"House__tecno"}, "mood": {"qqqqqq"}})
	got := f.didYouMean(map[string][]string{"genre": {"Rock", "Jazz"}, "subgenre": {"House", "Techno"}, "mood": {"Happy"}})
	if len(got) != 2 || got["genre"] != "Rock" || got["subgenre__terms"] != "House__Techno" {
		t.Errorf("did_you_mean %v", got)
	}
}

// TestSingleAndTermsFormsBothNarrow: "genre=Rock&genre__terms=Jazz__Rock"
// is two filters, and filters narrow (interface.md §4.2): a track must
// match both, not either.
func TestSingleAndTermsFormsBothNarrow(t *testing.T) {
	rock := &facets{genre: "rock", mood: "happy", mood2: "sad", vocals: "female", tempo: 150}
	jazz := &facets{genre: "jazz", mood: "calm", vocals: "male", tempo: 80}
	for _, tc := range []struct {
		q          url.Values
		rock, jazz bool
	}{
		{url.Values{"genre": {"Rock"}, "genre__terms": {"Jazz__Rock"}}, true, false},
		{url.Values{"genre": {"Rock"}, "genre__terms": {"Jazz"}}, false, false},
		{url.Values{"genre__terms": {"Jazz__Rock"}}, true, true},
		{url.Values{"mood": {"Happy"}, "mood__terms": {"Sad"}}, true, false}, // mood or secondary mood, each
		{url.Values{"vocals": {"female"}, "vocals__terms": {"male__mixed"}}, false, false},
		{url.Values{"tempo": {"fast"}, "tempo__terms": {"slow"}}, false, false},
		{url.Values{"tempo": {"slow"}, "tempo__terms": {"slow__fast"}}, false, true},
	} {
		f, err := ParseFilters(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if f.empty() || f.match(rock) != tc.rock || f.match(jazz) != tc.jazz {
			t.Errorf("%v: rock %v jazz %v, want %v %v", tc.q, f.match(rock), f.match(jazz), tc.rock, tc.jazz)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"Rock", "Jazz", "Electronic", "Hip Hop", "Ambient"}
	for in, want := range map[string]string{"rok": "Rock", "jaz": "Jazz", "electornic": "Electronic", "hiphop": "Hip Hop", "ambeint": "Ambient", "zzz": "", "ro": ""} {
		got, ok := closest(in, names)
		if got != want || ok != (want != "") {
			t.Errorf("closest(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}

func TestHighlightsIn(t *testing.T) {
	regions := []catalog.Region{{Offset: 8, Duration: 12}, {Offset: 30, Duration: 10}}
	for _, tc := range []struct {
		off, lim float64
		want     []catalog.Region
	}{
		{0, 0, regions},
		{10, 15, []catalog.Region{{Offset: 10, Duration: 10}}},
		{25, 60, []catalog.Region{{Offset: 30, Duration: 10}}},
		{19.8, 5, []catalog.Region{}}, // a 0.2 s sliver is no hook
		{50, 10, []catalog.Region{}},
	} {
		if got := highlightsIn(regions, tc.off, tc.lim, 0); !slices.Equal(got, tc.want) {
			t.Errorf("window %v+%v: %v, want %v", tc.off, tc.lim, got, tc.want)
		}
	}
	// Regions never run past the audio: clipped to the track's length,
	// dropped when they start at or after it.
	for _, tc := range []struct {
		regions     []catalog.Region
		length, lim float64
		want        []catalog.Region
	}{
		{[]catalog.Region{{Offset: 10.5, Duration: 15}}, 25, 0, []catalog.Region{{Offset: 10.5, Duration: 14.5}}},
		{regions, 30, 0, []catalog.Region{{Offset: 8, Duration: 12}}}, // the second starts at the end
		{regions, 35, 60, []catalog.Region{{Offset: 8, Duration: 12}, {Offset: 30, Duration: 5}}},
		{regions, 5, 0, []catalog.Region{}},
	} {
		got := highlightsIn(tc.regions, 0, tc.lim, tc.length)
		if !slices.Equal(got, tc.want) {
			t.Errorf("length %v: %v, want %v", tc.length, got, tc.want)
		}
		for _, r := range got {
			if r.Offset+r.Duration > tc.length {
				t.Errorf("length %v: region %v runs past the end", tc.length, r)
			}
		}
	}
}

func TestByIDAndSimilar(t *testing.T) {
	ix := demoIndex(t, 240)
	seed := ix.tracks[0]
	res, err := ix.ByID(seed.ID, Options{Plan: "enterprise", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != len(ix.tracks)-1 || slices.ContainsFunc(res.Hits, func(h Hit) bool { return h.Track.ID == seed.ID }) {
		t.Errorf("by-id: total %d of %d, seed excluded?", res.Total, len(ix.tracks))
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Fatalf("not ranked at %d", i)
		}
	}
	if _, err := ix.ByID("nope", Options{}); !errs.Is(err, errs.NotFound) {
		t.Errorf("unknown id: %v", err)
	}
	// Similar (the function recognition can call) agrees with the cosine
	// order and honours keep and exclude.
	keep := func(t *catalog.Track) bool { return t.Genre != seed.Genre }
	got := similarity.Similar(ix.cat, seed.Features, keep, seed.ID, 5)
	if len(got) != 5 {
		t.Fatalf("Similar: %d", len(got))
	}
	prev := 2.0
	for _, tr := range got {
		c := float64(similarity.Dot(seed.Features, tr.Features))
		if tr.ID == seed.ID || !keep(tr) || c > prev {
			t.Errorf("Similar: %s (%.3f after %.3f)", tr.ID, c, prev)
		}
		prev = c
	}
	// ByAudio with the seed's own analysis ranks the seed first, unless
	// excluded; a tempo hint alone ranks by tempo.
	ref := &features.Features{Vector: seed.Vector, Tempo: *seed.Tempo}
	res, err = ix.ByAudio(AudioQuery{Features: ref, EnergyHint: -1}, Options{Plan: "enterprise", Limit: 3})
	if err != nil || res.Hits[0].Track.ID != seed.ID {
		t.Errorf("ByAudio of the seed's own audio: %v %v", res.Hits, err)
	}
	res, _ = ix.ByAudio(AudioQuery{Features: ref, EnergyHint: -1, ExcludeID: seed.ID}, Options{Plan: "enterprise", Limit: 100})
	if slices.ContainsFunc(res.Hits, func(h Hit) bool { return h.Track.ID == seed.ID }) {
		t.Errorf("ExcludeID ignored")
	}
	res, _ = ix.ByAudio(AudioQuery{TempoHint: 100, EnergyHint: -1}, Options{Limit: 5, BPMRange: 2, PrioritiseBPM: true})
	for _, h := range res.Hits {
		if d := *h.Track.Tempo - 100; d < -2 || d > 2 {
			t.Errorf("tempo hint 100±2: %v", *h.Track.Tempo)
		}
	}
	if _, err := ix.ByAudio(AudioQuery{EnergyHint: -1}, Options{}); !errs.Is(err, errs.Unprocessable) {
		t.Errorf("ByAudio with nothing to compare: %v", err)
	}
}

type fakeSource struct {
	cat *catalog.Catalog
	err error
}

func (f *fakeSource) Current(context.Context) (*catalog.Catalog, error) { return f.cat, f.err }

type playlists []string

func (p playlists) PlaylistsHolding(_ context.Context, userID string, _ []string) ([]string, error) {
	if userID != "u-1" {
		return nil, errors.New("playlists asked for the wrong user " + userID)
	}
	return p, nil
}

func TestServiceRebuildsPerVersion(t *testing.T) {
	src := &fakeSource{err: errors.New("no snapshot")}
	s := NewService(src, WithPlaylists(playlists{"pl-1"}))
	_, err := s.ByText(t.Context(), "rock", Options{})
	var e *errs.Error
	if !errors.As(err, &e) || e.Status != 500 || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("no snapshot: %v", err)
	}
	c := catalogtest.Contents(6, 2)
	cat1, _ := catalog.New(c)
	src.cat, src.err = cat1, nil
	res, err := s.ByText(t.Context(), "rock", Options{UserID: "u-1"})
	if err != nil || res.Total == 0 || !slices.Equal(res.PlaylistIDs, []string{"pl-1"}) {
		t.Fatalf("v1: %+v %v", res, err)
	}
	// Anonymous callers and partner keys have no playlists.
	if res, err := s.ByText(t.Context(), "rock", Options{}); err != nil || res.PlaylistIDs == nil || len(res.PlaylistIDs) != 0 {
		t.Fatalf("anonymous playlist ids: %+v %v", res.PlaylistIDs, err)
	}
	ix1, _ := s.Index(t.Context())
	c.Tracks[0].Genre = "Polka"
	cat2, _ := catalog.New(c)
	src.cat = cat2
	res, err = s.ByText(t.Context(), "polka", Options{})
	if ix2, _ := s.Index(t.Context()); err != nil || ix2 == ix1 || res.Total != 1 {
		t.Errorf("v2 not indexed: %+v %v", res, err)
	}
}

func TestByTextWithoutMatch(t *testing.T) {
	ix := demoIndex(t, 240)
	for _, text := range []string{"zanzibar marimba", "qqqqqqqq"} {
		res, err := ix.ByText(t.Context(), text, Options{})
		if err != nil || res.Total != 0 || len(res.Hits) != 0 {
			t.Errorf("%q matched %d tracks (%v)", text, res.Total, err)
		}
	}
	// Attribute-only requests rank the whole catalog.
	if res, _ := ix.ByText(t.Context(), "fast", Options{Plan: "enterprise"}); res.Total != len(ix.tracks) || *res.Hits[0].Track.Tempo < catalog.TempoFastFrom {
		t.Errorf("'fast': total %d", res.Total)
	}
	// Exclusions leave out what matches them, whatever else matches.
	res, _ := ix.ByText(t.Context(), "hip hop without trap", Options{Plan: "enterprise", Limit: 100})
	if res.Total == 0 || slices.ContainsFunc(res.Hits, func(h Hit) bool { return h.Track.Subgenre == "Trap" }) {
		t.Errorf("'without trap': %d results", res.Total)
	}
}

// TestConcurrentSearches runs searches side by side (run with -race): the
// concept cache, the pooled buffers and the counters are shared.
func TestConcurrentSearches(t *testing.T) {
	ix := demoIndex(t, 240)
	want := map[string][]string{}
	ids := func(res Result) (out []string) {
		for _, h := range res.Hits {
			out = append(out, h.Track.ID)
		}
		return out
	}
	for _, q := range benchQueries {
		res, err := ix.ByText(t.Context(), q, Options{Plan: "enterprise"})
		if err != nil {
			t.Fatal(err)
		}
		want[q] = ids(res)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for k := range 40 {
				q := benchQueries[(w*7+k)%len(benchQueries)]
				res, err := ix.ByText(t.Context(), q, Options{Plan: "enterprise"})
				if err != nil || !slices.Equal(ids(res), want[q]) {
					t.Errorf("%q differs when run concurrently (%v)", q, err)
					return
				}
				if _, err := ix.ByID(ix.tracks[k].ID, Options{Plan: "enterprise"}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}
