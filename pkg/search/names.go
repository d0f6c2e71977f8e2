package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/catalog"
)

// Names typed as they are. A request that is exactly a track's title, its
// artist's name, or both ("silent sunrise", "copper coast", "silent
// sunrise by copper coast") is looking for those tracks: they lead the
// results whatever the meaning of the words says (the title of a song is
// rarely a description of it). Titles and names are compared as their
// letters and digits, lower case, one space between words; a title counts
// with and without its variant ("Northern Shadows" finds the short edit
// too, after the original) and without the -JP feed's suffix.
const (
	// wNameTitleArtist, wNameTitle, wNameVariant and wNameArtist are added
	// to the score of a track whose title and artist, title (without the
	// variant: wNameVariant less), or artist the request is: more than
	// everything else a track can score (text ≤ 1, semantic ≤ 4, the
	// attribute preferences ≤ 2).
	wNameTitleArtist = 12.0
	wNameTitle       = 10.0
	wNameVariant     = 0.5
	wNameArtist      = 8.0
)

// nameMaxWords: a longer request is no title and artist (each split of
// it is compared with every candidate, so a 1000-character request would
// cost a few hundred comparisons a track).
const nameMaxWords = 24

// nameKeys are a track's names as nameKey hashes (0: none).
type nameKeys struct {
	title, base, artist uint64 // display title, title without variant, artist
}

func trackNameKeys(t *catalog.Track) nameKeys {
	var title, artist nameHash
	title.add(baseTitle(t))
	base := title.sum()
	title.add(t.Variant)
	artist.add(t.Artist.Name)
	return nameKeys{title: title.sum(), base: base, artist: artist.sum()}
}

// nameHash hashes the words of letters and digits of what it is given,
// lower case, as if joined by single spaces (FNV-1a, without allocating:
// every track's names are hashed when an index is built).
type nameHash struct {
	h      uint64
	words  int
	inWord bool
}

func (n *nameHash) add(s string) {
	if n.h == 0 {
		n.h = 14695981039346656037
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			n.inWord = false
			continue
		}
		if !n.inWord {
			if n.words > 0 {
				n.byte(' ')
			}
			n.words++
			n.inWord = true
		}
		r = unicode.ToLower(r)
		if r < utf8.RuneSelf {
			n.byte(byte(r))
			continue
		}
		var buf [utf8.UTFMax]byte
		for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
			n.byte(b)
		}
	}
	n.inWord = false // the next string starts a word
}

func (n *nameHash) byte(b byte) {
	n.h ^= uint64(b)
	n.h *= 1099511628211
}

// sum is the hash, 0 for no word.
func (n *nameHash) sum() uint64 {
	if n.words == 0 {
		return 0
	}
	return max(n.h, 1)
}

// nameKey hashes words as nameHash does.
func nameKey(words []string) uint64 {
	var n nameHash
	for _, w := range words {
		n.add(w)
	}
	return n.sum()
}

// nameWords are s's words of letters and digits.
func nameWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// nameQuery is a request read as names: the whole of it, and each split
// of it in two (either side a title, the other an artist; "by" between
// them belongs to neither).
type nameQuery struct {
	whole uint64
	pairs [][2]uint64
	// maskL and maskR hold a bit (key mod 64) of every left and right side
	// of pairs: a track whose keys hit neither cannot match a pair, which
	// most candidates show in a few operations (bonus is per candidate).
	maskL, maskR uint64
}

func keyBit(k uint64) uint64 { return 1 << (k & 63) }

func newNameQuery(text string) nameQuery {
	w := nameWords(text)
	if len(w) > nameMaxWords {
		return nameQuery{}
	}
	q := nameQuery{whole: nameKey(w)}
	for k := 1; k < len(w); k++ {
		left, right := w[:k], w[k:]
		if strings.EqualFold(right[0], "by") && len(right) > 1 {
			right = right[1:]
		}
		l, r := nameKey(left), nameKey(right)
		q.pairs = append(q.pairs, [2]uint64{l, r})
		q.maskL |= keyBit(l)
		q.maskR |= keyBit(r)
	}
	return q
}

// bonus is what the request's names add to a track with names n.
func (q *nameQuery) bonus(n nameKeys) float64 {
	if q.whole == 0 {
		return 0
	}
	titles, artist := keyBit(n.base)|keyBit(n.title), keyBit(n.artist)
	if titles&q.maskL != 0 && artist&q.maskR != 0 || artist&q.maskL != 0 && titles&q.maskR != 0 {
		for _, p := range q.pairs {
			if (p[0] == n.base || p[0] == n.title) && p[1] == n.artist || p[0] == n.artist && (p[1] == n.base || p[1] == n.title) {
				return wNameTitleArtist
			}
		}
	}
	switch q.whole {
	case n.title:
		return wNameTitle
	case n.base:
		return wNameTitle - wNameVariant
	case n.artist:
		return wNameArtist
	}
	return 0
}
