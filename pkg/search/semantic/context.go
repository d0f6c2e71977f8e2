package semantic

import (
	"bytes"
	"context"
	"slices"
	"strings"
)

// Reading a request in context (EmbedQuery): what a word means depends
// on its neighbours.
//
//   - A phrase is read before its words, with its fillers (articles,
//     possessives, WordNet's "one's") skipped and its first or last word
//     in any inflection ("letting my hair down" is "let hair down"); two
//     words written as one word or hyphenated are one ("trap door" is
//     trapdoor, "soul searching" soul-searching).
//   - A word whose music sense is a homonym of an everyday word (house,
//     rock, soul, trap, organ, bass…; FlagHomonym) means its music sense
//     only in musical context: another music word in the request ("punk
//     rock", "soul singer", "organ and choir"), the word alone ("house"),
//     or the word after descriptors of music only ("energetic rock").
//     Otherwise it means the everyday sense whose WordNet gloss, synonyms
//     and hypernyms share most words with the request (a Lesk overlap),
//     or failing any overlap its most frequent everyday sense.
//   - A feeling comes before a topic's associations: when a request names
//     a feeling (FlagFeeling: WordNet's feelings and emotions and the
//     adjectives of them) beside words that carry moods only by
//     association, those words' moods count feelingTopic of their weight
//     ("grieving my old dog" is sad, not playful).

// Context is what the request reading knows of a word or phrase beyond
// its meaning: its flags and, for a homonym, its everyday senses.
type Context struct {
	Flags  uint8
	Senses []Sense // most frequent first
}

// Sense is one everyday sense of a homonym: its meaning and the words its
// gloss, synonyms and hypernyms are written with (its Lesk signature).
type Sense struct {
	Entry     Entry
	Signature []string
}

// Context flags.
const (
	// FlagFeeling marks a word or idiom that names a feeling.
	FlagFeeling uint8 = 1 << iota
	// FlagMusic marks a music word: a homonym beside it is read in its
	// music sense.
	FlagMusic
	// FlagHomonym marks a word whose written (music) meaning counts only
	// in musical context.
	FlagHomonym
)

func appendContext(data *bytes.Buffer, c Context) {
	data.WriteByte(c.Flags)
	data.WriteByte(byte(min(len(c.Senses), 255)))
	for _, s := range c.Senses[:min(len(c.Senses), 255)] {
		appendEntry(data, s.Entry)
		n := min(len(s.Signature), 255)
		data.WriteByte(byte(n))
		for _, w := range s.Signature[:n] {
			w = w[:min(len(w), 255)]
			data.WriteByte(byte(len(w)))
			data.WriteString(w)
		}
	}
}

// fillers are the words a phrase is read without when they are not its
// first word: "heart in my throat" is "heart in throat", WordNet's "let
// one's hair down" is "let hair down".
var fillers = map[string]bool{"a": true, "an": true, "the": true, "my": true, "your": true, "his": true,
	"her": true, "our": true, "their": true, "its": true, "one": true, "someone": true, "somebody": true, "something": true}

