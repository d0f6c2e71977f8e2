package semantic

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

//go:embed lexicon.bin
var lexiconBin []byte

// maxPhrase is the longest phrase (in words) the lexicon is searched for.
const maxPhrase = 4

// Embedder embeds text with a lexicon. It is safe for concurrent use.
type Embedder struct {
	anchors  []string
	facets   table
	words    table
	contexts table
	id       string
	// affect marks the mood, energy and tempo anchors and the use cases
	// that are moods by another name (useCase): what a topic carries by
	// association (context.go).
	affect, moodCase []bool
	// occasion marks the use-case anchors (occasionNames).
	occasion []bool
}

var (
	defaultOnce sync.Once
	defaultEmb  *Embedder
	defaultErr  error
)

// Default is the embedder of the embedded lexicon.
func Default() (*Embedder, error) {
	defaultOnce.Do(func() { defaultEmb, defaultErr = New(lexiconBin) })
	return defaultEmb, defaultErr
}

// New reads a lexicon (Encode's output) in place.
func New(b []byte) (*Embedder, error) {
	anchors, facets, words, contexts, err := parse(b)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	e := &Embedder{anchors: anchors, facets: facets, words: words, contexts: contexts,
		id: fmt.Sprintf("offline-lexicon/%x", sum[:8]), affect: make([]bool, len(anchors)), moodCase: make([]bool, len(anchors)),
		occasion: make([]bool, len(anchors))}
	for i, a := range anchors {
		e.affect[i] = slices.Contains(affectNames, a)
		e.moodCase[i] = a == "comedy" || a == "party" || a == "kids"
		e.occasion[i] = slices.Contains(occasionNames, a)
	}
	return e, nil
}

// ID names the lexicon (its checksum): vectors of another ID are not
// comparable with this embedder's.
func (e *Embedder) ID() string { return e.id }

// Dim is the length of the vectors (the number of anchors).
func (e *Embedder) Dim() int { return len(e.anchors) }

// Anchors are the concepts the dimensions stand for.
func (e *Embedder) Anchors() []string { return e.anchors }

// Words is how many words and phrases the lexicon knows.
func (e *Embedder) Words() int { return e.words.len() }

// Embed returns the unit vector of text, or nil when no word of it is
// known. It never fails (the error is the port's, for hosted models).
func (e *Embedder) Embed(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, len(e.anchors))
	if e.add(v, text, 1) == 0 {
		return nil, nil
	}
	return unit(v), nil
}

// Known reports whether the lexicon has a meaning for word (as written,
// as an inflection of a known word, or as two known words written as
// one).
func (e *Embedder) Known(word string) bool {
	w := strings.ToLower(word)
	if e.lookup(w) != nil {
		return true
	}
	a, _ := e.compound(w)
	return a != nil
}

// Confidence is how much the lexicon trusts its meaning of word (as
// Known finds it): 1 for a written entry (less where its line sets
// @conf), less for one derived through WordNet; false when unknown or
// only a compound of two known words.
func (e *Embedder) Confidence(word string) (float32, bool) {
	rec := e.lookup(strings.ToLower(word))
	if rec == nil {
		return 0, false
	}
	return float32(rec[0]) / 255, true
}

// EmbedFacet returns the vector of a catalog facet value: its name and
// the short description the lexicon holds for it, or failing that the
// name's words (zero-shot). Nil when nothing of it is known.
func (e *Embedder) EmbedFacet(ctx context.Context, value string) ([]float32, error) {
	if rec := e.facets.find(strings.ToLower(strings.TrimSpace(value))); rec != nil {
		v := make([]float32, len(e.anchors))
		addRec(v, rec, 1)
		return unit(v), nil
	}
	return e.Embed(ctx, value)
}

// add adds the meanings of the words of text, weighted by w, to v and
// returns how many words were known. Phrases are matched longest first
// (fillers skipped: PhraseKey); a hyphenated word is also tried as
// separate words ("hip-hop").
func (e *Embedder) add(v []float32, text string, w float32) int {
	us := e.units(Tokens(text), false)
	for _, u := range us {
		addRec(v, u.rec, w)
		if u.rec2 != nil {
			addRec(v, u.rec2, w)
		}
	}
	return len(us)
}

// Compounds: an unknown word of at least minCompound letters may be two
// known words written as one ("skatepark", "bathtime"), each of at least
// minCompoundPart letters; the longest known head (the second word, in
// any inflection) is taken.
const (
	minCompound     = 7
	minCompoundPart = 3
)

// compound returns the records of the two words w is written from, or
// nils.
func (e *Embedder) compound(w string) (first, head []byte) {
	if len(w) < minCompound || strings.ContainsAny(w, "-'&") {
		return nil, nil
	}
	for k := minCompoundPart; k <= len(w)-minCompoundPart; k++ {
		if a := e.words.find(w[:k]); a != nil && !IsStopword(w[:k]) {
			if b := e.lookup(w[k:]); b != nil && !IsStopword(w[k:]) {
				return a, b
			}
		}
	}
	return nil, nil
}

// lookup finds a word or a base form of it.
func (e *Embedder) lookup(w string) []byte { return byForm(w, e.words.find) }

// byForm is find's record of w or, failing that, of its first base form
// that has one.
func byForm(w string, find func(string) []byte) []byte {
	if rec := find(w); rec != nil {
		return rec
	}
	for _, f := range Morph(w) {
		if rec := find(f); rec != nil {
			return rec
		}
	}
	return nil
}

func addRec(v []float32, rec []byte, w float32) {
	conf := float32(rec[0]) / 255
	k := int(rec[1])
	for j := range k {
		a, x := rec[2+2*j], float32(rec[3+2*j])/255
		if int(a) < len(v) {
			v[a] += w * conf * x
		}
	}
}

func unit(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}
