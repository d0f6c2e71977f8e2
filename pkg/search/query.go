package search

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// Query is a text request after understanding: the concepts left for the
// text engine, what to exclude, and the preferences music vocabulary
// lifted out of the words.
type Query struct {
	Groups   []group // concepts to rank by, each a word and its alternatives
	Exclude  []group // "without drums": tracks matching these are left out
	Tempo    *Range  // preferred BPM ("fast", "120 bpm", "90-100 bpm")
	Vocals   string  // preferred vocals: a catalog.Vocals* value, vocalsAny, or ""
	NoVocals bool    // "no vocals": sung tracks are left out
	Duration *Range  // preferred length in seconds ("30 second", "short")
	// Generic says the text asked for music in general ("music", "some
	// songs"): with nothing else understood, that is the whole catalog,
	// where text with nothing understood at all ("a", "🙂") is nothing.
	Generic bool
	// Words are the request's words less what a negation took ("no
	// vocals", "without drums"), in order: what the semantic side embeds.
	Words []string
	// TempoStated says Tempo comes from a figure ("120 bpm" ± bpm_range,
	// "90-100 bpm"): then it is a tolerance, and tracks outside it (or
	// with no measured tempo) are left out; a tempo word ("fast") only
	// prefers.
	TempoStated bool
}

// understood reports whether anything of the text was understood: words
// to rank by or exclude, an attribute, or a generic request for music.
func (q *Query) understood() bool {
	return len(q.Groups) > 0 || len(q.Exclude) > 0 || q.Tempo != nil || q.Vocals != "" || q.NoVocals ||
		q.Duration != nil || q.Generic
}

// Plausible tempos. A figure outside them ("999 bpm") is no tempo any
// track has: preferring it would rank nothing and leave every track a
// zero-score candidate, so it is treated as not understood (and dropped
// from the text, not searched as the word "999").
const (
	minPlausibleBPM = 20
	maxPlausibleBPM = 300
)

func plausibleBPM(v float64) bool { return v >= minPlausibleBPM && v <= maxPlausibleBPM }

var (
	reBPMSpan  = regexp.MustCompile(`\b(?:between\s+)?(\d{2,3})\s*(?:-|–|to|and)\s*(\d{2,3})\s*bpm\b`)
	reBPM      = regexp.MustCompile(`\b(\d{2,3})\s*-?\s*bpm\b|\bbpm\s*(?:of\s*)?(\d{2,3})\b`)
	reDuration = regexp.MustCompile(`\b(?:(under|less than|below|shorter than|at most|up to|max|over|more than|longer than|at least)\s+)?(\d+(?:\.\d+)?)\s*-?\s*(seconds?|secs?|s|minutes?|mins?)\b`)
	reClock    = regexp.MustCompile(`\b(\d{1,2}):([0-5]\d)\b`)
)

