package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/search/semantic"
)

// writeThesaurus writes words and meanings in aiksaurus's format: each
// word NUL-terminated with its meanings, each meaning two title words
// and its word list, every list of big-endian uint16s ending in 0xffff.
func writeThesaurus(t *testing.T, words []string, meanings [][]int) string {
	t.Helper()
	u16 := func(b []byte, xs ...int) []byte {
		for _, x := range xs {
			b = binary.BigEndian.AppendUint16(b, uint16(x))
		}
		return binary.BigEndian.AppendUint16(b, 0xffff)
	}
	var wb, mb []byte
	for wi, w := range words {
		wb = append(append(wb, w...), 0)
		var ms []int
		for m, ws := range meanings {
			for _, x := range ws {
				if x == wi {
					ms = append(ms, m)
				}
			}
		}
		wb = u16(wb, ms...)
	}
	for _, ws := range meanings {
		mb = u16(mb, append([]int{ws[0], ws[1]}, ws...)...)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "words.dat"), wb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meanings.dat"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestThesaurusGivesUnknownWordsTheirNeighbours(t *testing.T) {
	words := []string{"calm", "hushed", "placid:lake", "serene", "loud"}
	dir := writeThesaurus(t, words, [][]int{{0, 1, 2, 3}, {4, 1}})
	th, err := readThesaurus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(th.words) != 5 || th.words[2] != "placid lake" || len(th.meanings) != 2 || len(th.meanings[0]) != 4 {
		t.Fatalf("read %q, meanings %v", th.words, th.meanings)
	}
	// Anchors: 0 calm, 1 loud. "calm" is written, "serene" derived,
	// "hushed" and "placid lake" unknown.
	written := map[string]vec{"calm": {1, 0}}
	out := map[string]semantic.Entry{
		"calm":   {Anchors: []uint8{0}, Weights: []float32{1}, Conf: 1},
		"serene": {Anchors: []uint8{0}, Weights: []float32{1}, Conf: 0.6},
		"loud":   {Anchors: []uint8{1}, Weights: []float32{1}, Conf: 1},
	}
	added, blended := addThesaurus(th, 2, written, out, 0)
	if added != 2 || blended != 0 {
		t.Fatalf("added %d, blended %d; want 2, 0", added, blended)
	}
	// "placid lake": its one meaning's known neighbours are all calm.
	if e := out["placid lake"]; len(e.Anchors) != 1 || e.Anchors[0] != 0 || e.Conf <= 0 || e.Conf > thesConf {
		t.Errorf("placid lake = %+v", e)
	}
	// "hushed" is in a calm meaning and a loud one: both.
	if e := out["hushed"]; len(e.Anchors) != 2 {
		t.Errorf("hushed = %+v", e)
	}
	if e := out["calm"]; e.Conf != 1 || len(e.Anchors) != 1 {
		t.Errorf("a written word changed: %+v", e)
	}
	// With a blend, a derived word takes its neighbours' meaning in part
	// (serene, read loud, among calm words), keeping its confidence.
	out["serene"] = semantic.Entry{Anchors: []uint8{1}, Weights: []float32{1}, Conf: 0.6}
	if added, _ = addThesaurus(th, 2, written, out, 1); added != 0 {
		t.Fatalf("added %d on the second pass", added)
	}
	if e := out["serene"]; len(e.Anchors) != 2 || e.Conf != 0.6 {
		t.Errorf("serene = %+v", e)
	}
}

func TestThesaurusRejectsTruncatedData(t *testing.T) {
	dir := writeThesaurus(t, []string{"calm", "still"}, [][]int{{0, 1}})
	p := filepath.Join(dir, "meanings.dat")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, b[:len(b)-2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readThesaurus(dir); err == nil {
		t.Error("a meaning without its end marker was read")
	}
}
