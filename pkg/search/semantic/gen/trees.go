package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A tree is a "@tree lemma/pos/sense = anchors" line of the lexicon: the
// meaning of a whole WordNet subtree — the synset and every hyponym under
// it, at any depth — written once for the category rather than word by
// word ("@tree fear/n/1" reaches frisson, stage fright and premonition;
// "@tree percussion_instrument/n/1" every drum). The spreading's own
// relations reach two steps; a category's words lie deeper.
type tree struct {
	lemma string
	pos   string
	sense int // 1-based, in WordNet's order (most frequent first)
	v     vec
}

// Subtree weights: a tree's meaning counts treeWeight against a written
// word in a synset's own meaning, less by treeDecay a level down, to at
// most treeDepth levels.
const (
	treeWeight = 1.0
	treeDecay  = 0.85
	treeDepth  = 8
)

func parseTree(root string, v vec) (tree, error) {
	parts := strings.Split(root, "/")
	if len(parts) != 3 {
		return tree{}, fmt.Errorf("@tree %q: want lemma/pos/sense", root)
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 1 || posLetter[parts[1]] == "" {
		return tree{}, fmt.Errorf("@tree %q: want lemma/pos/sense", root)
	}
	return tree{lemma: strings.ReplaceAll(parts[0], "_", " "), pos: posLetter[parts[1]], sense: n, v: v.unit()}, nil
}

// addTrees adds each tree's meaning to the base meaning of its root and
// of every synset below it (hyponyms and instances), the nearest level
// counting when a synset is reached twice by one tree.
func addTrees(base map[string]vec, trees []tree, db *wordnet) error {
	for _, t := range trees {
		var senses []string
		for _, k := range db.senses[t.lemma] {
			if strings.HasPrefix(k, t.pos) {
				senses = append(senses, k)
			}
		}
		if t.sense > len(senses) {
			return fmt.Errorf("@tree %s/%s/%d: %d senses", t.lemma, t.pos, t.sense, len(senses))
		}
		level := map[string]int{senses[t.sense-1]: 0}
		front := []string{senses[t.sense-1]}
		for depth := 1; depth <= treeDepth && len(front) > 0; depth++ {
			var next []string
			for _, k := range front {
				for _, p := range db.synsets[k].ptrs {
					if _, seen := level[p.target]; !seen && (p.sym == "~" || p.sym == "~i") {
						level[p.target] = depth
						next = append(next, p.target)
					}
				}
			}
			front = next
		}
		for k, depth := range level {
			b := base[k]
			if b == nil {
				b = make(vec, len(t.v))
				base[k] = b
			}
			b.add(t.v, treeWeight*math.Pow(treeDecay, float64(depth)))
		}
	}
	return nil
}

// unmusical are the lexicographer files whose senses a written word does
// not seed with its music meaning: the body, possessions, quantities,
// relations, shapes and substances ("organ" the instrument is not the
// stomach's hypernym; "brass" the section is not the alloy; "metal" is
// not iron). Those senses still mean what their glosses and relations say.
var unmusical = map[int]bool{
	8:  true, // noun.body
	21: true, // noun.possession
	23: true, // noun.quantity
	24: true, // noun.relation
	25: true, // noun.shape
	27: true, // noun.substance
}

// polysemyDiscount is how much a derived word's meaning is trusted given
// its number of WordNet senses: a word of many senses (break, show, new,
// white) is a common word whose derived meaning mixes them, mostly
// noise; (polyRef/senses)^polyExp, at most 1.
func polysemyDiscount(senses int) float64 {
	if float64(senses) <= polyRef {
		return 1
	}
	return math.Pow(polyRef/float64(senses), polyExp)
}

// Fitted on the four sets (README, Search): a word of 16 senses counts
// half, one of 64 a quarter.
const (
	polyRef = 4.0
	polyExp = 0.5
)

// A place means in part what the place it lies in means: Buenos Aires
// what Argentina does, Nashville what Tennessee does (WordNet's part
// holonyms of locations), so the lexicon writes countries and regions
// and their cities follow.
const (
	nounLocation = 15 // noun.location
	partOfPlace  = 0.7
)

// glossNegators open a negation in a gloss: the content words that follow
// (up to negScope of them) say what the synset is not ("fearless:
// oblivious of dangers", "timeless: unaffected by time" keep their
// meaning; "without fear", "lacking warmth" lose theirs).
var glossNegators = map[string]bool{"not": true, "without": true, "lacking": true, "lack": true,
	"no": true, "never": true, "devoid": true, "absence": true, "absent": true, "nor": true, "neither": true}

const negScope = 2
