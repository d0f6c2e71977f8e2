package app

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/search/searchtest"
)

// searchTrack is the §2.1 shape as the tests read it.
type searchTrack struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Length     int     `json:"length"`
	Tempo      float64 `json:"tempo"`
	IsFree     bool    `json:"is_free"`
	Genre      string  `json:"genre_name"`
	Subgenre   string  `json:"subgenre_name"`
	Mood       string  `json:"mood_name"`
	Mood2      string  `json:"secondary_mood_name"`
	Vocals     string  `json:"vocals"`
	Restricted bool    `json:"restricted"`
	AudioURL   string  `json:"audio_url"`
	Artist     struct {
		Name string `json:"name"`
	} `json:"artist"`
	Highlights []struct {
		Offset   float64 `json:"offset"`
		Duration float64 `json:"duration"`
	} `json:"highlights"`
}

type searchPage struct {
	Next, Previous *string
	Results        []searchTrack
	DidYouMean     map[string]string `json:"did_you_mean"`
	PlaylistSearch *struct {
		IDs []string `json:"ids"`
	} `json:"playlist_search"`
}

// searchFixture publishes the demo catalog's metadata (240 tracks, with
// synthetic feature vectors) and returns a client on the devserver wiring.
func searchFixture(t *testing.T, opts ...func(*Config)) (*Deps, DemoCredentials, *catalog.Catalog, *apitest.Client) {
	t.Helper()
	d, creds := newTestDeps(t, opts...)
	cat := catalogtest.Publish(t, d.Blob, searchtest.DemoContents(t, demo.DefaultTracks, demo.DefaultSeed, true))
	return d, creds, cat, apitest.New(t, d.LocalHandler())
}

func getPage(t *testing.T, c *apitest.Client, path, token string) (*apitest.Response, searchPage) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	r := c.Do(apitest.Request{Method: "GET", Path: path, Header: h})
	var p searchPage
	if r.Status == 200 {
		r.JSON(t, &p)
	}
	return r, p
}

