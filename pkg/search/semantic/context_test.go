package semantic

import (
	"bytes"
	"slices"
	"testing"
)

// weight is the weight of anchor a in the request reading of text.
func weight(t *testing.T, e *Embedder, text, a string) float32 {
	t.Helper()
	v, err := e.EmbedQuery(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(e.Anchors(), a)
	if i < 0 {
		t.Fatalf("no anchor %q", a)
	}
	if v == nil {
		return 0
	}
	return v[i]
}

func defaultEmbedder(t *testing.T) *Embedder {
	t.Helper()
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestHomonymNeedsMusicalContext: a word whose music sense is a homonym
// of an everyday word means the music only beside a music word, alone,
// or after descriptors of music; otherwise its everyday sense.
func TestHomonymNeedsMusicalContext(t *testing.T) {
	e := defaultEmbedder(t)
	for _, c := range []struct {
		anchor        string
		music, others []string
	}{
		{"house", []string{"house", "deep house track", "house music for a party", "house for a pool party"},
			[]string{"moving into our first house together", "cleaning the house on a saturday", "house for sale", "lost my keys in the house"}},
		{"bass", []string{"slap bass and drums", "bass"}, []string{"bass fishing on a quiet lake"}},
		{"rock", []string{"energetic rock", "punk rock for a skate session", "rock with female vocals", "rock for the gym", "rock workout"},
			[]string{"rock bottom after losing my job", "climbing a rock face", "climbing a rock face near the house"}},
		{"organ", []string{"organ and choir in a stone church"}, []string{"the organ donor who saved her life"}},
		{"trap", []string{"trap beat with a dark piano"}, []string{"a trap door creaks open in the castle"}},
		{"soul", []string{"soul singer with a warm voice"}, []string{"soul searching on a long walk"}},
		{"pop", []string{"upbeat pop hits", "pop for a party", "pop party"}, []string{"pop the champagne, we got engaged"}},
	} {
		for _, m := range c.music {
			for _, o := range c.others {
				wm, wo := weight(t, e, m, c.anchor), weight(t, e, o, c.anchor)
				if wm < 0.2 || wo > wm/3 {
					t.Errorf("%s: %q %.2f (music), %q %.2f (everyday)", c.anchor, m, wm, o, wo)
				}
			}
		}
	}
	// A homonym alone is the facet's name; alone in a sentence it is not.
	if a, s := weight(t, e, "world", "world"), weight(t, e, "like the world is against me", "world"); a < 0.5 || s > a/3 {
		t.Errorf("world alone %.2f, in a sentence %.2f", a, s)
	}
	// The plain embedding (a track's text) still reads the written sense.
	v, _ := e.Embed(t.Context(), "moving into our first house together")
	if v[slices.Index(e.Anchors(), "house")] < 0.2 {
		t.Error("Embed lost the written sense: the context reading is the request's")
	}
}

// TestEverydaySenseByOverlap: among a homonym's everyday senses the one
// whose gloss shares words with the request is read (Lesk); with no
// overlap, the most frequent.
func TestEverydaySenseByOverlap(t *testing.T) {
	e := defaultEmbedder(t)
	ctx := e.contextOf("bass")
	sigs := signatures(ctx)
	if len(sigs) < 2 {
		t.Fatalf("bass: %d everyday senses", len(sigs))
	}
	fish := -1
	for i, s := range sigs {
		if slices.Contains(s, "fish") {
			fish = i
			break
		}
	}
	if fish < 0 {
		t.Fatalf("no everyday sense of bass mentions fish: %v", sigs)
	}
	toks := Tokens("bass fishing trip")
	var want []byte
	i := 0
	eachSense(ctx, func(rec []byte, _ [][]byte) {
		if i == fish {
			want = rec
		}
		i++
	})
	if got, _ := e.everyday(ctx, toks, 0); !bytes.Equal(got, want) {
		t.Errorf("bass fishing: sense %v, want the fish sense %v", got, want)
	}
}

// TestFeelingBeforeTopic: beside a feeling, a topic's moods by
// association count little.
func TestFeelingBeforeTopic(t *testing.T) {
	e := defaultEmbedder(t)
	if p, s := weight(t, e, "my old dog", "playful"), weight(t, e, "my old dog", "sad"); p <= s {
		t.Fatalf("my old dog: playful %.2f <= sad %.2f; the test needs a playful topic", p, s)
	}
	for _, text := range []string{"grieving my old dog", "heartbroken at the carnival", "a sad clown at the circus"} {
		if p, s := weight(t, e, text, "playful"), weight(t, e, text, "sad"); p*2 > s {
			t.Errorf("%q: playful %.2f, sad %.2f: the feeling must lead", text, p, s)
		}
	}
}

// TestIdiomsBeforeWords: an idiom (fillers skipped, its verb inflected)
// is read through its gloss before its words.
func TestIdiomsBeforeWords(t *testing.T) {
	e := defaultEmbedder(t)
	for text, want := range map[string]string{
		"on pins and needles waiting for the results": "tense",
		"my heart in my throat":                       "tense",
		"down in the dumps all week":                  "sad",
		"at the end of my rope":                       "sad",
		"letting my hair down on a friday":            "party",
		"blowing off steam after work":                "aggressive",
		"on cloud nine":                               "happy",
	} {
		v, _ := e.EmbedQuery(t.Context(), text)
		if v == nil {
			t.Errorf("%q: nothing read", text)
			continue
		}
		best := 0
		for i := range v {
			if v[i] > v[best] {
				best = i
			}
		}
		if w := weight(t, e, text, want); w < 0.5*v[best] {
			t.Errorf("%q: %s %.2f, strongest %s %.2f", text, want, w, e.Anchors()[best], v[best])
		}
	}
}

// TestMusicScenes: places, eras and venues mean the styles libraries
// associate with them.
func TestMusicScenes(t *testing.T) {
	e := defaultEmbedder(t)
	for text, want := range map[string]string{
		"a juke joint in the mississippi delta": "blues",
		"a rave in a berlin warehouse":          "techno",
		"a speakeasy in the roaring twenties":   "swing",
		"a honky-tonk saloon":                   "country",
		"a cathedral at evensong":               "choir",
		"a south london estate at night":        "trap",
	} {
		got := top(t, e, text, 4)
		if !slices.Contains(got, want) {
			t.Errorf("%q: top anchors %v, want %s among them", text, got, want)
		}
	}
}

// TestPhraseKey: fillers after a phrase's first word are dropped, so
// WordNet's "let one's hair down" and a request's "letting my hair down"
// meet; Morph undoes a doubled consonant.
func TestPhraseKey(t *testing.T) {
	if got := PhraseKey(Tokens("let one's hair down")); got != "let hair down" {
		t.Errorf("PhraseKey = %q", got)
	}
	if got := PhraseKey(Tokens("the end")); got != "the end" {
		t.Errorf("a first filler stays: %q", got)
	}
	for w, base := range map[string]string{"letting": "let", "stopped": "stop", "bigger": "big"} {
		if !slices.Contains(Morph(w), base) {
			t.Errorf("Morph(%q) = %v, want %s among them", w, Morph(w), base)
		}
	}
	if slices.Contains(Morph("falling"), "fal") {
		t.Error("Morph undid a doubled l")
	}
}

// TestContextRecordRoundTrip: a context record reads back as written.
func TestContextRecordRoundTrip(t *testing.T) {
	words := map[string]Entry{"house": {Anchors: []uint8{0}, Weights: []float32{1}, Conf: 1},
		"cold": {Anchors: []uint8{2}, Weights: []float32{1}, Conf: 1}}
	ctxs := map[string]Context{"house": {Flags: FlagHomonym | FlagMusic, Senses: []Sense{
		{Entry: Entry{Anchors: []uint8{1}, Weights: []float32{1}, Conf: 0.5}, Signature: []string{"dwelling", "home"}},
		{Signature: []string{"firm"}},
	}}}
	e, err := New(Encode([]string{"house", "warm", "cold"}, words, nil, ctxs))
	if err != nil {
		t.Fatal(err)
	}
	c := e.contextOf("house")
	if len(c) < 2 || c[0] != FlagHomonym|FlagMusic {
		t.Fatalf("flags %v", c)
	}
	got := signatures(c)
	if len(got) != 2 || !slices.Equal(got[0], []string{"dwelling", "home"}) || !slices.Equal(got[1], []string{"firm"}) {
		t.Errorf("senses %v", got)
	}
	if w := weight(t, e, "house", "house"); w < 0.99 {
		t.Errorf("house alone: house %.2f", w)
	}
	// Beside another word, the everyday sense whose signature it shares
	// (the first: dwelling, warm), none of the music sense.
	if h, w := weight(t, e, "a cold dwelling house", "house"), weight(t, e, "a cold dwelling house", "warm"); h != 0 || w < 0.4 {
		t.Errorf("house beside dwelling: house %.2f, warm %.2f", h, w)
	}
	// The everyday sense that shares no word with the request is not read
	// for one that does.
	if w := weight(t, e, "cold house firm", "warm"); w != 0 {
		t.Errorf("house beside firm: the firm sense (nothing), got warm %.2f", w)
	}
}

// FuzzEmbedQuery: any request reads into nothing or a unit vector, never
// a panic or a NaN (phrases, fillers, hyphens, homonyms, idioms).
func FuzzEmbedQuery(f *testing.F) {
	for _, s := range []string{"rock bottom", "letting my hair down", "a-trap door-house", "the the the house",
		"on pins and needles", "bass-fishing rock'n'roll", "my my my", "soul-searching house music", ""} {
		f.Add(s)
	}
	e, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := e.EmbedQuery(t.Context(), text)
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return
		}
		var s float64
		for _, x := range v {
			if x != x || x < 0 {
				t.Fatalf("%q: component %v", text, x)
			}
			s += float64(x) * float64(x)
		}
		if s < 0.98 || s > 1.02 {
			t.Fatalf("%q: |v|² = %.3f", text, s)
		}
	})
}

