package search

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// Unknown genre, subgenre and mood values are field errors (§7.2: invalid
// filter value → 400) unless they are near enough to a catalog value to be
// a typo, which stays a match-nothing filter with did_you_mean.
func TestUnknownFilterValues(t *testing.T) {
	ix := demoIndex(t, 240)
	fieldErr := func(q url.Values) map[string][]string {
		t.Helper()
		f, err := ParseFilters(q)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ix.ByText(t.Context(), "energetic", Options{Filters: f})
		var e *errs.Error
		if err == nil {
			return nil
		}
		if !errors.As(err, &e) || e.Kind != errs.Invalid {
			t.Fatalf("%v: %v", q, err)
		}
		return e.Fields
	}
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		q     url.Values
		param string
	}{
		{url.Values{"genre": {"Metal"}}, "genre"},
		{url.Values{"mood": {"Angry"}}, "mood"},
		{url.Values{"subgenre": {long}}, "subgenre"},
		{url.Values{"genre__terms": {"rock__Metal"}}, "genre__terms"},
		{url.Values{"mood__terms": {"Happy__qqqqqq"}}, "mood__terms"},
	} {
		got := fieldErr(tc.q)
		msgs := got[tc.param]
		if len(got) != 1 || len(msgs) != 1 || !strings.Contains(msgs[0], FiltersListing) {
			t.Errorf("%v: fields %v", tc.q, got)
			continue
		}
		if len(msgs[0]) > 600 {
			t.Errorf("%v: message of %d bytes echoes the value", tc.q, len(msgs[0]))
		}
	}
	// The genre list is short enough to name in the message.
	if msg := fieldErr(url.Values{"genre": {"Metal"}})["genre"][0]; !strings.Contains(msg, "Rock") || !strings.Contains(msg, `"Metal"`) {
		t.Errorf("genre message %q", msg)
	}
	// Catalog values in any case, and typos, are no error; the typo
	// matches nothing and is suggested.
	for _, q := range []url.Values{{"genre": {"ROCK"}}, {"genre__terms": {"rock__jazz"}}, {"mood": {"hapy"}}} {
		if got := fieldErr(q); got != nil {
			t.Errorf("%v: %v", q, got)
		}
	}
	f, _ := ParseFilters(url.Values{"genre": {"rok"}})
	res, err := ix.ByText(t.Context(), "energetic", Options{Filters: f})
	if err != nil || res.Total != 0 || res.DidYouMean["genre"] != "Rock" {
		t.Errorf("genre=rok: %d results, did_you_mean %v, %v", res.Total, res.DidYouMean, err)
	}
	// by-id and by-audio apply the same check.
	f, _ = ParseFilters(url.Values{"genre": {"Metal"}})
	if _, err := ix.ByID(ix.tracks[0].ID, Options{Filters: f}); !errs.Is(err, errs.Invalid) {
		t.Errorf("by-id genre=Metal: %v", err)
	}
	if _, err := ix.ByAudio(AudioQuery{TempoHint: 100, EnergyHint: -1}, Options{Filters: f}); !errs.Is(err, errs.Invalid) {
		t.Errorf("by-audio genre=Metal: %v", err)
	}
}

// Spelling correction leaves ordinary words alone and never lets a guess
// outrank the words the request spelled right.
func TestSpellingDoesNotTakeOverCommonWords(t *testing.T) {
	// One edit up to six letters: "genre" is no typo of "tense".
	if c, ok := closest("genre", []string{"tense", "green"}); ok {
		t.Errorf("genre corrected to %q", c)
	}
	if c, _ := closest("rokc", []string{"rock"}); c != "rock" {
		t.Errorf("rokc: %q", c)
	}
	if c, _ := closest("cinematc", []string{"cinematic"}); c != "cinematic" {
		t.Errorf("cinematc: %q", c)
	}
	ix := demoIndex(t, 240)
	for _, text := range []string{"rock genre", "rock style", "rock type of music"} {
		res, err := ix.ByText(t.Context(), text, Options{Plan: "enterprise", Limit: 5})
		if err != nil || len(res.Hits) != 5 {
			t.Fatalf("%q: %v %v", text, res.Hits, err)
		}
		for i, h := range res.Hits {
			if h.Track.Genre != "Rock" {
				t.Errorf("%q: #%d is %s / %s", text, i+1, h.Track.Genre, h.Track.Subgenre)
			}
		}
	}
	// A corrected word's best score stays under the exact word's best.
	exact := group{{phrase: "rock", weight: 1}}
	guess := group{{phrase: "tense", weight: 1, corrected: true}}
	hits := []groupHits{{docs: []int32{0, 1}, scores: []float32{2, 1}, best: 2}, {docs: []int32{2}, scores: []float32{9}, best: 9}}
	if s := correctedScale([]group{exact, guess}, hits, nil); s[0] != 1 || s[1]*9 > 1.0001 {
		t.Errorf("scale %v", s)
	}
	// With nothing spelled right, the correction ranks on its own.
	if s := correctedScale([]group{guess}, hits[1:], nil); s[0] != 1 {
		t.Errorf("lone correction scaled %v", s)
	}
	// Typos are still corrected.
	if res, _ := ix.ByText(t.Context(), "rokc", Options{Plan: "enterprise", Limit: 3}); len(res.Hits) == 0 || res.Hits[0].Track.Genre != "Rock" {
		t.Errorf("rokc: %+v", res.Hits)
	}
}