func q(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

// anyUUID is a well-formed track id no track has.
const anyUUID = "00000000-0000-4000-8000-000000000000"

const (
	byText   = "/api/v4/search/ai/by-text/?"
	byPrompt = "/api/v4/search/ai/by-prompt/?"
	byID     = "/api/v4/search/ai/by-id/?"
)

func TestSearchUnavailableWithoutCatalog(t *testing.T) {
	d, _ := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	for _, p := range []string{byText + q("text", "rock"), byPrompt + q("text", "rock"), byID + q("track_id", "00000000-0000-4000-8000-000000000000")} {
		r := c.Do(apitest.Request{Method: "GET", Path: p})
		if m := r.Map(t); r.Status != 500 || m["detail"] == nil || strings.Contains(string(r.Body), "blob") {
			t.Errorf("%s without a catalog: %d %s", p, r.Status, r.Body)
		}
	}
}

func TestSearchByText(t *testing.T) {
	_, _, cat, c := searchFixture(t)
	r, p := getPage(t, c, byText+q("text", "fast rock with female vocals"), "")
	if r.Status != 200 || len(p.Results) != 20 {
		t.Fatalf("by-text: %d %s", r.Status, r.Body)
	}
	top := p.Results[0]
	if top.Genre != "Rock" || top.Tempo < catalog.TempoFastFrom || top.Vocals != "Female Vocals" {
		t.Errorf("top result %+v does not fit 'fast rock with female vocals'", top)
	}
	for _, tr := range p.Results {
		if len(tr.Highlights) != 0 {
			t.Errorf("by-text filled highlights: %+v", tr)
		}
		if tr.IsFree == tr.Restricted || tr.AudioURL != "/api/v4/stream/"+tr.ID+"/?type=track" {
			t.Errorf("presentation of %+v", tr)
		}
		// A subscriber or enterprise track is not free, marked restricted or not.
		if ct, ok := cat.Track(tr.ID); ok && tr.IsFree != catalog.Covers("free", ct) {
			t.Errorf("%s (%s, restricted %v): is_free %v", tr.ID, ct.AccessTier, ct.Restricted, tr.IsFree)
		}
	}
	if p.DidYouMean != nil || p.PlaylistSearch == nil || p.PlaylistSearch.IDs == nil || len(p.PlaylistSearch.IDs) != 0 {
		t.Errorf("did_you_mean %v playlist_search %v", p.DidYouMean, p.PlaylistSearch)
	}
	if p.Previous != nil || p.Next == nil || !strings.HasPrefix(*p.Next, "http") || !strings.Contains(*p.Next, "offset=20") {
		t.Fatalf("links next %v previous %v", p.Next, p.Previous)
	}
	// The next page continues the ranking without repeating a track.
	u, _ := url.Parse(*p.Next)
	_, p2 := getPage(t, c, u.RequestURI(), "")
	if len(p2.Results) == 0 || p2.Previous == nil {
		t.Fatalf("page 2: %+v", p2)
	}
	for _, a := range p2.Results {
		if slices.ContainsFunc(p.Results, func(b searchTrack) bool { return a.ID == b.ID }) {
			t.Errorf("%s on both pages", a.ID)
		}
	}
	// Music vocabulary through the API.
	cases := []struct {
		text string
		ok   func(searchTrack) bool
	}{
		{"chill lo-fi beats", func(s searchTrack) bool { return s.Subgenre == "Lo-fi Hip Hop" }},
		{"epic", func(s searchTrack) bool { return s.Mood == "Epic" || s.Mood2 == "Epic" || s.Genre == "Cinematic" }},
		{"90-100 bpm jazz", func(s searchTrack) bool { return s.Genre == "Jazz" && s.Tempo >= 90 && s.Tempo <= 100 }},
		{"slow sad piano", func(s searchTrack) bool { return s.Subgenre == "Solo Piano" && s.Tempo < 90 }},
		{"instrumental house", func(s searchTrack) bool { return s.Subgenre == "House" && s.Vocals == "" }},
		{"happy pop without vocals", func(s searchTrack) bool { return s.Vocals == "" }},
		{"calm ambient no drums", func(s searchTrack) bool { return s.Genre != "Hip Hop" }},
	}
	for _, tc := range cases {
		// The best match fits every part of the request (the demo catalog
		// has few tracks fitting all of them, so only the first is checked).
		r, p := getPage(t, c, byText+q("text", tc.text, "limit", "3"), "")
		if r.Status != 200 || len(p.Results) == 0 {
			t.Errorf("%q: %d %s", tc.text, r.Status, r.Body)
			continue
		}
		if !tc.ok(p.Results[0]) {
			t.Errorf("%q: best result %+v", tc.text, p.Results[0])
		}
	}
	// Negation is an exclusion: nothing sung for "no vocals".
	_, p = getPage(t, c, byText+q("text", "no vocals", "limit", "100"), "")
	for _, s := range p.Results {
		if s.Vocals != "" {
			t.Errorf("'no vocals' returned %+v", s)
		}
	}
	// Sound effects never appear, even when the text names one exactly.
	for _, fx := range cat.SoundFXs()[:3] {
		_, p := getPage(t, c, byText+q("text", fx.Name, "limit", "100"), "")
		for _, s := range p.Results {
			if _, isFX := cat.SoundFX(s.ID); isFX {
				t.Errorf("sound effect %s in track search", s.ID)
			}
		}
	}
}

func TestSearchValidation(t *testing.T) {
	_, _, _, c := searchFixture(t)
	for path, fields := range map[string][]string{
		byText:                  {"text"},
		byText + q("text", " "): {"text"},
		byText + q("text", strings.Repeat("rock ", 201)):      {"text"},
		byText + q("text", "x", "limit", "abc"):               {"limit"},
		byText + q("text", "x", "offset", "-1"):               {"offset"},
		byText + q("text", "x", "tempo", "superfast"):         {"tempo"},
		byText + q("text", "x", "vocals__terms", "male__ro"):  {"vocals__terms"},
		byText + q("text", "x", "bpm__range", "120"):          {"bpm__range"},
		byText + q("text", "x", "duration__range", "60__30"):  {"duration__range"},
		byText + q("text", "x", "restricted", "maybe"):        {"restricted"},
		byText + q("tempo", "fastt", "restricted", "2"):       {"text", "tempo", "restricted"},
		byPrompt + q("text", "x", "time_limit", "0"):          {"time_limit"},
		byPrompt + q("text", "x", "time_limit", "61"):         {"time_limit"},
		byPrompt + q("text", "x", "time_offset", "-3"):        {"time_offset"},
		byPrompt + q("text", "x", "bpm_range", "abc"):         {"bpm_range"},
		byPrompt + q("text", "x", "highlights", "yes please"): {"highlights"},
		byID: {"track_id"},
		byID + q("track_id", anyUUID, "bpm_range", "101"):        {"bpm_range"},
		byID + q("track_id", anyUUID, "prioritise_bpm", "maybe"): {"prioritise_bpm"},
		byID + q("track_id", "x", "input_id_type", "other"):      {"input_id_type"},
		// A client id that is not a UUID cannot name a track: 400, named
		// together with the other bad parameters.
		byID + q("track_id", "not-a-uuid"):                    {"track_id"},
		byID + q("track_id", "x", "bpm_range", "101"):         {"track_id", "bpm_range"},
		byID + q("track_id", anyUUID, "genre", "Metal"):       {"genre"},
		byID + q("track_id", "QZDMO1200001", "mood", "Angry"): {"track_id"},
		// Filter values the catalog does not have and that are no typo of
		// one it has (§7.2 "invalid filter value").
		byText + q("text", "x", "genre", "Metal"):                       {"genre"},
		byText + q("text", "x", "mood", "Angry"):                        {"mood"},
		byText + q("text", "x", "subgenre", strings.Repeat("x", 5000)):  {"subgenre"},
		byText + q("text", "x", "genre__terms", "rock__Metal"):          {"genre__terms"},
		byPrompt + q("text", "x", "mood__terms", "Happy__Angry"):        {"mood__terms"},
		byText + q("text", "x", "genre", "Metal", "tempo", "superfast"): {"genre", "tempo"}, // one 400 names both
		// Text that is not text.
		byText + q("text", "rock\x00"):   {"text"},
		byPrompt + q("text", "\xff\xfe"): {"text"},
	} {
		r := c.Do(apitest.Request{Method: "GET", Path: path})
		m := r.Map(t)
		if r.Status != 400 {
			t.Errorf("%s: %d %s", path, r.Status, r.Body)
			continue
		}
		for _, f := range fields {
			if msgs, _ := m[f].([]any); len(msgs) == 0 {
				t.Errorf("%s: no message for %s in %s", path, f, r.Body)
			}
		}
		if len(m) != len(fields) {
			t.Errorf("%s: fields %v, want %v", path, m, fields)
		}
	}
	if m := c.Do(apitest.Request{Method: "GET", Path: byText + q("text", "x", "tempo", "fastt")}).Map(t); !strings.Contains(m["tempo"].([]any)[0].(string), `"fast"`) {
		t.Errorf("no suggestion in %v", m)
	}
	// An unknown genre names the valid values and where they are listed.
	m := c.Do(apitest.Request{Method: "GET", Path: byText + q("text", "x", "genre", "Metal")}).Map(t)
	if msg := m["genre"].([]any)[0].(string); !strings.Contains(msg, "Rock") || !strings.Contains(msg, "/api/v4/search/ai/filters/") {
		t.Errorf("genre=Metal message %q", msg)
	}
	// limit is clamped to 100, as the listings do.
	if _, p := getPage(t, c, byText+q("text", "music", "limit", "500"), ""); len(p.Results) != 100 {
		t.Errorf("limit 500 gave %d results", len(p.Results))
	}
}

func TestSearchFilters(t *testing.T) {
	_, _, cat, c := searchFixture(t)
	text := "energetic music for a video"
	all := func(extra ...string) []searchTrack {
		t.Helper()
		r, p := getPage(t, c, byText+q(append([]string{"text", text, "limit", "100"}, extra...)...), "")
		if r.Status != 200 {
			t.Fatalf("%v: %d %s", extra, r.Status, r.Body)
		}
		return p.Results
	}
	ranked := all()
	byIDOf := map[string]*catalog.Track{}
	for _, tr := range cat.Tracks() {
		byIDOf[tr.ID] = tr
	}
	word := strings.Fields(ranked[0].Name)[0]
	for _, tc := range []struct {
		params []string
		keep   func(*catalog.Track) bool
	}{
		{[]string{"genre", "rock"}, func(t *catalog.Track) bool { return t.Genre == "Rock" }},
		{[]string{"genre__terms", "ROCK__jazz"}, func(t *catalog.Track) bool { return t.Genre == "Rock" || t.Genre == "Jazz" }},
		{[]string{"subgenre", "house"}, func(t *catalog.Track) bool { return t.Subgenre == "House" }},
		{[]string{"mood", "energetic"}, func(t *catalog.Track) bool { return t.Mood == "Energetic" || t.SecondaryMood == "Energetic" }},
		{[]string{"mood__terms", "Happy__Calm"}, func(t *catalog.Track) bool {
			return slices.Contains([]string{"Happy", "Calm"}, t.Mood) || slices.Contains([]string{"Happy", "Calm"}, t.SecondaryMood)
		}},
		{[]string{"vocals", "Female Vocals"}, func(t *catalog.Track) bool { return t.Vocals == "female" }},
		{[]string{"vocals__terms", "male__mixed"}, func(t *catalog.Track) bool { return t.Vocals == "male" || t.Vocals == "mixed" }},
		{[]string{"tempo", "fast"}, func(t *catalog.Track) bool { return *t.Tempo >= catalog.TempoFastFrom }},
		{[]string{"tempo__terms", "slow__medium"}, func(t *catalog.Track) bool { return *t.Tempo < catalog.TempoFastFrom }},
		{[]string{"bpm__range", "100__120"}, func(t *catalog.Track) bool { return *t.Tempo >= 100 && *t.Tempo <= 120 }},
		{[]string{"duration__range", "60__120"}, func(t *catalog.Track) bool { return t.Length >= 60 && t.Length <= 120 }},
		{[]string{"restricted", "True"}, func(t *catalog.Track) bool { return t.IsRestricted() }},
		{[]string{"restricted", "false"}, func(t *catalog.Track) bool { return !t.IsRestricted() }},
		{[]string{"artist__contains", "the"}, func(t *catalog.Track) bool { return strings.Contains(strings.ToLower(t.Artist.Name), "the") }},
		{[]string{"title__contains", strings.ToUpper(word)}, func(t *catalog.Track) bool {
			return strings.Contains(strings.ToLower(t.DisplayName()), strings.ToLower(word))
		}},
		{[]string{"genre", "rock", "vocals", "instrumental"}, func(t *catalog.Track) bool { return t.Genre == "Rock" && t.Vocals == "instrumental" }},
		// A single form and its __terms form are two filters: both narrow.
		{[]string{"genre", "rock", "genre__terms", "Jazz__Rock"}, func(t *catalog.Track) bool { return t.Genre == "Rock" }},
		{[]string{"vocals", "male", "vocals__terms", "female__male", "tempo", "fast", "tempo__terms", "fast__slow"}, func(t *catalog.Track) bool {
			return t.Vocals == "male" && *t.Tempo >= catalog.TempoFastFrom
		}},
	} {
		got := all(tc.params...)
		if len(got) == 0 {
			t.Errorf("%v: no results", tc.params)
			continue
		}
		// Filters narrow the ranked list: the filtered results are the
		// unfiltered ranking with the others left out, in the same order.
		var want []string
		for _, s := range ranked {
			if tc.keep(byIDOf[s.ID]) {
				want = append(want, s.ID)
			}
		}
		for i, s := range got {
			if !tc.keep(byIDOf[s.ID]) {
				t.Errorf("%v: %+v does not pass", tc.params, s)
			}
			if i < len(want) && s.ID != want[i] {
				t.Errorf("%v: result %d is %s, the ranking without the filter has %s there", tc.params, i, s.ID, want[i])
				break
			}
		}
	}
	for _, params := range [][]string{
		{"genre", "rock", "genre__terms", "Jazz"},
		{"tempo", "fast", "tempo__terms", "slow__medium"},
		{"vocals", "instrumental", "vocals__terms", "female"},
	} {
		if got := all(params...); len(got) != 0 {
			t.Errorf("%v: %d results; the two filters exclude each other", params, len(got))
		}
	}
	// Exact title, artist and album, any case.
	var withAlbum *catalog.Track
	for _, tr := range cat.Tracks() {
		if tr.Album != nil && catalog.Visible("", tr) {
			withAlbum = tr
			break
		}
	}
	for _, params := range [][]string{
		{"title", strings.ToUpper(withAlbum.DisplayName())},
		{"artist", withAlbum.Artist.Name, "album", strings.ToLower(withAlbum.Album.Name)},
	} {
		got := all(params...) // (a second text here used to be ignored: the first one counted)
		if !slices.ContainsFunc(got, func(s searchTrack) bool { return s.ID == withAlbum.ID }) {
			t.Errorf("%v: %s not found in %d results", params, withAlbum.ID, len(got))
		}
		for _, s := range got {
			tr := byIDOf[s.ID]
			if params[0] == "title" && !strings.EqualFold(tr.DisplayName(), params[1]) {
				t.Errorf("title filter let %q through", tr.DisplayName())
			}
		}
	}
	// did_you_mean for values that look like typos; the filter itself
	// stays exact.
	r, p := getPage(t, c, byText+q("text", text, "genre", "rok", "mood__terms", "hapy__Calm"), "")
	if r.Status != 200 || len(p.Results) != 0 || p.DidYouMean["genre"] != "Rock" || p.DidYouMean["mood__terms"] != "Happy__Calm" || len(p.DidYouMean) != 2 {
		t.Errorf("did_you_mean: %d %s", r.Status, r.Body)
	}
	// by-id has no did_you_mean: a typo there is a 400 naming the likely
	// spelling (it was an empty 200 nothing explained).
	seed := cat.Tracks()[0].ID
	r = c.Do(apitest.Request{Method: "GET", Path: byID + q("track_id", seed, "genre", "rok")})
	if m := r.Map(t); r.Status != 400 || len(m["genre"].([]any)) != 1 || !strings.Contains(m["genre"].([]any)[0].(string), `Did you mean "Rock"?`) {
		t.Errorf("by-id genre=rok: %d %s", r.Status, r.Body)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: byID + q("track_id", seed, "genre", "Rock")}); r.Status != 200 {
		t.Errorf("by-id genre=Rock: %d %s", r.Status, r.Body)
	}
}