// PhraseKey is the key a phrase of tokens is written and looked up under:
// its words less the fillers after the first.
func PhraseKey(toks []string) string {
	if len(toks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(toks[0])
	for _, t := range toks[1:] {
		if !fillers[t] {
			b.WriteByte(' ')
			b.WriteString(t)
		}
	}
	return b.String()
}

// feelingTopic is how much a topic word's moods count beside a feeling
// word (0.1; 0.25 and 0.4 measured a little lower on the tuning sets,
// scaling the topic's other anchors too cost the judged set 0.006).
const feelingTopic = 0.1

// occasionNames are the use-case anchors.
var occasionNames = strings.Fields("study sleep workout party wedding travel trailer horror nature kids comedy sports " +
	"gaming night summer city space christmas action drama fashion tech ceremony meditation")

// descriptorShare is the share of a word's meaning (squared weights) in
// the mood, energy and tempo anchors that makes it a descriptor of
// music ("energetic", "sad", "slow").
const descriptorShare = 0.8

// affectNames are the anchors a topic carries moods on by association:
// moods, energy and tempo, and the use cases that are moods by another
// name (comedy, party, kids).
var affectNames = strings.Fields("happy uplifting energetic playful hopeful romantic calm peaceful dreamy sad " +
	"melancholic dark tense mysterious epic aggressive nostalgic sensual triumphant scary lonely warm loud soft fast slow " +
	"comedy party kids")

// reading is one reading of a request: a phrase, a word or a stopword.
type reading struct {
	word      string // the token, for a one-word reading
	rec, rec2 []byte // meaning (rec2: a compound's second word)
	lo, hi    int    // token span
	ctx       []byte // context record, or nil
}

func (u *reading) flags() uint8 {
	if len(u.ctx) == 0 {
		return 0
	}
	return u.ctx[0]
}

// phrase finds the longest phrase (2..maxPhrase words, fillers skipped)
// starting at toks[i]: its record, context record and the index after
// it. With variants, its first and last words may be inflected and two
// words may be one written as one or hyphenated.
func (e *Embedder) phrase(toks []string, i int, variants bool) (rec, ctx []byte, end int) {
	var words [maxPhrase]string
	var ends [maxPhrase]int
	words[0], ends[0] = toks[i], i+1
	n := 1
	// A run of fillers ends the search early: a phrase skips a few of
	// them, not a paragraph's (reading stays linear in the text).
	for j := i + 1; j < len(toks) && n < maxPhrase && j-i < 2*maxPhrase; j++ {
		if !fillers[toks[j]] {
			words[n], ends[n] = toks[j], j+1
			n++
		}
	}
	for k := n; k >= 2; k-- {
		key := strings.Join(words[:k], " ")
		if rec := e.words.find(key); rec != nil {
			return rec, e.contexts.findRaw(key), ends[k-1]
		}
		if !variants || contentWords(words[:k]) < 2 { // "horns in" is not "horn in"
			continue
		}
		// An inflected phrase is read whole when it is written (an idiom)
		// or holds a homonym; a phrase WordNet merely lists ("island
		// hopping") leaves its words their meaning.
		homonym := e.holdsFlag(words[:k], FlagHomonym)
		for _, f := range Morph(words[0]) {
			key := f + " " + strings.Join(words[1:k], " ")
			if rec := e.words.find(key); rec != nil && (homonym || rec[0] == 255) {
				return rec, e.contexts.findRaw(key), ends[k-1]
			}
		}
		for _, f := range Morph(words[k-1]) {
			key := strings.Join(words[:k-1], " ") + " " + f
			if rec := e.words.find(key); rec != nil && (homonym || rec[0] == 255) {
				return rec, e.contexts.findRaw(key), ends[k-1]
			}
		}
		// A homonym written apart from its compound ("trap door" is a
		// trapdoor, "soul searching" soul-searching); other pairs keep
		// their words ("island hopping" is islands first).
		if k == 2 && ends[1] == i+2 && !IsStopword(words[0]) && !IsStopword(words[1]) && homonym {
			for _, key := range [2]string{words[0] + "-" + words[1], words[0] + words[1]} {
				if rec := e.lookup(key); rec != nil {
					return rec, e.contexts.findRaw(key), i + 2
				}
			}
		}
	}
	return nil, nil, 0
}

func contentWords(ws []string) int {
	n := 0
	for _, w := range ws {
		if !IsStopword(w) {
			n++
		}
	}
	return n
}

// units reads toks into phrases and words, longest phrase first; with
// query, phrases in their variants and stopwords too (a stopword such as
// "song" is still a music word).
func (e *Embedder) units(toks []string, query bool) []reading {
	var us []reading
	for i := 0; i < len(toks); {
		if rec, ctx, end := e.phrase(toks, i, query); rec != nil {
			if query && (len(ctx) == 0 || ctx[0]&FlagMusic == 0) && e.holdsMusicWord(toks[i:end]) {
				// "female vocals": a phrase of a music word is one
				c := []byte{FlagMusic, 0}
				if len(ctx) > 0 {
					c[0] |= ctx[0]
				}
				ctx = c
			}
			us = append(us, reading{rec: rec, lo: i, hi: end, ctx: ctx})
			i = end
			continue
		}
		t := toks[i]
		u := reading{word: t, lo: i, hi: i + 1}
		switch {
		case objectPronouns[t] && !pronounVoice(toks, i):
			// "her birthday", "a song for her": whose or for whom, not who sings
		case IsStopword(t):
			if query {
				u.ctx = e.contextOf(t)
				us = append(us, u)
			}
		case e.lookup(t) != nil:
			u.rec, u.ctx = e.lookup(t), e.contextOf(t)
			us = append(us, u)
		default:
			if a, b := e.compound(t); a != nil {
				u.rec, u.rec2 = a, b
				us = append(us, u)
			} else if strings.ContainsRune(t, '-') {
				for _, s := range e.units(Tokens(strings.ReplaceAll(t, "-", " ")), query) {
					s.lo, s.hi = i, i+1
					us = append(us, s)
				}
			} else if query {
				if u.ctx = e.contextOf(t); u.ctx != nil { // a music word of no meaning of its own ("mic")
					us = append(us, u)
				}
			}
		}
		i++
	}
	return us
}

// objectPronouns are the pronouns that name a singer's gender only as
// the singer ("sung by her", "his voice"), not as an owner or a
// recipient ("her birthday", "a song for him"). "She" and "he" are
// subjects, a singer when they sing, and keep their meaning.
var objectPronouns = map[string]bool{"her": true, "his": true, "him": true}

// voiceNouns are the words after an object pronoun that make it the
// singer ("her voice", "his vocals").
var voiceNouns = map[string]bool{"voice": true, "voices": true, "vocal": true, "vocals": true, "singing": true,
	"falsetto": true, "croon": true, "crooning": true}

// pronounVoice reports whether the object pronoun toks[i] names the
// singer: after "by" ("sung by her") or before a voice noun.
func pronounVoice(toks []string, i int) bool {
	return (i > 0 && toks[i-1] == "by") || (i+1 < len(toks) && voiceNouns[toks[i+1]])
}

// holdsMusicWord reports whether one of words is a music word that is no
// homonym ("female vocals", not "world record").
func (e *Embedder) holdsMusicWord(words []string) bool {
	for _, w := range words {
		if c := e.contextOf(w); len(c) > 0 && c[0]&FlagMusic != 0 && c[0]&FlagHomonym == 0 {
			return true
		}
	}
	return false
}

// holdsFlag reports whether one of words has flag f.
func (e *Embedder) holdsFlag(words []string, f uint8) bool {
	for _, w := range words {
		if c := e.contextOf(w); len(c) > 0 && c[0]&f != 0 {
			return true
		}
	}
	return false
}

// contextOf is the context record of a word or of a base form of it.
func (e *Embedder) contextOf(w string) []byte { return byForm(w, e.contexts.findRaw) }

// EmbedQuery returns the unit vector of a request read in context (see
// above), or nil when no word of it is known.
func (e *Embedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	toks := Tokens(text)
	us := e.units(toks, true)
	var content []int
	for k := range us {
		if us[k].rec != nil {
			content = append(content, k)
		}
	}
	if len(content) == 0 {
		return nil, nil
	}
	for pos, k := range content {
		if us[k].flags()&FlagHomonym == 0 || us[k].hi != us[k].lo+1 || e.musicContext(us, content, k, pos) {
			continue
		}
		rec, overlap := e.everyday(us[k].ctx, toks, us[k].lo)
		if overlap == 0 && pos == 0 && pos+1 < len(content) && content[1] == k+1 && e.occasionWord(us[k+1].rec) {
			continue // "rock workout", "pop party": a style for an occasion
		}
		us[k].rec, us[k].rec2 = rec, nil
	}
	// A topic is a word that names no feeling and is no descriptor
	// itself ("crying" is one).
	feeling, topic := false, make([]bool, len(us))
	anyTopic := false
	for _, k := range content {
		switch {
		case us[k].flags()&FlagFeeling != 0:
			feeling = true
		case us[k].rec != nil && !e.descriptor(us[k].rec):
			topic[k], anyTopic = true, true
		}
	}
	v := make([]float32, len(e.anchors))
	tmp := make([]float32, len(e.anchors))
	for pos, k := range content {
		u := &us[k]
		if u.rec == nil {
			continue
		}
		w := float32(1)
		if pos > 0 && !timeWords[toks[us[content[0]].lo]] && modifierAt(toks, us[content[0]].hi, u.lo) {
			w = wModifier
		}
		if !feeling || !anyTopic || !topic[k] {
			addRec(v, u.rec, w)
			if u.rec2 != nil {
				addRec(v, u.rec2, w)
			}
			continue
		}
		clear(tmp)
		addRec(tmp, u.rec, w)
		if u.rec2 != nil {
			addRec(tmp, u.rec2, w)
		}
		for d, x := range tmp {
			if e.affect[d] {
				x *= feelingTopic
			}
			v[d] += x
		}
	}
	if !slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		return nil, nil // only everyday senses music has no word for
	}
	return unit(v), nil
}

