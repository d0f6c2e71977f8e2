package semantic

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Entry is the meaning of one word or phrase: its strongest anchors with
// their weights (of a unit vector), and how much the word is trusted (1
// for a written lexicon entry, less for one derived through WordNet).
type Entry struct {
	Anchors []uint8
	Weights []float32
	Conf    float32
}

var magic = []byte("MCSEMLX2")

// Encode writes a lexicon: the anchors, the words, the facet values and
// the words' context records (each sorted, so that a lookup is a binary
// search in place).
func Encode(anchors []string, words map[string]Entry, facets map[string][]float64, contexts map[string]Context) []byte {
	var b bytes.Buffer
	b.Write(magic)
	b.WriteByte(byte(len(anchors)))
	for _, a := range anchors {
		b.WriteByte(byte(len(a)))
		b.WriteString(a)
	}
	fe := make(map[string]Entry, len(facets))
	for k, v := range facets {
		e := Entry{Conf: 1}
		for i, x := range v {
			if x > 0.02 {
				e.Anchors = append(e.Anchors, uint8(i))
				e.Weights = append(e.Weights, float32(x))
			}
		}
		fe[k] = e
	}
	writeTable(&b, fe, appendEntry)
	writeTable(&b, words, appendEntry)
	writeTable(&b, contexts, appendContext)
	return b.Bytes()
}

func appendEntry(data *bytes.Buffer, e Entry) {
	data.WriteByte(quant(float64(e.Conf)))
	data.WriteByte(byte(len(e.Anchors)))
	for i, a := range e.Anchors {
		data.WriteByte(a)
		data.WriteByte(quant(float64(e.Weights[i])))
	}
}

func writeTable[V any](b *bytes.Buffer, m map[string]V, rec func(*bytes.Buffer, V)) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if len(k) <= 255 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var data bytes.Buffer
	offs := make([]byte, 0, 4*len(keys))
	for _, k := range keys {
		offs = binary.LittleEndian.AppendUint32(offs, uint32(data.Len()))
		data.WriteByte(byte(len(k)))
		data.WriteString(k)
		rec(&data, m[k])
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(keys))))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(data.Len())))
	b.Write(offs)
	b.Write(data.Bytes())
}

func quant(x float64) byte { return byte(math.Round(min(1, max(0, x)) * 255)) }

// table is a sorted word table read in place.
type table struct {
	offs []byte // n little-endian uint32 offsets into data
	data []byte
}

func (t table) len() int { return len(t.offs) / 4 }

func (t table) key(i int) []byte {
	o := binary.LittleEndian.Uint32(t.offs[4*i:])
	n := uint32(t.data[o])
	return t.data[o+1 : o+1+n]
}

// find returns the record of word (conf, k, pairs) or nil.
func (t table) find(word string) []byte {
	rec := t.findRaw(word)
	if rec == nil {
		return nil
	}
	return rec[:2+2*int(rec[1])]
}

// findRaw returns everything written for word (up to the next key's
// record), or nil.
func (t table) findRaw(word string) []byte {
	w := []byte(word)
	lo, hi := 0, t.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(t.key(m), w) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == t.len() || !bytes.Equal(t.key(lo), w) {
		return nil
	}
	o := binary.LittleEndian.Uint32(t.offs[4*lo:])
	end := uint32(len(t.data))
	if lo+1 < t.len() {
		end = binary.LittleEndian.Uint32(t.offs[4*(lo+1):])
	}
	return t.data[o+1+uint32(t.data[o]) : end]
}

var errFormat = errors.New("semantic: not a lexicon of this format")

// parse reads the header and the three tables of a lexicon.
func parse(b []byte) (anchors []string, facets, words, contexts table, err error) {
	if !bytes.HasPrefix(b, magic) {
		return nil, table{}, table{}, table{}, errFormat
	}
	b = b[len(magic):]
	if len(b) < 1 {
		return nil, table{}, table{}, table{}, errFormat
	}
	n := int(b[0])
	b = b[1:]
	for range n {
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return nil, table{}, table{}, table{}, errFormat
		}
		anchors = append(anchors, string(b[1:1+b[0]]))
		b = b[1+b[0]:]
	}
	readTable := func() (table, error) {
		if len(b) < 8 {
			return table{}, errFormat
		}
		cnt, size := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
		b = b[8:]
		if len(b) < 4*cnt+size {
			return table{}, errFormat
		}
		t := table{offs: b[:4*cnt], data: b[4*cnt : 4*cnt+size]}
		b = b[4*cnt+size:]
		return t, nil
	}
	if facets, err = readTable(); err != nil {
		return nil, table{}, table{}, table{}, err
	}
	if words, err = readTable(); err != nil {
		return nil, table{}, table{}, table{}, err
	}
	if contexts, err = readTable(); err != nil {
		return nil, table{}, table{}, table{}, err
	}
	return anchors, facets, words, contexts, nil
}

// Tokens splits text into lower-cased words: runs of letters and digits,
// with inner hyphens, ampersands and apostrophes kept ("lo-fi", "r&b").
func Tokens(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '&' && r != '\''
	}) {
		if t = strings.Trim(t, "-&'"); t != "" {
			out = append(out, strings.TrimSuffix(t, "'s"))
		}
	}
	return out
}

// Morph returns the base forms a word may be an inflection of, in the
// order WordNet's morphology tries them (plurals, verb forms, comparatives),
// then with a doubled final consonant undone ("letting" → let, "stopped"
// → stop).
func Morph(w string) []string {
	var out []string
	for _, r := range morphRules {
		if strings.HasSuffix(w, r[0]) && len(w) > len(r[0])+1 {
			out = append(out, w[:len(w)-len(r[0])]+r[1])
		}
	}
	for _, suf := range doubling {
		if n := len(w) - len(suf); strings.HasSuffix(w, suf) && n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouyslz", rune(w[n-1])) {
			out = append(out, w[:n-1])
		}
	}
	return out
}

var doubling = []string{"ing", "ed", "er", "est"}

var morphRules = [][2]string{
	{"ies", "y"}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"s", ""},
	{"ing", ""}, {"ing", "e"}, {"ed", ""}, {"ed", "e"}, {"es", "e"}, {"es", ""},
	{"er", ""}, {"er", "e"}, {"est", ""}, {"est", "e"}, {"ly", ""},
}

// IsStopword reports whether w says nothing about music in a request or
// a description.
func IsStopword(w string) bool { return stopwords[w] }

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the and or of for to in on at by with from into onto as is are was were be been being " +
		"it its this that these those there here i me my we our us you your they them their he's she's it's " +
		"some any all each every no not very really quite just so too also than then but if when while where which who whom what how " +
		"something anything someone anyone thing things stuff kind sort type style genre genres music musical song songs track tracks " +
		"tune tunes piece pieces sound sounds sounding like want need looking look find give get make made use used using " +
		"good nice great best perfect ideal suitable please maybe bit little more less most much many one two " +
		"can could would should will might may do does did have has had about over under up down out off through " +
		"video videos clip clips content background vibe vibes feel feeling playlist " +
		// Adverbs, quantifiers, connectives and light verbs: WordNet gives
		// them senses ("only" → lone, "going" → death, "soon" → space) that
		// a request or a description never means.
		"only even yet already almost always ever soon now again else own same other another such both either " +
		"whether because though although since until till during within upon toward towards across along around " +
		"behind beyond among go goes going gone went come comes coming came say says said saying tell tells told " +
		"gets getting got take takes taking took put puts let lets keep keeps seem seems try tries trying " +
		"actually basically probably definitely kinda") {
		m[w] = true
	}
	return m
}()