// TestNothingMusicalIsNil: a request whose words are all everyday senses
// with no music meaning reads as nothing (nil), as Embed's unknown words do.
func TestNothingMusicalIsNil(t *testing.T) {
	words := map[string]Entry{"house": {Anchors: []uint8{0}, Weights: []float32{1}, Conf: 1},
		"cold": {Anchors: []uint8{1}, Weights: []float32{1}, Conf: 1}}
	ctxs := map[string]Context{
		"house": {Flags: FlagHomonym | FlagMusic, Senses: []Sense{{Signature: []string{"dwelling"}}}},
		"cold":  {Flags: FlagHomonym | FlagMusic, Senses: []Sense{{Signature: []string{"weather"}}}},
	}
	e, err := New(Encode([]string{"house", "cold"}, words, nil, ctxs))
	if err != nil {
		t.Fatal(err)
	}
	// Two homonyms are not each other's musical context ("lost my keys
	// in the house", "the world record").
	if v, _ := e.EmbedQuery(t.Context(), "cold house"); v != nil {
		t.Errorf("cold house: two homonyms read each other as music: %v", v)
	}
	ctxs["cold"] = Context{Senses: []Sense{{Signature: []string{"weather"}}}}
	words["cold"] = Entry{}
	e, err = New(Encode([]string{"house", "cold"}, words, nil, ctxs))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := e.EmbedQuery(t.Context(), "moving into our house in the cold"); v != nil {
		t.Errorf("everyday senses only: %v, want nil", v)
	}
}