// wModifier is how much a word in a place or time modifier counts
// ("car chase through the city at night": the chase is the scene, the
// city and the night where it happens). 0.7 measured best of 0.6/0.7/0.8
// over the tuning sets (README, Search); "by" is no locative ("sung by
// her" names the singer).
const wModifier = 0.7

// locatives open a place or time modifier.
var locatives = map[string]bool{"in": true, "at": true, "on": true, "through": true, "from": true,
	"during": true, "near": true, "inside": true, "across": true, "around": true, "along": true, "under": true, "over": true}

// timeWords are the words of a time that a place after it does not
// modify but sets ("sunset at an ibiza beach club", "midnight in a big
// city", "sunday morning in a harlem church": the place is the scene).
var timeWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("sunrise sunset dawn dusk twilight daybreak midnight noon night nights morning mornings " +
		"afternoon afternoons evening evenings weekend weekends today tonight monday tuesday wednesday thursday friday " +
		"saturday sunday summer winter spring autumn fall christmas halloween") {
		timeWords[w] = true
	}
}

// modifierAt reports whether a locative stands in toks[from:to] (after
// the request's first content word and before the word at to) with no
// conjunction after it: "and", "but" … end the locative's phrase ("dinner
// at home and energetic").
func modifierAt(toks []string, from, to int) bool {
	to = min(to, len(toks))
	if from >= to {
		return false
	}
	in := false
	for _, t := range toks[from:to] {
		switch {
		case locatives[t]:
			in = true
		case conjunctions[t]:
			in = false
		}
	}
	return in
}

