package main

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"musiccatalog/pkg/search/semantic"
)

// What the request reading (semantic/context.go) needs beyond meanings:
// which words name feelings, which are music words, and the everyday
// senses of the homonyms ("@homonym" lines) with their Lesk signatures.

// WordNet lexicographer files (lexnames(5WN)) that name feelings.
const (
	adjAll      = 0
	adjPert     = 1
	nounFeeling = 12
	verbEmotion = 37
	adjPpl      = 44
)

// musicRoots are the synsets whose hyponyms are music: a sense below one
// of them, or whose definition speaks of music, is a music sense.
var musicRoots = []string{"music/n/1", "music/n/2", "music/n/3", "musical_instrument/n/1",
	"musical_composition/n/1", "musician/n/1", "musician/n/2", "singer/n/1", "musical_organization/n/1",
	"musical_notation/n/1", "sound_recording/n/1", "tonality/n/1", "pitch/n/1"}

// musicGlossWords mark a music sense in a synset's definition.
var musicGlossWords = map[string]bool{"music": true, "musical": true, "musician": true, "musicians": true,
	"song": true, "songs": true, "singing": true, "melody": true, "instrument": true}

// maxEverydaySenses bounds the everyday senses kept for a homonym.
const maxEverydaySenses = 4

// senseKey is the synset of lemma/pos/sense ("" when WordNet lacks it).
func senseKey(db *wordnet, root string) string {
	parts := strings.Split(root, "/")
	if len(parts) != 3 {
		return ""
	}
	n := 0
	for _, k := range db.senses[strings.ReplaceAll(parts[0], "_", " ")] {
		if strings.HasPrefix(k, posLetter[parts[1]]) {
			n++
			if parts[2] == strconv.Itoa(n) {
				return k
			}
		}
	}
	return ""
}

// musicSenses returns the synsets that are music senses: under a music
// root (hypernyms, any depth) or defined with a music word.
func musicSenses(db *wordnet) map[string]bool {
	roots := map[string]bool{}
	for _, r := range musicRoots {
		if k := senseKey(db, r); k != "" {
			roots[k] = true
		}
	}
	memo := map[string]int8{} // 1 music, -1 not
	var under func(k string, depth int) bool
	under = func(k string, depth int) bool {
		if roots[k] {
			return true
		}
		if m, ok := memo[k]; ok {
			return m > 0
		}
		if depth > 16 {
			return false
		}
		res := false
		for _, p := range db.synsets[k].ptrs {
			if (p.sym == "@" || p.sym == "@i") && under(p.target, depth+1) {
				res = true
				break
			}
		}
		memo[k] = map[bool]int8{true: 1, false: -1}[res]
		return res
	}
	out := map[string]bool{}
	for k, ss := range db.synsets {
		if under(k, 0) {
			out[k] = true
			continue
		}
		def, _, _ := strings.Cut(ss.gloss, ";")
		for _, w := range semantic.Tokens(def) {
			if musicGlossWords[w] {
				out[k] = true
				break
			}
		}
	}
	return out
}

// feelingSenses returns the synsets that name feelings: WordNet's
// feelings and emotions, and the adjectives derived from, pertaining or
// the attribute of one, or similar to such an adjective.
func feelingSenses(db *wordnet) map[string]bool {
	out := map[string]bool{}
	for k, ss := range db.synsets {
		if ss.lexfile == nounFeeling || ss.lexfile == verbEmotion {
			out[k] = true
		}
	}
	isAdj := func(ss *synset) bool { return ss.lexfile == adjAll || ss.lexfile == adjPert || ss.lexfile == adjPpl }
	direct := map[string]bool{}
	for k, ss := range db.synsets {
		if !isAdj(ss) {
			continue
		}
		for _, p := range ss.ptrs {
			if (p.sym == "\\" || p.sym == "+" || p.sym == "=") && out[p.target] {
				direct[k] = true
				break
			}
		}
	}
	for k, ss := range db.synsets {
		if direct[k] {
			out[k] = true
			continue
		}
		if !isAdj(ss) {
			continue
		}
		for _, p := range ss.ptrs {
			if p.sym == "&" && direct[p.target] {
				out[k] = true
				break
			}
		}
	}
	return out
}

// isFeelingWord: the first sense of the word's commonest part of speech
// (most senses tagged in WordNet's concordance) names a feeling ("long"
// the adjective, not "long for"; "grieve" the verb).
func isFeelingWord(db *wordnet, feel map[string]bool, w string) bool {
	first, best := "", -1
	for _, k := range db.senses[w] {
		if n := db.tagged[w+" "+k[:1]]; n > best {
			first, best = k, n
		}
	}
	return first != "" && feel[first]
}