// Text with nothing understood answers an empty page, not the catalog at
// score 0; text that is not text is a field error.
func TestByTextNotUnderstood(t *testing.T) {
	ix := demoIndex(t, 240)
	for _, text := range []string{"a", "the of", "🙂🎵", "!!!", "999 bpm", "5-999 bpm"} {
		res, err := ix.ByText(t.Context(), text, Options{Plan: "enterprise"})
		if err != nil || res.Total != 0 || len(res.Hits) != 0 {
			t.Errorf("%q: %d results (%v)", text, res.Total, err)
		}
	}
	for _, text := range []string{"rock\x00", "\xff\xfe", "ro\xc3"} {
		_, err := ix.ByText(t.Context(), text, Options{})
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != errs.Invalid || len(e.Fields["text"]) == 0 {
			t.Errorf("%q: %v", text, err)
		}
	}
	// Generic requests still browse the catalog; an impossible tempo is
	// ignored next to words that were understood.
	if res, _ := ix.ByText(t.Context(), "music", Options{Plan: "enterprise"}); res.Total != len(ix.tracks) {
		t.Errorf("music: %d", res.Total)
	}
	if res, _ := ix.ByText(t.Context(), "rock 999 bpm", Options{Plan: "enterprise"}); res.Total == 0 || res.Hits[0].Track.Genre != "Rock" {
		t.Errorf("rock 999 bpm: %d", res.Total)
	}
	if q := Understand("999 bpm", 5); q.Tempo != nil || len(q.Groups) != 0 {
		t.Errorf("999 bpm understood as %+v", q)
	}
}