func TestSearchVisibilityAndRateLimits(t *testing.T) {
	d, creds, cat, c := searchFixture(t, func(c *Config) { c.RateAnonymous, c.RateAuth = 3, 1000 })
	var ent *catalog.Track
	for _, tr := range cat.Tracks() {
		if tr.AccessTier == catalog.TierEnterprise {
			ent = tr
			break
		}
	}
	path := byText + q("text", ent.Genre+" "+ent.Subgenre, "title", ent.DisplayName())
	_, free, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "F", Plan: identity.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]int{"": 0, free: 0, creds.Partner.Key: 1} {
		_, p := getPage(t, c, path, tok)
		if len(p.Results) != want {
			t.Errorf("enterprise track for %q: %d results, want %d", tok, len(p.Results), want)
		}
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: byID + q("track_id", ent.ID)}); r.Status != 404 {
		t.Errorf("by-id of an enterprise track, anonymously: %d", r.Status)
	}
	// Anonymous callers hit their limit (3 a minute, 2 used above);
	// authenticated ones are counted apart, higher.
	c.Do(apitest.Request{Method: "GET", Path: path})
	r := c.Do(apitest.Request{Method: "GET", Path: path})
	if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.Map(t)["detail"] == nil {
		t.Errorf("anonymous over the limit: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r, _ := getPage(t, c, path, creds.Partner.Key); r.Status != 200 {
		t.Errorf("authenticated after the anonymous limit: %d", r.Status)
	}
	if r, _ := getPage(t, c, path, "mcat_bogus"); r.Status != 401 {
		t.Errorf("bad token: %d", r.Status)
	}
}

