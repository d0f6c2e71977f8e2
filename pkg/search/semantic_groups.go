package search

import "strings"

// The learned ranking function (issue 15, README, Search: "learned
// ranking function"). The request's cosine with a track's vector is
// weighed by concept group — what it asks of the track's mood, energy and
// tempo, style, instruments, voice, and what the music is for — and the
// text weight grows with the request's share on style and instrument
// concepts (a request that names music words finds them literally in the
// tracks that have them). Both cost nothing per track: a group weight
// multiplies the request's dimension before the scan, the text weight is
// set once per request.
//
// These weights, with the facet, negation, text-reference and attribute
// weights marked "fitted" beside them (wFacetMood, wMood2, wNegated,
// wText, wTextReference, wAttrVocals), were fitted together by a
// coordinate ascent on mean nDCG@10 over the 504 queries of the judged set
// and the five tuning sets (never the held-out set), from the hand-set
// weights, with a penalty of 0.002 × the squared log ratio to them and
// the secondary mood never above the main one (rankfit_test.go:
// SEARCH_RANK_FIT=1 SEARCH_RANK_FIT_CONFIG='penalty 0.002, by query' go
// test ./pkg/search/ -run TestRankFit -v prints these weights as "fitted
// on all six"). Leave-one-set-out, the same fit moved the held-back sets'
// mean nDCG@10 0.8092 → 0.8132, no set losing more than 0.003: a narrow
// win (README, Search).

// nConceptGroups is the number of concept groups.
const nConceptGroups = 6

// conceptGroups are the groups in order: a name, the embedder anchors it
// holds and the weight of the cosine's part on them.
var conceptGroups = [nConceptGroups]struct {
	name    string
	anchors string
	weight  float32
}{
	{"mood", "happy uplifting playful hopeful romantic calm peaceful dreamy sad melancholic dark tense mysterious epic " +
		"aggressive nostalgic sensual triumphant scary lonely warm", wCosMood},
	{"energy", "energetic loud soft fast slow mid", wCosEnergy},
	{"style", "electronic house techno synthwave dnb ambient hiphop trap lofi boombap rock hardrock punk indie metal pop " +
		"dance acoustic cinematic orchestral suspense documentary jazz swing smoothjazz latin classical folk country " +
		"corporate meditation drone blues soul gospel reggae world funk retro", wCosStyle},
	{"instrument", "piano guitar strings brass synth drums bells organ sax bass flute harp", wCosInstrument},
	{"voice", "vocal instrumental female male choir", wCosVoice},
	{"use", "study sleep workout party wedding travel trailer horror nature kids comedy sports gaming night summer city " +
		"space spiritual christmas action drama fashion tech ceremony", wCosUse},
}

// Weights of the cosine's part on each concept group (fitted).
const (
	wCosMood       = 0.675
	wCosEnergy     = 0.9
	wCosStyle      = 0.9
	wCosInstrument = 1.0
	wCosVoice      = 1.03125
	wCosUse        = 1.1
	// wTextMusic is what the text weight gains per unit of the request's
	// squared weight on style and instrument concepts (fitted).
	wTextMusic = 0.05
)

// Concept group indexes the music share reads.
const (
	groupStyle      = 2
	groupInstrument = 3
)

// conceptGroupOf is the group of each anchor by name.
var conceptGroupOf = func() map[string]int {
	m := map[string]int{}
	for g, cg := range conceptGroups {
		for _, a := range strings.Fields(cg.anchors) {
			m[a] = g
		}
	}
	return m
}()

// dimGroups are an embedder's dimensions' concept groups (-1: none) and
// the weights of the cosine's part on each; nil when the embedder cannot
// name its dimensions (then every part weighs 1 and no request has a
// music share).
func dimGroups(e TextEmbedder) (groups []int8, weights []float32) {
	an, ok := e.(anchorNamer)
	if !ok {
		return nil, nil
	}
	groups, weights = make([]int8, e.Dim()), make([]float32, e.Dim())
	for d := range groups {
		groups[d], weights[d] = -1, 1
	}
	for d, a := range an.Anchors() {
		if g, ok := conceptGroupOf[a]; ok && d < len(groups) {
			groups[d], weights[d] = int8(g), conceptGroups[g].weight
		}
	}
	return groups, weights
}

// musicShare is the request's squared weight on style and instrument
// concepts (q's sparse dimensions).
func (si *semIndex) musicShare(q *semQuery) float32 {
	if si.group == nil {
		return 0
	}
	var s float32
	for k, d := range q.dims {
		if g := si.group[d]; g == groupStyle || g == groupInstrument {
			s += q.wts[k] * q.wts[k]
		}
	}
	return s
}