// Understand turns a natural-language request into a Query. bpmTol is the
// tolerance around a single BPM figure ("120 bpm" → 115–125 with 5).
func Understand(text string, bpmTol float64) (q Query) {
	if bpmTol <= 0 {
		bpmTol = DefaultBPMRange
	}
	s := strings.ToLower(text)
	// Each pattern needs a literal part of it in the text (a negated
	// contraction "n't", "n’t" or "nt"; a tempo "bpm"; a clock time ":"):
	// text without it cannot match, and need not be run through it.
	if strings.Contains(s, "nt") || strings.Contains(s, "n't") || strings.Contains(s, "n’t") {
		s = reContraction.ReplaceAllString(s, "not")
	}
	s = " " + s + " "
	// Tempos, lengths and clock times are figures: text without a digit
	// has none, and need not be run through the patterns.
	if strings.ContainsAny(s, "0123456789") {
		bpm := strings.Contains(s, "bpm")
		s = replaceIf(bpm, reBPMSpan, s, func(m string) string {
			g := reBPMSpan.FindStringSubmatch(m)
			a, _ := strconv.ParseFloat(g[1], 64)
			b, _ := strconv.ParseFloat(g[2], 64)
			if plausibleBPM(a) && plausibleBPM(b) {
				q.Tempo, q.TempoStated = &Range{min(a, b), max(a, b)}, true
			}
			return " "
		})
		s = replaceIf(bpm, reBPM, s, func(m string) string {
			g := reBPM.FindStringSubmatch(m)
			v, _ := strconv.ParseFloat(g[1]+g[2], 64)
			if plausibleBPM(v) {
				q.Tempo, q.TempoStated = &Range{v - bpmTol, v + bpmTol}, true
			}
			return " "
		})
		s = replaceIf(strings.Contains(s, ":"), reClock, s, func(m string) string {
			g := reClock.FindStringSubmatch(m)
			mm, _ := strconv.Atoi(g[1])
			ss, _ := strconv.Atoi(g[2])
			q.Duration = around(float64(mm*60 + ss))
			return " "
		})
		s = reDuration.ReplaceAllStringFunc(s, func(m string) string {
			g := reDuration.FindStringSubmatch(m)
			v, _ := strconv.ParseFloat(g[2], 64)
			unit := g[3]
			if unit == "s" && v >= 50 && math.Mod(v, 10) == 0 {
				return m // "80s" is a decade, not a length
			}
			if strings.HasPrefix(unit, "m") {
				v *= 60
			}
			switch g[1] {
			case "":
				q.Duration = around(v)
			case "over", "more than", "longer than", "at least":
				q.Duration = &Range{v, math.Inf(1)}
			default:
				q.Duration = &Range{0, v}
			}
			return " "
		})
	}
	toks := tokens(s)
	negated := make([]bool, len(toks))
	defer func() {
		for k, w := range toks {
			if !negated[k] {
				if q.Words == nil {
					q.Words = make([]string, 0, len(toks)-k)
				}
				q.Words = append(q.Words, w)
			}
		}
	}()
	// The concepts are at most the tokens: one array for them.
	addGroup := func(g group) {
		if q.Groups == nil {
			q.Groups = make([]group, 0, len(toks))
		}
		q.Groups = append(q.Groups, g)
	}
	for i := 0; i < len(toks); i++ {
		w := toks[i]
		two := ""
		if i+1 < len(toks) {
			two = w + " " + toks[i+1]
		}
		switch {
		case negators[w] && i+1 < len(toks):
			start, j := i, i+1
			for j < len(toks)-1 && (stopwords[toks[j]] || toks[j] == "any" || negatedVerbs[toks[j]]) {
				j++
			}
			next, two := toks[j], ""
			if j+1 < len(toks) {
				two = next + " " + toks[j+1]
			}
			switch {
			case vocalsWords[two] != "":
				q.NoVocals, i = true, j+1
			case vocalsWords[next] != "" && vocalsWords[next] != catalog.VocalsInstrumental:
				q.NoVocals, i = true, j
			case vocalsWords[next] == catalog.VocalsInstrumental || instrumentsWords[next] ||
				accompaniment[next] && slices.ContainsFunc(toks, func(t string) bool { return voiceNouns[t] }):
				// "no instruments at all", "not instrumental", "choir
				// without accompaniment": voices, sung
				if q.Vocals == "" {
					q.Vocals = vocalsAny
				}
				i = j
			default:
				q.Exclude, i = append(q.Exclude, concept(next)), j
			}
			if q.NoVocals {
				q.Vocals = catalog.VocalsInstrumental
			}
			for k := start; k <= min(i, len(toks)-1); k++ {
				negated[k] = true
			}
		case vocalsWords[two] != "":
			q.Vocals, i = vocalsWords[two], i+1
		case vocalsWords[w] != "":
			if q.Vocals == "" || q.Vocals == vocalsAny {
				q.Vocals = vocalsWords[w]
			}
		case w == "short" || w == "brief":
			q.Duration = &Range{0, 60}
		case w == "long" || w == "lengthy":
			q.Duration = &Range{180, math.Inf(1)}
		case tempoWords[w] != (Range{}):
			r := tempoWords[w]
			if q.Tempo == nil {
				q.Tempo = &r
			}
			if c := clusters[w]; c != nil { // "upbeat" is also a mood
				addGroup(group(c))
			}
		case stopwords[w]:
			q.Generic = q.Generic || generic[w]
		default:
			if i+1 < len(toks) && clusters[w+"-"+toks[i+1]] != nil { // "hip hop", "laid back"
				addGroup(concept(w + "-" + toks[i+1]))
				i++
				continue
			}
			addGroup(concept(w))
		}
	}
	return q
}

// replaceIf is re.ReplaceAllStringFunc(s, f) when the text may match
// (may), else s.
func replaceIf(may bool, re *regexp.Regexp, s string, f func(string) string) string {
	if !may {
		return s
	}
	return re.ReplaceAllStringFunc(s, f)
}

