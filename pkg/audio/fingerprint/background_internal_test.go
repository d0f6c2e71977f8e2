package fingerprint

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/audio"
)

// TestCatalogStretches: background stretches become unexplained music
// joined with the unexplained music they nearly touch, short pieces are
// dropped as finish drops them, and without music ranges none is reported.
func TestCatalogStretches(t *testing.T) {
	ix := &Index{background: map[string]bool{"bg": true}}
	in := []Stretch{
		{StartMs: 0, EndMs: 10_000, TrackID: "a"},
		{StartMs: 10_000, EndMs: 14_000},                // unexplained
		{StartMs: 14_500, EndMs: 30_000, TrackID: "bg"}, // 0.5 s later: joined
		{StartMs: 30_000, EndMs: 50_000, TrackID: "b"},  //
		{StartMs: 52_000, EndMs: 54_500, TrackID: "bg"}, // 2.5 s alone: dropped
		{StartMs: 60_000, EndMs: 70_000, TrackID: "bg"}, // its own piece
	}
	got := ix.catalogStretches(in, TimelineOptions{Music: []audio.Range{{EndMs: 70_000}}}.withDefaults())
	want := []Stretch{
		{StartMs: 0, EndMs: 10_000, TrackID: "a"},
		{StartMs: 10_000, EndMs: 30_000, bg: audio.Range{StartMs: 14_500, EndMs: 30_000}},
		{StartMs: 30_000, EndMs: 50_000, TrackID: "b"},
		{StartMs: 60_000, EndMs: 70_000, bg: audio.Range{StartMs: 60_000, EndMs: 70_000}},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("with music:\n got %+v\nwant %+v", got, want)
	}
	got = ix.catalogStretches(in, TimelineOptions{}.withDefaults())
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", []Stretch{in[0], in[1], in[3]}) {
		t.Errorf("without music: %+v", got)
	}
}

// TestBackgroundHoldsGuidedEdges: guided edges treat the time background
// music explains as they would a catalog stretch there – an edge does not
// widen into it, and a gap holding it is not split between its neighbours.
func TestBackgroundHoldsGuidedEdges(t *testing.T) {
	st := []Stretch{
		{StartMs: 0, EndMs: 10_000, TrackID: "a"},
		{StartMs: 10_000, EndMs: 16_000, bg: audio.Range{StartMs: 11_000, EndMs: 15_000}},
		{StartMs: 16_000, EndMs: 40_000, TrackID: "b"},
	}
	if _, hi := neighbourBounds(st, 0); hi != 11 {
		t.Errorf("a may widen to %.1f s, want 11 (the background's start)", hi)
	}
	if lo, _ := neighbourBounds(st, 2); lo != 15 {
		t.Errorf("b may widen back to %.1f s, want 15 (the background's end)", lo)
	}
	if !heldWithin(st, 10_000, 16_000) || heldWithin(st, 15_000, 16_000) {
		t.Error("heldWithin")
	}
	plain := []Stretch{st[0], {StartMs: 10_000, EndMs: 16_000}, st[2]}
	if _, hi := neighbourBounds(plain, 0); hi != 16 || heldWithin(plain, 10_000, 16_000) {
		t.Errorf("unexplained music no background explains holds nothing: a may widen to %.1f s", hi)
	}
}
