// Command gen builds the offline text embedder's lexicon (lexicon.bin in
// pkg/search/semantic) from the situation lexicon (lexicon.txt, next to
// this file) and Debian's wordnet-base (/usr/share/wordnet):
//
//	go run ./pkg/search/semantic/gen [-wordnet /usr/share/wordnet] [-out pkg/search/semantic/lexicon.bin]
//
// Every lexicon key has the vector written for it. Every other WordNet
// word gets the meaning its senses carry: the lexicon vectors of the
// words of each synset and of the content words of its gloss, spread two
// steps along WordNet's relations (similar adjectives, derived forms,
// pertainyms, "see also", attributes, hypernyms; a place also what the
// place it lies in means), the first senses weighing most, a word of many
// senses trusted less (trees.go). A written word seeds none of its senses
// that music cannot mean (the body, substances, quantities: "organ" is
// not the stomach's hypernym), and "@tree" lines give whole WordNet
// subtrees (every hyponym of fear, of a percussion instrument) a meaning
// at once. Words whose evidence is too thin are left out: an
// unknown word is better than a guessed one. The output is
// deterministic; its SHA-256 is printed and recorded in
// pkg/search/semantic/lexicon.sha256 (checked by the package's tests).
package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"musiccatalog/pkg/search/semantic"
)

func main() {
	wn := flag.String("wordnet", "/usr/share/wordnet", "WordNet database directory (Debian wordnet-base)")
	lexPath := flag.String("lexicon", "pkg/search/semantic/gen/lexicon.txt", "situation lexicon")
	out := flag.String("out", "pkg/search/semantic/lexicon.bin", "output")
	thes := flag.String("thesaurus", "", "aiksaurus data directory (Debian libaiksaurus-1.2-data: /usr/share/aiksaurus; GPL-2+, measured and not kept); empty: none")
	thesBlend := flag.Float64("thesaurus-blend", 0, "with -thesaurus: how much of its neighbours' meaning a derived word takes")
	flag.Parse()
	lx, err := readLexicon(*lexPath)
	if err != nil {
		log.Fatal(err)
	}
	db, err := readWordNet(*wn)
	if err != nil {
		log.Fatal(err)
	}
	words, cur, music := spread(lx, db)
	if *thes != "" {
		th, err := readThesaurus(*thes)
		if err != nil {
			log.Fatal(err)
		}
		added, blended := addThesaurus(th, len(lx.anchors), lx.words, words, *thesBlend)
		fmt.Printf("thesaurus: %d words, %d meanings; %d words added, %d blended\n", len(th.words), len(th.meanings), added, blended)
	}
	addIdioms(lx, words)
	ctx := contexts(lx, db, cur, music, words)
	facets := map[string][]float64{}
	for k, v := range lx.facets {
		facets[k] = v
	}
	b := semantic.Encode(lx.anchors, words, facets, ctx)
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(b))
	if err := os.WriteFile(filepath.Join(filepath.Dir(*out), "lexicon.sha256"), []byte(sum+"  lexicon.bin\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d anchors, %d words (%d from the lexicon, %d idioms), %d facet descriptions, %d context records, %d bytes, sha256 %s\n",
		*out, len(lx.anchors), len(words), len(lx.words), len(lx.idiomGloss), len(lx.facets), len(ctx), len(b), sum)
}

type vec []float64

func (v vec) add(w vec, f float64) {
	for i := range w {
		v[i] += f * w[i]
	}
}

func (v vec) norm() float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func (v vec) unit() vec {
	n := v.norm()
	out := make(vec, len(v))
	if n > 0 {
		for i, x := range v {
			out[i] = x / n
		}
	}
	return out
}