func TestSearchByPrompt(t *testing.T) {
	_, _, _, c := searchFixture(t)
	_, p := getPage(t, c, byPrompt+q("text", "dreamy synthwave"), "")
	if len(p.Results) == 0 || p.PlaylistSearch == nil {
		t.Fatalf("by-prompt: %+v", p)
	}
	for _, s := range p.Results {
		if len(s.Highlights) != 0 {
			t.Errorf("highlights without highlights=true: %+v", s)
		}
	}
	// The demo tracks have hooks at 8–20 s and 30–40 s.
	_, p = getPage(t, c, byPrompt+q("text", "dreamy synthwave", "highlights", "true"), "")
	if h := p.Results[0].Highlights; len(h) != 2 || h[0].Offset != 8 || h[0].Duration != 12 {
		t.Errorf("highlights %+v", h)
	}
	_, p = getPage(t, c, byPrompt+q("text", "dreamy synthwave", "highlights", "true", "time_offset", "10", "time_limit", "15"), "")
	if h := p.Results[0].Highlights; len(h) != 1 || h[0].Offset != 10 || h[0].Duration != 10 {
		t.Errorf("highlights in the window 10–25 s: %+v", h)
	}
	// bpm_range is the tolerance around a tempo in the prompt.
	_, p = getPage(t, c, byPrompt+q("text", "120 bpm", "bpm_range", "3", "limit", "5"), "")
	for _, s := range p.Results {
		if s.Tempo < 117 || s.Tempo > 123 {
			t.Errorf("'120 bpm' ±3: %+v", s)
		}
	}
}