// reContraction finds a negated copula or "doesn't have" ("isn't",
// "ain't", "doesn’t include", and typed without the apostrophe: "isnt"), read as the negator it is ("a sad song that isn't
// slow" excludes slow as "not slow" does; tokens would otherwise split it
// into "isn" and "t" and read the next word as wanted). Other negated
// verbs describe the situation, not the music: "can't sleep" asks for
// music to sleep to, not for music that is not sleepy.
var reContraction = regexp.MustCompile(`\b(?:isn|aren|wasn|weren|ain)['’]?t\b|\b(?:doesn|don|didn)['’]?t\s+(?:have|has|contain|include|feature|need|want|use)\b`)

// negatedVerbs are the verbs a negator reaches past to what it excludes
// ("doesn't have drums", "no need for vocals").
var negatedVerbs = toSet("have has had having contain contains containing include includes including " +
	"feature features featuring need use uses")

// around is a length target with the tolerance a "30 second" request
// allows: a fifth either way, at least 5 s.
func around(v float64) *Range {
	tol := max(5, v/5)
	return &Range{max(0, v-tol), v + tol}
}

// tokens splits on anything but letters, digits, '-' and '&' (so "lo-fi"
// and "r&b" stay whole), trimming stray hyphens.
func tokens(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '&'
	}) {
		if t = strings.Trim(t, "-&"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// concept is a word with its cluster (also under its spelling without
// hyphens: "lo-fi" and "lofi" are one word).
func concept(w string) group {
	c := clusters[w]
	if c == nil {
		c = clusters[strings.ReplaceAll(w, "-", "")]
	}
	g := make(group, 1, 1+len(c))
	g[0] = alt{phrase: strings.ReplaceAll(w, "-", " "), weight: 1}
	return append(g, c...)
}

// MaxTextLength bounds a text or prompt: a description of music, not a
// document (and a bound on the work one request can ask for).
const MaxTextLength = 1000

// maxGroups bounds the concepts of one request (and keeps the per-track
// match counters in a byte).
const maxGroups = 32

// Weights of the attribute preferences against the normalized text score
// (the best text match scores 1).
const (
	// The hybrid ranking: a linear mix of the BM25 score (normalized to
	// the best match, or to a share of the request's reference score when
	// that is higher: wTextReference) and the semantic score (a cosine,
	// in [0, 1]), the weights fitted by a grid search on the judged and
	// tuning sets (see README, Search; wText 1.0 → 0.8 with the second
	// tuning set, whose text never names a facet: a literal match there
	// is more often incidental). A cosine is absolute where BM25 is
	// relative to the request, so the semantic side carries most of the
	// ranking and BM25 decides among tracks that mean about the same.
	// wText was refitted with the learned ranking function (0.8 before);
	// a request's text weight also grows with its music share
	// (wTextMusic, semantic_groups.go).
	wText     = 0.72
	wSemantic = 4.0
	// wTextReference is the share of the request's reference text score
	// (textIndex.scores: every word matched as well as its best match)
	// below which the best match is not taken as a full match: a text
	// score counts as its share of max(best match, 0.5 × reference).
	// Normalized to the best match alone, the one track whose description
	// happens to hold "walk" of "crisp autumn walk in the woods" scored as
	// much text as one holding every word; now it scores its share of the
	// request. Fitted with wText (kept at 0.8) on the tuning and second
	// tuning sets and checked on the third and fourth (README, Search:
	// issue 15 failure-class round); 0 is the old normalization. Refitted
	// with the ranking function (semantic_groups.go; 0.5 before).
	wTextReference = 0.55
	// semMinCandidate is the semantic score a track needs to be a
	// candidate on meaning alone, whatever words the catalog has: a
	// catalog that describes in its own words holds most words of a
	// request somewhere ("evening" in one description), and the literal
	// matches alone would leave out what the request means.
	semMinCandidate = 0.25

	// The attribute preferences (vocals refitted with the ranking
	// function, semantic_groups.go: 0.5 before).
	wAttrTempo    = 0.5
	wAttrVocals   = 0.625
	wAttrDuration = 0.3
)

// ByText ranks tracks for a natural-language request.
func (ix *Index) ByText(ctx context.Context, text string, opts Options) (Result, error) {
	const op = "search.ByText"
	if strings.TrimSpace(text) == "" {
		return Result{}, errs.Field(op, "text", "This field may not be blank.")
	}
	// Not text at all: a NUL or bytes that are not UTF-8 are a broken
	// client, better told than answered with whatever the bytes resemble.
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return Result{}, errs.Field(op, "text", "Must be UTF-8 text without NUL characters.")
	}
	if utf8.RuneCountInString(text) > MaxTextLength {
		return Result{}, errs.Field(op, "text", fmt.Sprintf("Ensure this field has no more than %d characters.", MaxTextLength))
	}
	if err := opts.Filters.checkKnown(op, ix.known, true); err != nil {
		return Result{}, err
	}
	q := Understand(text, opts.BPMRange)
	if len(q.Groups) > maxGroups { // a request, not a document: the rest adds nothing
		q.Groups = q.Groups[:maxGroups]
	}
	if len(q.Exclude) > maxGroups {
		q.Exclude = q.Exclude[:maxGroups]
	}
	if !q.understood() {
		// Nothing to rank by ("a", emoji, "999 bpm"): an empty page, not
		// the first tracks of the catalog at score 0 as if they matched.
		return ix.rank(opts, nil, []int32{}), nil
	}
	q = ix.correct(q)
	sbuf := ix.scratch(len(ix.tracks))
	defer ix.release(sbuf)
	scores := *sbuf
	clear(scores)
	cbuf := ix.candidates()
	defer ix.releaseCandidates(cbuf)
	var tm textMatch
	var matched []int32
	if len(q.Groups) > 0 {
		var err error
		if tm, err = ix.text.match(ctx, q.Groups, scores); err != nil {
			return Result{}, errs.Wrap(op, err)
		}
		defer ix.text.release(&tm)
	}
	excluded, err := ix.text.matches(ctx, q.Exclude)
	if err != nil {
		return Result{}, errs.Wrap(op, err)
	}
	sq, err := ix.sem.query(ctx, q.Words)
	if err != nil {
		return Result{}, errs.Wrap(op, err)
	}
	var sem []float32
	if sq != nil && len(sq.dims) > 0 {
		sembuf := ix.scratch(len(ix.tracks))
		defer ix.release(sembuf)
		sem = *sembuf
		ix.sem.scores(ix, sq, sem)
		if len(q.Groups) > 0 {
			// Tracks close enough in meaning are candidates too, not
			// only the literal matches (semMinCandidate).
			matched = tm.withSemCandidates(scores, sem, (*cbuf)[:0])
		}
		if len(q.Exclude) > 0 { // after the candidates: a penalty, not a filter
			if err := ix.negate(ctx, q.Exclude, sem); err != nil {
				return Result{}, errs.Wrap(op, err)
			}
		}
	}
	if matched == nil && len(q.Groups) > 0 { // no meaning: the literal matches alone
		matched = tm.list(scores, (*cbuf)[:0])
	}
	var best float64
	for _, d := range matched {
		best = max(best, float64(scores[d]))
	}
	if best > 0 {
		best = max(best, wTextReference*float64(tm.ref))
	}
	ts := textScorer{q: &q, attrs: ix.attrs, excluded: excluded, sem: sem, best: best, wText: wText, names: newNameQuery(text)}
	if sem != nil {
		ts.wText += wTextMusic * float64(sq.music)
	}
	ts.vocalsBonus()
	// Only the tracks the page may hold are scored (rank's selection, with
	// the filters first: the same page and total).
	if len(q.Groups) == 0 { // attributes alone: every track is a candidate
		p := ix.pager(opts, len(scores))
		for i := range scores {
			if p.admits(i) {
				p.offer(i, ts.score(i, 0))
			}
		}
		return p.result(), nil
	}
	p := ix.pager(opts, len(matched))
	for _, d := range matched { // only what matched a word or its meaning
		if i := int(d); p.admits(i) {
			p.offer(i, ts.score(i, float64(scores[i])))
		}
	}
	return p.result(), nil
}

// textScorer is by-text's score of a candidate track: its text score
// (normalized to best), its semantic score and the attribute preferences
// of the request, or NaN for a track the request leaves out.
type textScorer struct {
	q        *Query
	attrs    []textAttrs
	excluded []bool    // nil: nothing excluded
	sem      []float32 // nil: no meaning
	best     float64
	wText    float64 // the text weight of this request
	// vocals is what the request's vocals preference adds, by the
	// track's vocalsIndex (vocalsBonus).
	vocals [len(vocalsOrder) + 1]float64
	names  nameQuery // the request read as a title or artist
}

// vocalsBonus fills ts.vocals: with "vocals" any sung track earns
// wAttrVocals; with male or female vocals that voice does, mixed vocals
// half; with another preference the same vocals do.
func (ts *textScorer) vocalsBonus() {
	qv := vocalsIndex(ts.q.Vocals) // Understand's vocals are vocalsOrder's, vocalsAny or ""
	for v := range ts.vocals {
		switch ts.q.Vocals {
		case "":
		case vocalsAny:
			if sungIndex[v] {
				ts.vocals[v] = wAttrVocals
			}
		case catalog.VocalsMale, catalog.VocalsFemale:
			if uint8(v) == qv {
				ts.vocals[v] = wAttrVocals
			} else if uint8(v) == mixedIndex {
				ts.vocals[v] = wAttrVocals / 2
			}
		default:
			if uint8(v) == qv {
				ts.vocals[v] = wAttrVocals
			}
		}
	}
}

// score is track i's score for a text score of text, as a float32 (NaN:
// left out).
func (ts *textScorer) score(i int, text float64) float32 {
	q, f := ts.q, &ts.attrs[i]
	if ts.excluded != nil && ts.excluded[i] || q.NoVocals && f.sung() ||
		q.TempoStated && !(f.tempo > 0 && q.Tempo.Contains(f.tempo)) {
		return nan
	}
	s := 0.0
	if ts.best > 0 {
		s = ts.wText * text / ts.best
	}
	if ts.sem != nil {
		s += wSemantic * float64(ts.sem[i])
	}
	if q.Tempo != nil && f.tempo > 0 {
		switch {
		case q.Tempo.Contains(f.tempo):
			s += wAttrTempo
		case f.tempo >= q.Tempo.Lo-10 && f.tempo <= q.Tempo.Hi+10:
			s += wAttrTempo / 3
		}
	}
	if v := ts.vocals[f.vocals]; v != 0 {
		s += v
	}
	if q.Duration != nil && q.Duration.Contains(f.length) {
		s += wAttrDuration
	}
	s += ts.names.bonus(f.names)
	return float32(s)
}

// correct replaces query words the catalog does not contain by the
// closest word it does (with that word's cluster), or failing that asks
// the engine for near spellings: "epik" is found as "epic", "rok" as rock.
// A corrected word is a guess: it is marked so that it never outweighs
// the words the request spelled as the catalog does (textIndex.scores).
// Stopwords and generic words ("genre", "style") are never corrected.
// Words longer than maxCorrectRunes are searched as spelled only: nobody
// mistypes a catalog word that long, and the work of a near-spelling
// search grows with the word (bleve's Levenshtein automaton for one
// 999-letter word took ~0.5 s of CPU, and for a repetitive one such as
// "cd"×300 it exceeds the automaton's 10,000 states and fails).
const maxCorrectRunes = 24

// maxFuzzyWords bounds the words of one request searched by near
// spelling (after the vocabulary had no close word for them): each costs
// the engine 2–25 ms at 10k tracks, so 32 unknown words made one request
// cost over half a second of CPU. Further unknown words are searched as
// spelled.
const maxFuzzyWords = 3

// knownWord reports whether the embedder knows w: then it is a word, not
// a typo of a catalog word, and the semantic side answers for it.
func (ix *Index) knownWord(w string) bool {
	k, ok := ix.sem.emb.(wordKnower)
	return ok && k.Known(w)
}

func (ix *Index) correct(q Query) Query {
	fuzzy := 0
	fix := func(gs []group) []group {
		for k, g := range gs {
			w := g[0].phrase
			if len(g) > 1 || strings.Contains(w, " ") || ix.text.vocab[w] || len(w) < 3 || stopwords[w] || generic[w] ||
				utf8.RuneCountInString(w) > maxCorrectRunes || ix.knownWord(w) {
				continue
			}
			if c, ok := closest(w, ix.text.words); ok {
				gs[k] = concept(c)
				gs[k][0].corrected = true
			} else if len(w) >= 4 && fuzzy < maxFuzzyWords {
				gs[k] = group{{phrase: w, weight: 1, fuzzy: true, corrected: true}}
				fuzzy++
			}
		}
		return gs
	}
	q.Groups = fix(q.Groups)
	q.Exclude = fix(q.Exclude)
	return q
}