// BenchmarkEmbedQuery prints what reading a new request in context costs
// against embedding it word by word (a request is read once per snapshot
// and cached by its normalized text).
func BenchmarkEmbedQuery(b *testing.B) {
	e, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	reqs := []string{"moving into our first house together", "punk rock for a skate session",
		"letting my hair down on a friday night", "grieving my old dog", "a juke joint in the mississippi delta",
		"calm piano for studying", "epic trailer music", "bass fishing on a quiet lake"}
	for _, c := range []struct {
		name string
		fn   func(string)
	}{
		{"context", func(s string) { _, _ = e.EmbedQuery(b.Context(), s) }},
		{"words", func(s string) { _, _ = e.Embed(b.Context(), s) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				c.fn(reqs[i%len(reqs)])
			}
		})
	}
}

// signatures lists the signature words of each sense of a context record.
func signatures(ctx []byte) [][]string {
	var sigs [][]string
	eachSense(ctx, func(_ []byte, sig [][]byte) {
		var s []string
		for _, w := range sig {
			s = append(s, string(w))
		}
		sigs = append(sigs, s)
	})
	return sigs
}

// TestPronounIsSingerOnlyAsSinger: "her" and "his" name who sings only
// as the singer ("sung by her", "his voice"), not as an owner or a
// recipient ("her birthday", "a love song for him").
func TestPronounIsSingerOnlyAsSinger(t *testing.T) {
	e := defaultEmbedder(t)
	for text, gender := range map[string]string{
		"a song for her birthday":   "female",
		"music for his wedding day": "male",
		"a love song for him":       "male",
		"the key to her heart":      "female",
	} {
		if w := weight(t, e, text, gender); w > 0 {
			t.Errorf("%q: %s %.2f, want none", text, gender, w)
		}
	}
	for text, gender := range map[string]string{
		"a ballad sung by her":     "female",
		"his voice over a guitar":  "male",
		"she sings about the sea":  "female",
		"he sings the blues":       "male",
		"her vocals, soft and low": "female",
	} {
		if w := weight(t, e, text, gender); w < 0.3 {
			t.Errorf("%q: %s %.2f, want the singer's gender", text, gender, w)
		}
	}
}

// TestModifierCountsLess: a word in a place or time modifier ("… at
// night", "… in the castle") counts wModifier of the scene it modifies;
// the same words side by side count alike, and so does a place after a
// time word.
func TestModifierCountsLess(t *testing.T) {
	e := defaultEmbedder(t)
	ratio := func(text string) float32 {
		return weight(t, e, text, "action") / weight(t, e, text, "night")
	}
	side, mod := ratio("car chase and night"), ratio("car chase at night")
	if !(mod > side*1.2) {
		t.Errorf("action/night: %.2f side by side, %.2f with the night a modifier; want the chase to lead", side, mod)
	}
	// After a time, the place is the scene: it counts in full.
	a, _ := e.EmbedQuery(t.Context(), "sunset at a beach club")
	b, _ := e.EmbedQuery(t.Context(), "sunset and a beach club")
	if !slices.Equal(a, b) {
		t.Error("the place after a time (sunset at a beach club) read as a modifier")
	}
	if toks := Tokens("night in a car chase"); modifierAt(toks, 0, 1) || !modifierAt(toks, 0, 3) {
		t.Error("a locative after the word counted as before it, or one before it not")
	}
	if modifierAt(Tokens("dinner at home and a party"), 1, 5) {
		t.Error("a conjunction did not end the locative's phrase")
	}
	if !modifierAt(Tokens("a chase at night"), 2, 4) {
		t.Error("at night not read as a modifier")
	}
}