// signature is the words a sense is written with: its synset's words, its
// gloss (definition and examples) and its hypernyms' words, less
// stopwords and the homonym itself.
func signature(db *wordnet, k, homonym string) []string {
	ss := db.synsets[k]
	set := map[string]bool{}
	add := func(text string) {
		for _, w := range semantic.Tokens(text) {
			if !semantic.IsStopword(w) && w != homonym && len(w) > 2 {
				set[w] = true
			}
		}
	}
	for _, w := range ss.words {
		add(w)
	}
	add(ss.gloss)
	for _, p := range ss.ptrs {
		if p.sym == "@" || p.sym == "@i" {
			for _, w := range db.synsets[p.target].words {
				add(w)
			}
		}
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// contexts builds the context table: every homonym's everyday senses,
// the music words, the feeling words and idioms.
func contexts(lx *lexicon, db *wordnet, cur map[string]vec, music map[string]bool, out map[string]semantic.Entry) map[string]semantic.Context {
	feel := feelingSenses(db)
	ctx := map[string]semantic.Context{}
	flag := func(w string, f uint8) {
		c := ctx[w]
		c.Flags |= f
		ctx[w] = c
	}
	for w := range db.senses {
		key := normKey(w)
		if _, known := out[key]; !known {
			continue
		}
		if isFeelingWord(db, feel, w) {
			flag(key, semantic.FlagFeeling)
		}
		if musicWord(lx, db, music, w, key) {
			flag(key, semantic.FlagMusic)
		}
	}
	for _, w := range lx.musicWords {
		flag(w, semantic.FlagMusic)
	}
	musicAnchor := make([]bool, len(lx.anchors))
	moodAnchor := make([]bool, len(lx.anchors))
	for i, a := range lx.anchors {
		musicAnchor[i] = slices.Contains(lx.musicAnchors, a)
		moodAnchor[i] = slices.Contains(lx.moodAnchors, a)
	}
	for w, v := range lx.words {
		// Style names WordNet lacks ("dubstep", "lo-fi") are music words;
		// a place or a scene ("ibiza") means more than a style.
		if _, inWN := db.senses[w]; !inWN && !strings.Contains(w, " ") && musicAnchor[argmax(v)] && share(v, musicAnchor) >= musicShare {
			flag(w, semantic.FlagMusic)
		}
		// A written adjective that means a mood names a feeling
		// ("lonely", "missing", "heartbroken").
		if !strings.Contains(w, " ") && adjective(db, w) && share(v, moodAnchor) >= feelingShare {
			flag(w, semantic.FlagFeeling)
		}
	}
	for key, words := range lx.idiomGloss {
		for _, w := range words {
			if c, ok := ctx[w]; ok && c.Flags&semantic.FlagFeeling != 0 {
				flag(key, semantic.FlagFeeling)
				break
			}
		}
	}
	for _, h := range lx.homonyms {
		c := ctx[h]
		c.Flags |= semantic.FlagHomonym | semantic.FlagMusic
		for r, k := range db.senses[h] {
			if r == maxSenses || len(c.Senses) == maxEverydaySenses {
				break
			}
			if music[k] {
				continue
			}
			s := semantic.Sense{Signature: signature(db, k, h)}
			if v, ok := cur[k]; ok && v.norm() > 0 {
				v = without(v, lx.words[h])
				s.Entry = entry(v, derivedConf*min(1, v.norm()))
			}
			c.Senses = append(c.Senses, s)
		}
		ctx[h] = c
	}
	for k, c := range ctx {
		if c.Flags == 0 && len(c.Senses) == 0 {
			delete(ctx, k)
		}
	}
	return ctx
}

// Shares of a written word's meaning (squared weights) that make it a
// style name (on @musicanchors) or a feeling (on @moodanchors).
const (
	musicShare   = 0.5
	feelingShare = 0.85
)

func share(v vec, on []bool) float64 {
	var all, in float64
	for i, x := range v {
		all += x * x
		if on[i] {
			in += x * x
		}
	}
	if all == 0 {
		return 0
	}
	return in / all
}

// adjective: the word's commonest part of speech in WordNet (most senses
// tagged) is the adjective.
func adjective(db *wordnet, w string) bool {
	best, pos := -1, ""
	for _, k := range db.senses[w] {
		if n := db.tagged[w+" "+k[:1]]; n > best {
			best, pos = n, k[:1]
		}
	}
	return pos == "a"
}

// musicWord: the word's first sense is music ("guitar", "choir"), or it
// is written for a style or an instrument and one of its senses is music
// ("jazz", whose first sense in WordNet is empty talk).
func musicWord(lx *lexicon, db *wordnet, music map[string]bool, w, key string) bool {
	ks := db.senses[w]
	if music[ks[0]] && ks[0][0] == 'n' {
		return true
	}
	v, written := lx.words[key]
	if !written || !slices.Contains(lx.musicAnchors, lx.anchors[argmax(v)]) {
		return false
	}
	for _, k := range ks {
		if music[k] && k[0] == 'n' {
			return true
		}
	}
	return false
}

// without is v less its component along the music meaning m (negative
// parts dropped): an everyday sense keeps nothing of the music sense its
// WordNet neighbours lent it ("organ" the body part is no organ music).
func without(v, m vec) vec {
	if m == nil {
		return v
	}
	u := m.unit()
	var d float64
	for i := range v {
		d += v[i] * u[i]
	}
	out := make(vec, len(v))
	for i := range v {
		out[i] = max(0, v[i]-d*u[i])
	}
	return out
}

func argmax(v vec) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// normKey is the key a WordNet lemma or a written key is stored under:
// its tokens as a request reads them, fillers after the first word
// dropped (semantic.PhraseKey).
func normKey(w string) string {
	if t := semantic.Tokens(w); len(t) > 0 {
		return semantic.PhraseKey(t)
	}
	return strings.Join(strings.Fields(strings.ToLower(w)), " ")
}