// by-id leaves the seed's other cuts out, and finds an ISRC however it is
// written.
func TestByIDVariantsAndSystemIDs(t *testing.T) {
	ix := demoIndex(t, 240)
	var seed, cut *catalog.Track
	for _, tr := range ix.tracks {
		if tr.Variant != "" {
			for _, b := range ix.tracks {
				if b.Variant == "" && b.Name == tr.Name && b.Artist.Name == tr.Artist.Name {
					seed, cut = b, tr
				}
			}
		}
		if seed != nil {
			break
		}
	}
	if seed == nil {
		t.Fatal("the demo catalog has no variant")
	}
	for _, s := range []*catalog.Track{seed, cut} {
		res, err := ix.ByID(s.ID, Options{Plan: "enterprise", Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(res.Hits, func(h Hit) bool { return variantOf(s, h.Track) || h.Track.ID == s.ID }) {
			t.Errorf("by-id %q (%s) returned a cut of itself", s.DisplayName(), s.Variant)
		}
		if res.Total != len(ix.tracks)-2 {
			t.Errorf("by-id %q: total %d of %d", s.DisplayName(), res.Total, len(ix.tracks))
		}
	}
	if variantOf(seed, &catalog.Track{Name: seed.Name, Variant: "Instrumental", Artist: catalog.Artist{Name: "Someone Else"}}) {
		t.Error("another artist's track of the same title is no variant")
	}
	isrc := seed.ISRC
	if isrc == "" {
		isrc = cut.ISRC
	}
	hyph := strings.ToLower(isrc[:2] + "-" + isrc[2:5] + "-" + isrc[5:7] + "-" + isrc[7:])
	for _, id := range []string{isrc, hyph, " " + hyph + " "} {
		if tr, ok := ix.Lookup(id, "enterprise", true); !ok || tr.ISRC != isrc {
			t.Errorf("system id %q not found", id)
		}
	}
	if _, ok := ix.Lookup(hyph, "enterprise", false); ok {
		t.Error("an ISRC found as a client id")
	}
	for id, ok := range map[string]bool{seed.ID: true, strings.ToUpper(seed.ID): true, "not-a-uuid": false, "": false,
		"00000000-0000-4000-8000-00000000000g": false, "00000000x0000-4000-8000-000000000000": false} {
		if IsTrackUUID(id) != ok {
			t.Errorf("IsTrackUUID(%q) = %v", id, !ok)
		}
	}
}

// TestHostileWordsNeverFail: long, repetitive words (bleve's fuzzy
// automaton for "cd"×300 has more than 10,000 states) and many unknown
// words are input, never a server error.
func TestHostileWordsNeverFail(t *testing.T) {
	ix := demoIndex(t, 240)
	texts := append([]string{}, hostileWords...)
	texts = append(texts, "rock "+strings.Repeat("cd", 300), "without "+strings.Repeat("cd", 300), manyUnknownWords())
	for _, text := range texts {
		if _, err := ix.ByText(t.Context(), text, Options{}); err != nil {
			t.Errorf("ByText(%.20q…, %d chars): %v", text, len(text), err)
		}
	}
	// The work is bounded: few near-spelling searches a request, none
	// for words longer than anyone mistypes.
	for _, text := range []string{manyUnknownWords(), strings.Repeat("q", 999)} {
		fuzzy := 0
		for _, g := range ix.correct(Understand(text, DefaultBPMRange)).Groups {
			for _, a := range g {
				if a.fuzzy {
					fuzzy++
					if n := len([]rune(a.phrase)); n > maxCorrectRunes {
						t.Errorf("a %d-letter word is searched by near spelling", n)
					}
				}
			}
		}
		if fuzzy > maxFuzzyWords {
			t.Errorf("%.20q…: %d near-spelling searches, want at most %d", text, fuzzy, maxFuzzyWords)
		}
	}
	// The backstop: a near-spelling search the engine cannot build
	// matches nothing instead of failing the request.
	h, err := ix.text.group(t.Context(), group{{phrase: strings.Repeat("cd", 300), weight: 1, fuzzy: true}})
	if err != nil || len(h.docs) != 0 {
		t.Errorf("fuzzy group of a 600-letter word: %d hits, %v", len(h.docs), err)
	}
}

// TestStatedTempoIsATolerance: "120 bpm" with bpm_range 2 keeps only
// tracks at 118–122 BPM (interface.md §4.2: bpm_range is the tolerance
// when matching by tempo); a span is kept likewise.
func TestStatedTempoIsATolerance(t *testing.T) {
	ix := demoIndex(t, 2000)
	for _, tc := range []struct {
		text   string
		tol    float64
		lo, hi float64
	}{
		{"rock 120 bpm", 2, 118, 122},
		{"rock 120 bpm", 0, 115, 125}, // the default, 5
		{"120 bpm", ExactBPMRange, 119.5, 120.5},
		{"chill 90-100 bpm", 0, 90, 100},
	} {
		res, err := ix.ByText(t.Context(), tc.text, Options{BPMRange: tc.tol, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Errorf("%q ±%g: no results", tc.text, tc.tol)
		}
		for _, h := range res.Hits {
			if h.Track.Tempo == nil || *h.Track.Tempo < tc.lo || *h.Track.Tempo > tc.hi {
				t.Errorf("%q ±%g: %s at %v BPM, outside %g–%g", tc.text, tc.tol, h.Track.Name, fmtTempo(h.Track.Tempo), tc.lo, tc.hi)
			}
		}
	}
}

func fmtTempo(t *float64) any {
	if t == nil {
		return nil
	}
	return *t
}

// TestPatternGates: Understand skips a pattern when the text lacks a
// literal every match of it holds; no text of the ranking requests, or
// of the shapes the patterns look for, matches a pattern it would skip.
func TestPatternGates(t *testing.T) {
	texts := append(rankingQueries(2000), "don't want drums", "isnt slow", "doesn’t have vocals", "ain't sad",
		"weren't loud", "120bpm", "bpm 90", "90-100 bpm", "between 80 and 90 bpm", "1:30 long", "a 2:05 cue",
		"30 sec", "3 minutes", "NOT", "Don'T", "ISN’T FAST")
	for _, text := range texts {
		s := " " + strings.ToLower(text) + " "
		contraction := strings.Contains(s, "nt") || strings.Contains(s, "n't") || strings.Contains(s, "n’t")
		bpm, clock := strings.Contains(s, "bpm"), strings.Contains(s, ":")
		for _, c := range []struct {
			gate bool
			re   *regexp.Regexp
		}{{contraction, reContraction}, {bpm, reBPMSpan}, {bpm, reBPM}, {clock, reClock}} {
			if !c.gate && c.re.MatchString(s) {
				t.Errorf("%q: %v matches without its literal", text, c.re)
			}
		}
	}
}