type lexicon struct {
	anchors []string
	words   map[string]vec // the written entries
	// conf is a written entry's confidence when its line sets one
	// ("@conf:0.4": a word that leans, like a format, counts that much
	// against a word that says what the music is); 1 otherwise.
	conf   map[string]float64
	facets map[string]vec // facet value (lower-cased) → name + description
	descr  map[string]string
	trees  []tree // "@tree" lines, in file order
	// The request reading's lists (context.go): "@homonym" words, whose
	// written meaning is their music sense only; "@musicword" words
	// (music words beside which a homonym means music); "@musicanchors",
	// the anchors of styles and instruments; "@idiom key = gloss" lines,
	// idioms read through a gloss written in plain words.
	// "@moodanchors", the anchors a feeling word's meaning lies on.
	homonyms, musicWords, musicAnchors, moodAnchors []string
	idiomGloss                                      map[string][]string
}

func readLexicon(path string) (*lexicon, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lx := &lexicon{words: map[string]vec{}, conf: map[string]float64{}, facets: map[string]vec{}, descr: map[string]string{}, idiomGloss: map[string][]string{}}
	var keyTree string // the "@tree" root of the line being read
	idx := map[string]int{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(s, "@anchors "); ok {
			lx.anchors = strings.Fields(rest)
			for i, a := range lx.anchors {
				idx[a] = i
			}
			continue
		}
		if rest, ok := strings.CutPrefix(s, "@homonym "); ok {
			lx.homonyms = append(lx.homonyms, strings.Fields(rest)...)
			continue
		}
		if rest, ok := strings.CutPrefix(s, "@musicword "); ok {
			lx.musicWords = append(lx.musicWords, strings.Fields(rest)...)
			continue
		}
		if rest, ok := strings.CutPrefix(s, "@musicanchors "); ok {
			if lx.musicAnchors, err = anchorList(rest, idx); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(s, "@moodanchors "); ok {
			if lx.moodAnchors, err = anchorList(rest, idx); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(s, "@idiom "); ok {
			keys, gloss, ok := strings.Cut(rest, "=")
			if !ok {
				return nil, fmt.Errorf("%s:%d: no '='", path, line)
			}
			for _, k := range strings.Split(keys, "|") {
				if k = normKey(k); k != "" {
					lx.idiomGloss[k] = semantic.Tokens(gloss)
				}
			}
			continue
		}
		keys, val, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: no '='", path, line)
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(keys), "@describe "); ok {
			lx.descr[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSpace(val)
			continue
		}
		keyTree = ""
		if root, ok := strings.CutPrefix(strings.TrimSpace(keys), "@tree "); ok {
			keyTree = strings.TrimSpace(root)
		}
		v := make(vec, len(lx.anchors))
		conf := 0.0 // none written
		for _, t := range strings.Fields(val) {
			a, ws, _ := strings.Cut(t, ":")
			w := 1.0
			if ws != "" {
				if w, err = strconv.ParseFloat(ws, 64); err != nil || !(w > 0) { // NaN too
					return nil, fmt.Errorf("%s:%d: weight %q", path, line, t)
				}
			}
			if a == "@conf" {
				if w > 1 {
					return nil, fmt.Errorf("%s:%d: confidence %q above 1", path, line, t)
				}
				conf = w
				continue
			}
			i, ok := idx[a]
			if !ok {
				return nil, fmt.Errorf("%s:%d: unknown anchor %q", path, line, a)
			}
			v[i] += w
		}
		if keyTree != "" {
			if conf > 0 {
				return nil, fmt.Errorf("%s:%d: @conf on a @tree line (a tree's words are spread, not written)", path, line)
			}
			t, err := parseTree(keyTree, v)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			lx.trees = append(lx.trees, t)
			continue
		}
		for _, k := range strings.Split(keys, "|") {
			// A key reads as a query's words do ("man's voice" is
			// looked up as "man voice", "drum & bass" as "drum bass").
			if strings.TrimSpace(k) == "" {
				continue
			}
			if k = normKey(k); k == "" {
				continue
			}
			if old, dup := lx.words[k]; dup { // a word in two entries means both
				// The sum has one confidence: both lines must say the same.
				if lx.conf[k] != conf {
					return nil, fmt.Errorf("%s:%d: %q has confidence %v here and %v on an earlier line", path, line, k, conf, lx.conf[k])
				}
				old.add(v, 1)
				continue
			}
			if conf > 0 {
				lx.conf[k] = conf
			}
			lx.words[k] = slices.Clone(v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(lx.anchors) == 0 || len(lx.anchors) > 255 {
		return nil, fmt.Errorf("%s: %d anchors (1..255)", path, len(lx.anchors))
	}
	for k, v := range lx.words {
		lx.words[k] = v.unit()
	}
	return lx, nil
}

// anchorList reads a list of known anchors.
func anchorList(s string, idx map[string]int) ([]string, error) {
	as := strings.Fields(s)
	for _, a := range as {
		if _, ok := idx[a]; !ok {
			return nil, fmt.Errorf("unknown anchor %q", a)
		}
	}
	return as, nil
}

// synset is one WordNet synset.
type synset struct {
	words   []string
	ptrs    []ptr
	gloss   string
	lexfile int // WordNet's lexicographer file (lexnames(5WN))
}

type ptr struct {
	sym    string
	target string // pos+offset
}

type wordnet struct {
	synsets map[string]*synset  // "n00001740"
	senses  map[string][]string // lemma → synset keys, most frequent sense first
	tagged  map[string]int      // lemma + " " + pos → senses tagged in the concordance (how common the part of speech is)
}

func readWordNet(dir string) (*wordnet, error) {
	db := &wordnet{synsets: map[string]*synset{}, senses: map[string][]string{}, tagged: map[string]int{}}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		if err := readData(db, filepath.Join(dir, "data."+pos)); err != nil {
			return nil, err
		}
		if err := readIndex(db, filepath.Join(dir, "index."+pos)); err != nil {
			return nil, err
		}
	}
	return db, nil
}

var posLetter = map[string]string{"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}

func lemma(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 { // adjective markers: "(a)", "(p)", "(ip)"
		w = w[:i]
	}
	return strings.ToLower(strings.ReplaceAll(w, "_", " "))
}

// eachRecord calls fn with every line of a WordNet database file, past
// the licence header (lines starting with two spaces).
func eachRecord(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if s := sc.Text(); !strings.HasPrefix(s, "  ") {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

func readData(db *wordnet, path string) error {
	return eachRecord(path, func(s string) error {
		data, gloss, _ := strings.Cut(s, " | ")
		fs := strings.Fields(data)
		if len(fs) < 5 {
			return nil
		}
		key := posLetter[fs[2]] + fs[0]
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s: %q: %v", path, fs[0], err)
		}
		lf, _ := strconv.Atoi(fs[1])
		ss := &synset{gloss: gloss, lexfile: lf}
		i := 4
		for range n {
			ss.words = append(ss.words, lemma(fs[i]))
			i += 2
		}
		np, err := strconv.Atoi(fs[i])
		if err != nil {
			return fmt.Errorf("%s: %q: pointers: %v", path, fs[0], err)
		}
		i++
		for range np {
			ss.ptrs = append(ss.ptrs, ptr{sym: fs[i], target: posLetter[fs[i+2]] + fs[i+1]})
			i += 4
		}
		db.synsets[key] = ss
		return nil
	})
}

func readIndex(db *wordnet, path string) error {
	return eachRecord(path, func(s string) error {
		fs := strings.Fields(s)
		if len(fs) < 6 {
			return nil
		}
		pos := posLetter[fs[1]]
		nsyn, _ := strconv.Atoi(fs[2])
		np, _ := strconv.Atoi(fs[3])
		offs := fs[4+np+2:]
		if len(offs) != nsyn {
			return nil
		}
		w := lemma(fs[0])
		db.tagged[w+" "+pos], _ = strconv.Atoi(fs[4+np+1])
		for _, o := range offs {
			db.senses[w] = append(db.senses[w], pos+o)
		}
		return nil
	})
}

// Relation weights of the spreading (how much a related synset's meaning
// says about a synset's).
var relWeight = map[string]float64{
	"&":  0.8,              // similar to (adjective clusters)
	"\\": 0.7,              // pertainym / derived from
	"+":  0.6,              // derivationally related form
	"^":  0.5,              // also see
	"=":  0.5,              // attribute
	"@":  0.35, "@i": 0.35, // hypernym
	"~": 0.15, // hyponym
}

const (
	glossWeight = 0.5  // the content words of a synset's gloss
	steps       = 2    // relation steps the meanings spread
	stepDecay   = 0.6  // each step counts this much of the previous
	minMass     = 0.45 // evidence a derived word needs to be kept
	// minMassPhrase is the evidence a WordNet phrase holding a homonym
	// needs: less, since it read whole is better than its words read
	// apart ("rock bottom" is not rock, "organ donor" no organ music).
	minMassPhrase = 0.1
	maxSenses     = 6   // senses of a word that count
	topAnchors    = 10  // entries kept per word
	derivedConf   = 0.6 // a derived word counts this much against a written one
)

// spread returns the words' entries, the synsets' spread meanings and
// the music senses.
func spread(lx *lexicon, db *wordnet) (map[string]semantic.Entry, map[string]vec, map[string]bool) {
	d := len(lx.anchors)
	music := musicSenses(db)
	homonym := map[string]bool{}
	for _, h := range lx.homonyms {
		homonym[h] = true
	}
	lookup := func(w string) vec {
		if v, ok := lx.words[w]; ok {
			return v
		}
		if v, ok := lx.words[normKey(w)]; ok {
			return v
		}
		for _, f := range semantic.Morph(w) {
			if v, ok := lx.words[f]; ok {
				return v
			}
		}
		return nil
	}
	// Step 0: a synset means what its written words and gloss words mean.
	keys := make([]string, 0, len(db.synsets))
	for k := range db.synsets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	base := map[string]vec{}
	for _, k := range keys {
		ss := db.synsets[k]
		v := make(vec, d)
		if !unmusical[ss.lexfile] {
			for _, w := range ss.words {
				if homonym[w] && !music[k] { // "house" the dwelling is not house music
					continue
				}
				if lv := lookup(w); lv != nil {
					v.add(lv, 1)
				}
			}
		}
		def, _, _ := strings.Cut(ss.gloss, "\"") // the definition, not the examples
		def, _, _ = strings.Cut(def, ";")
		var gv vec
		n := 0
		negated := 0 // content words left in a negation's scope
		for _, w := range semantic.Tokens(def) {
			if glossNegators[w] {
				negated = negScope
				continue
			}
			if semantic.IsStopword(w) {
				continue
			}
			if negated > 0 { // "fearless: without fear" is not fear
				negated--
				continue
			}
			if homonym[w] && !music[k] { // "organ donor: gives an organ" is no organ music
				continue
			}
			if lv := lookup(w); lv != nil {
				if gv == nil {
					gv = make(vec, d)
				}
				gv.add(lv, 1)
				n++
			}
		}
		if n > 0 {
			v.add(gv, glossWeight/math.Sqrt(float64(n)))
		}
		if v.norm() > 0 {
			base[k] = v
		}
	}
	if err := addTrees(base, lx.trees, db); err != nil {
		log.Fatal(err)
	}
	cur := base
	for range steps {
		next := map[string]vec{}
		for _, k := range keys {
			ss := db.synsets[k]
			v := make(vec, d)
			if b, ok := base[k]; ok {
				v.add(b, 1)
			}
			for _, p := range ss.ptrs {
				w, ok := relWeight[p.sym]
				if p.sym == "#p" && ss.lexfile == nounLocation {
					w, ok = partOfPlace, true
				}
				if !ok {
					continue
				}
				if t, ok := cur[p.target]; ok {
					v.add(t, w*stepDecay)
				}
			}
			if v.norm() > 0 {
				next[k] = v
			}
		}
		cur = next
	}
	out := map[string]semantic.Entry{}
	for w, v := range lx.words {
		c := 1.0
		if x, ok := lx.conf[w]; ok {
			c = x
		}
		out[w] = entry(v, c)
	}
	lemmas := make([]string, 0, len(db.senses))
	for w := range db.senses {
		lemmas = append(lemmas, w)
	}
	sort.Strings(lemmas)
	for _, w := range lemmas {
		key := normKey(w)
		if _, written := lx.words[key]; written {
			continue
		}
		if _, dup := out[key]; dup || key == "" {
			continue
		}
		v := make(vec, d)
		for r, k := range db.senses[w] {
			if r == maxSenses {
				break
			}
			if sv, ok := cur[k]; ok {
				v.add(sv, 1/float64(r+1))
			}
		}
		if m := v.norm(); m >= minMass || m >= minMassPhrase && holdsHomonym(key, homonym) {
			out[key] = entry(v, derivedConf*min(1, m)*polysemyDiscount(len(db.senses[w])))
		}
	}
	// Facet values: the name's meaning plus half the description's.
	for name, desc := range lx.descr {
		v := make(vec, d)
		if nv := embedWords(name, lookup); nv != nil {
			v.add(nv, 1)
		}
		if dv := embedWords(desc, lookup); dv != nil {
			v.add(dv, 0.5)
		}
		lx.facets[name] = v.unit()
	}
	return out, cur, music
}

// holdsHomonym reports whether a phrase (several words, or a hyphenated
// or closed compound of them: "soul-searching") has a homonym for a word.
func holdsHomonym(key string, homonym map[string]bool) bool {
	ws := strings.FieldsFunc(key, func(r rune) bool { return r == ' ' || r == '-' })
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		if homonym[w] {
			return true
		}
	}
	return false
}

// addIdioms writes each "@idiom" line's meaning: its gloss's words read
// as the lexicon reads them (written or derived), a phrase read before
// its words.
func addIdioms(lx *lexicon, out map[string]semantic.Entry) {
	keys := make([]string, 0, len(lx.idiomGloss))
	for k := range lx.idiomGloss {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := make(vec, len(lx.anchors))
		for _, w := range lx.idiomGloss[k] {
			e, ok := out[w]
			for _, f := range semantic.Morph(w) {
				if ok {
					break
				}
				e, ok = out[f]
			}
			if !ok || semantic.IsStopword(w) {
				continue
			}
			for i, a := range e.Anchors {
				v[a] += float64(e.Weights[i] * e.Conf)
			}
		}
		if v.norm() > 0 {
			out[k] = entry(v, 1)
		}
	}
}

// embedWords is the unit sum of the written vectors of the phrase and,
// when the phrase is not written, of its words.
func embedWords(s string, lookup func(string) vec) vec {
	s = strings.ToLower(s)
	if v := lookup(strings.Join(semantic.Tokens(s), " ")); v != nil { // as keys are written
		return v
	}
	var sum vec
	for _, w := range semantic.Tokens(s) {
		if v := lookup(w); v != nil {
			if sum == nil {
				sum = make(vec, len(v))
			}
			sum.add(v, 1)
		}
	}
	if sum == nil {
		return nil
	}
	return sum.unit()
}

// entry keeps a vector's strongest anchors.
func entry(v vec, conf float64) semantic.Entry {
	u := v.unit()
	type aw struct {
		a int
		w float64
	}
	var all []aw
	for i, x := range u {
		if x > 0 {
			all = append(all, aw{i, x})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].w > all[j].w })
	if len(all) > topAnchors {
		all = all[:topAnchors]
	}
	e := semantic.Entry{Conf: float32(conf)}
	for _, x := range all {
		if x.w < 0.05*all[0].w {
			break
		}
		e.Anchors = append(e.Anchors, uint8(x.a))
		e.Weights = append(e.Weights, float32(x.w))
	}
	return e
}