func TestSearchByID(t *testing.T) {
	_, creds, cat, c := searchFixture(t)
	var seed *catalog.Track
	for _, tr := range cat.Tracks() {
		if tr.Genre == "Rock" && catalog.Visible("", tr) && tr.Vocals != "instrumental" {
			seed = tr
			break
		}
	}
	r, p := getPage(t, c, byID+q("track_id", seed.ID, "limit", "10", "highlights", "true"), "")
	if r.Status != 200 || len(p.Results) != 10 {
		t.Fatalf("by-id: %d %s", r.Status, r.Body)
	}
	same := 0
	for _, s := range p.Results {
		if s.ID == seed.ID {
			t.Errorf("the seed is in its own results")
		}
		if s.Genre == seed.Genre {
			same++
		}
		if len(s.Highlights) == 0 {
			t.Errorf("highlights=true left %s without", s.ID)
		}
	}
	if same < 8 {
		t.Errorf("%d of 10 similar tracks share the seed's genre %s", same, seed.Genre)
	}
	_, p = getPage(t, c, byID+q("track_id", strings.ToUpper(seed.ID), "suppress_vocals", "true", "limit", "100"), "")
	for _, s := range p.Results {
		if s.Vocals != "" {
			t.Errorf("suppress_vocals returned %+v", s)
		}
	}
	_, p = getPage(t, c, byID+q("track_id", seed.ID, "prioritise_bpm", "true", "bpm_range", "4", "limit", "3"), "")
	for _, s := range p.Results {
		if d := s.Tempo - *seed.Tempo; d < -4 || d > 4 {
			t.Errorf("prioritise_bpm ±4 around %v: %+v", *seed.Tempo, s)
		}
	}
	_, p = getPage(t, c, byID+q("track_id", seed.ID, "genre", "jazz"), "")
	for _, s := range p.Results {
		if s.Genre != "Jazz" {
			t.Errorf("filter on by-id: %+v", s)
		}
	}
	if r, p := getPage(t, c, byID+q("track_id", seed.ShortID, "input_id_type", "system", "limit", "1"), ""); r.Status != 200 || len(p.Results) != 1 || p.Results[0].ID == seed.ID {
		t.Errorf("system id: %d %s", r.Status, r.Body)
	}
	for _, id := range []string{anyUUID, cat.SoundFXs()[0].ID} {
		if r := c.Do(apitest.Request{Method: "GET", Path: byID + q("track_id", id)}); r.Status != 404 || r.Map(t)["detail"] == nil {
			t.Errorf("by-id %s: %d %s", id, r.Status, r.Body)
		}
	}
	if r, _ := getPage(t, c, byID+q("track_id", seed.ID), creds.Partner.Key); r.Status != 200 {
		t.Errorf("authenticated by-id: %d", r.Status)
	}
}

