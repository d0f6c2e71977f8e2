package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"musiccatalog/pkg/search/semantic"
)

// A thesaurus is a second source of associations beside WordNet:
// Debian's libaiksaurus-1.2-data (a Moby-derived English thesaurus,
// /usr/share/aiksaurus): 25,433 words in 2,621 meanings, each a set of
// words that may stand for one another ("scent; perfume; aroma;
// fragrance…"). It is read only with -thesaurus: measured and not kept
// (README, Search, "thesaurus round": flat on the sets, and the data is
// GPL-2+, so a lexicon built from it would carry that licence into every
// binary that embeds it).
type thesaurus struct {
	words    []string // lower-cased, "a:la:mode" read as "a la mode"
	meanings [][]int  // word indices
	of       [][]int  // a word's meanings
}

// readThesaurus reads aiksaurus's words.dat (each word NUL-terminated,
// then its meanings as big-endian uint16s ending in 0xffff) and
// meanings.dat (each meaning its words as uint16s ending in 0xffff, the
// first two its title words, repeated in the list).
func readThesaurus(dir string) (*thesaurus, error) {
	wb, err := os.ReadFile(filepath.Join(dir, "words.dat"))
	if err != nil {
		return nil, err
	}
	mb, err := os.ReadFile(filepath.Join(dir, "meanings.dat"))
	if err != nil {
		return nil, err
	}
	u16s := func(b []byte, i int) ([]int, int, error) {
		var xs []int
		for {
			if i+2 > len(b) {
				return nil, i, fmt.Errorf("thesaurus: list runs past the end")
			}
			x := binary.BigEndian.Uint16(b[i:])
			i += 2
			if x == 0xffff {
				return xs, i, nil
			}
			xs = append(xs, int(x))
		}
	}
	th := &thesaurus{}
	for i := 0; i < len(wb); {
		j := i
		for j < len(wb) && wb[j] != 0 {
			j++
		}
		if j == len(wb) {
			return nil, fmt.Errorf("thesaurus: word %d unterminated", len(th.words))
		}
		th.words = append(th.words, strings.ToLower(strings.ReplaceAll(string(wb[i:j]), ":", " ")))
		ms, next, err := u16s(wb, j+1)
		if err != nil {
			return nil, err
		}
		th.of = append(th.of, ms)
		i = next
	}
	for i := 0; i < len(mb); {
		ws, next, err := u16s(mb, i)
		if err != nil {
			return nil, err
		}
		if len(ws) > 2 {
			ws = ws[2:] // the title words are in the list too
		}
		for _, w := range ws {
			if w >= len(th.words) {
				return nil, fmt.Errorf("thesaurus: meaning %d names word %d of %d", len(th.meanings), w, len(th.words))
			}
		}
		th.meanings = append(th.meanings, ws)
		i = next
	}
	for wi, ms := range th.of {
		for _, m := range ms {
			if m >= len(th.meanings) {
				return nil, fmt.Errorf("thesaurus: %q names meaning %d of %d", th.words[wi], m, len(th.meanings))
			}
		}
	}
	return th, nil
}

// Thesaurus weights, as measured (README, Search, "thesaurus round"):
// a word WordNet does not give gets its neighbours' meaning when they
// agree (the mean of their vectors at least thesMinMass long), trusted
// thesConf at full agreement; a derived word gets thesBlend × the mean
// blended in (0: only new words, the variant that measured best).
const (
	thesConf    = 0.4
	thesMinMass = 0.3
	thesAgreed  = 0.6 // the mean's length at which a new word has thesConf
)

// addThesaurus gives words the meaning of their thesaurus neighbours:
// for each headword, the mean of its neighbours' vectors (each meaning
// counted once, a neighbour by its confidence) as out held them before
// (so the result does not depend on the order). A word out lacks gets it
// when the neighbours agree (the mean's length, thesMinMass); a derived
// word has it blended in (thesBlend), so a reading from one stray WordNet
// sense is pulled towards what the word's neighbours mean. Written words
// are left as written.
func addThesaurus(th *thesaurus, d int, written map[string]vec, out map[string]semantic.Entry, thesBlend float64) (added, blended int) {
	vecOf := func(e semantic.Entry) vec {
		v := make(vec, d)
		for i, a := range e.Anchors {
			v[a] += float64(e.Weights[i] * e.Conf)
		}
		return v
	}
	type change struct {
		key   string
		e     semantic.Entry
		blend bool
	}
	var changes []change
	for wi, w := range th.words {
		key := normKey(w)
		if key == "" {
			continue
		}
		if _, ok := written[key]; ok {
			continue
		}
		nb := make(vec, d)
		n := 0
		for _, m := range th.of[wi] {
			mv := make(vec, d)
			k := 0
			for _, u := range th.meanings[m] {
				if u == wi {
					continue
				}
				if e, ok := out[normKey(th.words[u])]; ok {
					mv.add(vecOf(e), 1)
					k++
				}
			}
			if k > 0 {
				nb.add(mv, 1/float64(k))
				n++
			}
		}
		if n == 0 {
			continue
		}
		for i := range nb {
			nb[i] /= float64(n)
		}
		mass := nb.norm()
		old, have := out[key]
		switch {
		case !have && mass >= thesMinMass:
			changes = append(changes, change{key, entry(nb, thesConf*min(1, mass/thesAgreed)), false})
		case have && thesBlend > 0:
			ov := vecOf(old)
			om := ov.norm()
			ov.add(nb, thesBlend)
			// The confidence stays the word's own (derived) one.
			if om > 0 && ov.norm() > 0 {
				changes = append(changes, change{key, entry(ov, float64(old.Conf)), true})
			}
		}
	}
	// Two headwords may share a key ("Puck", "puck"): the first in the
	// thesaurus's order wins.
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].key < changes[j].key })
	done := map[string]bool{}
	for _, c := range changes {
		if done[c.key] {
			continue
		}
		done[c.key] = true
		if c.blend {
			blended++
		} else {
			added++
		}
		out[c.key] = c.e
	}
	return added, blended
}