// conjunctions end a locative's phrase.
var conjunctions = map[string]bool{"and": true, "but": true, "or": true, "then": true, "while": true, "plus": true, "yet": true}

// maxAloneWith is how many other words (fillers aside) a homonym is
// still alone with ("some house please").
const maxAloneWith = 2

// musicContext reports whether the homonym at us[k] (the pos-th content
// unit) is read in its music sense: another music word in the request,
// the word alone, the word first and asked for a purpose ("… for …"), or
// the word last after descriptors of music only.
func (e *Embedder) musicContext(us []reading, content []int, k, pos int) bool {
	for j := range us {
		// A homonym is no music context for another ("lost my keys in
		// the house", "the world record"): each may be its everyday self.
		if j != k && us[j].flags()&FlagMusic != 0 && us[j].flags()&FlagHomonym == 0 {
			return true
		}
	}
	if len(content) == 1 { // alone, unless in a sentence ("like the world is against me")
		others := 0
		for j := range us {
			if j != k && !fillers[us[j].word] {
				others++
			}
		}
		return others <= maxAloneWith
	}
	// Asked for by purpose: the request's first word is the homonym and
	// "for" follows it, then an occasion or activity ("rock for the gym",
	// "house for a pool party"; not "house for sale").
	if pos == 0 && k+1 < len(us) && us[k+1].word == "for" {
		for _, j := range content[pos+1:] {
			if e.occasionWord(us[j].rec) {
				return true
			}
		}
	}
	if pos != len(content)-1 {
		return false
	}
	for _, j := range content[:pos] {
		if !e.descriptor(us[j].rec) || us[j].rec2 != nil {
			return false
		}
	}
	return true
}

// descriptor reports whether a word's meaning lies mostly on the mood,
// energy and tempo anchors.
func (e *Embedder) descriptor(rec []byte) bool {
	var all, aff float32
	for j := range int(rec[1]) {
		a, x := rec[2+2*j], float32(rec[3+2*j])
		all += x * x
		if int(a) < len(e.affect) && e.affect[a] && !e.moodCase[a] {
			aff += x * x
		}
	}
	return all > 0 && aff >= descriptorShare*all
}

// everyday returns the meaning (an entry record, possibly of no anchors)
// of the everyday sense of the homonym at toks[at] whose signature shares
// most words with the rest of the request, and how many; the first sense
// when none shares any.
func (e *Embedder) everyday(ctx []byte, toks []string, at int) ([]byte, int) {
	forms := map[string]bool{}
	for j, t := range toks {
		if j == at || IsStopword(t) {
			continue
		}
		forms[t] = true
		for _, f := range Morph(t) {
			forms[f] = true
		}
	}
	var best []byte
	bestOverlap := -1
	eachSense(ctx, func(rec []byte, sig [][]byte) {
		overlap := 0
		for _, w := range sig {
			s := string(w)
			if forms[s] {
				overlap++
				continue
			}
			for _, f := range Morph(s) {
				if forms[f] {
					overlap++
					break
				}
			}
		}
		if overlap > bestOverlap {
			best, bestOverlap = rec, overlap
		}
	})
	if best == nil {
		return emptyRec, 0
	}
	return best, bestOverlap
}

// occasionWord reports whether a word's strongest anchor is a use case
// (an occasion, an activity, a medium: "workout", "party", "wedding").
func (e *Embedder) occasionWord(rec []byte) bool {
	if rec == nil || rec[1] == 0 {
		return false
	}
	a := int(rec[2]) // entries are written strongest first
	return a < len(e.occasion) && e.occasion[a]
}

// emptyRec is the record of a meaning with no anchors.
var emptyRec = []byte{0, 0}

// eachSense calls fn with each sense of a context record: its entry
// record and its signature words.
func eachSense(ctx []byte, fn func(rec []byte, sig [][]byte)) {
	if len(ctx) < 2 {
		return
	}
	n, b := int(ctx[1]), ctx[2:]
	for range n {
		if len(b) < 2 || len(b) < 2+2*int(b[1])+1 {
			return
		}
		rec := b[:2+2*int(b[1])]
		b = b[len(rec):]
		m := int(b[0])
		b = b[1:]
		sig := make([][]byte, 0, m)
		for range m {
			if len(b) < 1 || len(b) < 1+int(b[0]) {
				return
			}
			sig = append(sig, b[1:1+b[0]])
			b = b[1+b[0]:]
		}
		fn(rec, sig)
	}
}