func TestSearchFollowsNewCatalogVersion(t *testing.T) {
	d, _ := newTestDeps(t)
	contents := searchtest.DemoContents(t, 40, demo.DefaultSeed, true)
	catalogtest.Publish(t, d.Blob, contents)
	d.Catalog = catalog.NewLoader(d.Blob, catalog.WithCheckInterval(0))
	c := apitest.New(t, d.LocalHandler())
	path := byText + q("text", "zanzibar marimba")
	if _, p := getPage(t, c, path, ""); len(p.Results) != 0 {
		t.Fatalf("found before publishing: %+v", p.Results)
	}
	extra := *contents.Tracks[0]
	extra.ID, extra.Name, extra.Tags = "6b0e7c1e-3a52-4c8e-9d43-6f2b7a9e0c11", "Zanzibar Marimba", []string{"marimba"}
	extra.ShortID, extra.ISRC, extra.Stems = "zanzib", "", nil
	contents.Tracks = append(contents.Tracks, &extra)
	catalogtest.Publish(t, d.Blob, contents)
	if _, p := getPage(t, c, path, ""); len(p.Results) == 0 || p.Results[0].ID != extra.ID {
		t.Fatalf("the new version's track is not found: %+v", p.Results)
	}
}

// TestSearchEdgeCases covers, through the API: text with nothing understood, common words taken for typos,
// bpm_range=0, ISRC spellings, the seed's own cuts and highlights past the
// end of the audio.
func TestSearchEdgeCases(t *testing.T) {
	_, _, cat, c := searchFixture(t)
	// Nothing understood: an empty page, not the catalog at score 0.
	for _, text := range []string{"a", "🙂🎵", "999 bpm"} {
		r, p := getPage(t, c, byText+q("text", text), "")
		if r.Status != 200 || p.Results == nil || len(p.Results) != 0 || p.Next != nil {
			t.Errorf("%q: %d %s", text, r.Status, r.Body)
		}
	}
	// "genre" is the word genre, not a typo of a tag.
	_, p := getPage(t, c, byText+q("text", "rock genre", "limit", "5"), "")
	if len(p.Results) != 5 {
		t.Fatalf("rock genre: %+v", p)
	}
	for i, s := range p.Results {
		if s.Genre != "Rock" {
			t.Errorf("rock genre #%d: %s / %s", i+1, s.Genre, s.Subgenre)
		}
	}
	// bpm_range=0 is the exact tempo, on by-prompt and by-id alike.
	exact := func(bpm float64) int {
		n := 0
		for _, tr := range cat.Tracks() {
			if catalog.Visible("", tr) && tr.Tempo != nil && *tr.Tempo == bpm {
				n++
			}
		}
		return n
	}
	n := min(exact(120), 5)
	if n == 0 {
		t.Fatal("no demo track at 120 BPM")
	}
	_, p = getPage(t, c, byPrompt+q("text", "120 bpm", "bpm_range", "0", "limit", "5"), "")
	for i, s := range p.Results[:n] {
		if s.Tempo != 120 {
			t.Errorf("'120 bpm' bpm_range=0: #%d at %v", i+1, s.Tempo)
		}
	}
	var seed, cut *catalog.Track
	for _, tr := range cat.Tracks() {
		if tr.Variant == "" || !catalog.Visible("", tr) {
			continue
		}
		for _, b := range cat.Tracks() {
			if b.Variant == "" && b.Name == tr.Name && b.Artist.Name == tr.Artist.Name && b.ISRC != "" && catalog.Visible("", b) {
				seed, cut = b, tr
			}
		}
		if seed != nil {
			break
		}
	}
	if seed == nil {
		t.Fatal("no visible variant with an ISRC in the demo catalog")
	}
	if n := min(exact(*seed.Tempo)-1, 3); n > 0 {
		_, p = getPage(t, c, byID+q("track_id", seed.ID, "bpm_range", "0", "prioritise_bpm", "true", "limit", "3"), "")
		for i, s := range p.Results[:n] {
			if s.Tempo != *seed.Tempo {
				t.Errorf("by-id bpm_range=0 around %v: #%d at %v", *seed.Tempo, i+1, s.Tempo)
			}
		}
	}
	// ISRCs resolve with hyphens and in lower case, as the manifest
	// accepts them; the seed's cuts are not recommendations.
	isrc := seed.ISRC
	hyph := strings.ToLower(isrc[:2] + "-" + isrc[2:5] + "-" + isrc[5:7] + "-" + isrc[7:])
	for _, id := range []string{isrc, hyph} {
		r, p := getPage(t, c, byID+q("track_id", id, "input_id_type", "system", "limit", "100", "highlights", "true"), "")
		if r.Status != 200 || len(p.Results) == 0 {
			t.Errorf("system id %q: %d %s", id, r.Status, r.Body)
			continue
		}
		for _, s := range p.Results {
			if s.ID == seed.ID || s.ID == cut.ID {
				t.Errorf("by-id %q returned %q", seed.DisplayName(), s.Name)
			}
			// Highlights stay inside the audio.
			for _, h := range s.Highlights {
				if h.Offset+h.Duration > float64(s.Length)+1e-9 {
					t.Errorf("%s (length %d): highlight %+v runs past the end", s.ID, s.Length, h)
				}
			}
		}
	}
}
