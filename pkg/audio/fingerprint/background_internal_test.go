package fingerprint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
)

// TestCatalogStretches: background stretches become unexplained music,
// joined with the unexplained music they nearly touch (no catalog stretch
// between); short background pieces are dropped as finish drops short
// unexplained ones; unexplained music the background had no part in is
// left as it was; without music ranges no background time is reported.
func TestCatalogStretches(t *testing.T) {
	ix := &Index{background: map[string]bool{"bg": true}}
	in := []Stretch{
		{StartMs: 0, EndMs: 10_000, TrackID: "a"},
		{StartMs: 10_000, EndMs: 14_000},                // unexplained
		{StartMs: 14_500, EndMs: 30_000, TrackID: "bg"}, // 0.5 s later: joined
		{StartMs: 30_000, EndMs: 50_000, TrackID: "b"},
		{StartMs: 52_000, EndMs: 54_500, TrackID: "bg"}, // 2.5 s alone: dropped
		{StartMs: 60_000, EndMs: 70_000, TrackID: "bg"}, // its own piece
		{StartMs: 70_000, EndMs: 70_500, TrackID: "c"},  // a catalog stretch between
		{StartMs: 70_500, EndMs: 72_000},                // not joined across it
		{StartMs: 80_000, EndMs: 82_500},                // no background: left as it was
		{StartMs: 83_000, EndMs: 90_000},                // (not joined either)
	}
	got := ix.catalogStretches(in, TimelineOptions{Music: []audio.Range{{EndMs: 90_000}}}.withDefaults())
	want := []Stretch{
		{StartMs: 0, EndMs: 10_000, TrackID: "a"},
		{StartMs: 10_000, EndMs: 30_000, bg: audio.Range{StartMs: 14_500, EndMs: 30_000}},
		{StartMs: 30_000, EndMs: 50_000, TrackID: "b"},
		{StartMs: 60_000, EndMs: 70_000, bg: audio.Range{StartMs: 60_000, EndMs: 70_000}},
		{StartMs: 70_000, EndMs: 70_500, TrackID: "c"},
		{StartMs: 70_500, EndMs: 72_000},
		{StartMs: 80_000, EndMs: 82_500},
		{StartMs: 83_000, EndMs: 90_000},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("with music:\n got %+v\nwant %+v", got, want)
	}
	got = ix.catalogStretches(in, TimelineOptions{}.withDefaults())
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", []Stretch{in[0], in[1], in[3], in[6], in[7], in[8], in[9]}) {
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
	around := []Stretch{{StartMs: 0, EndMs: 30_000, bg: audio.Range{StartMs: 0, EndMs: 30_000}}, {StartMs: 10_000, EndMs: 20_000, TrackID: "c"}}
	if lo, hi := neighbourBounds(around, 1); lo != 10 || hi != 20 {
		t.Errorf("inside background time c may widen to %.1f–%.1f s, want 10–20", lo, hi)
	}
	plain := []Stretch{st[0], {StartMs: 10_000, EndMs: 16_000}, st[2]}
	if _, hi := neighbourBounds(plain, 0); hi != 16 || heldWithin(plain, 10_000, 16_000) {
		t.Errorf("unexplained music no background explains holds nothing: a may widen to %.1f s", hi)
	}
}

// TestHeldIn: a catalog holding a copy of a background recording – half a
// hop late, in noise – has exactly that recording left out of the
// background, and the rest of the background keeps every posting.
func TestHeldIn(t *testing.T) {
	fp := New(IndexOptions)
	note := func(seed uint64) audio.PCM {
		r := rand.New(rand.NewPCG(seed, 3))
		var notes []audiotest.Note
		for at := 0.0; at < 60; at += 0.25 {
			notes = append(notes, audiotest.Note{Pitch: 50 + r.IntN(34), Start: at, Dur: 0.2 + 0.5*r.Float64(), Amp: 0.1 + 0.1*r.Float64()})
		}
		return audiotest.Render(SampleRate, 60, notes)
	}
	shared, other, own := note(1), note(2), note(3)
	late := audiotest.Concat(audiotest.Silence(SampleRate, 128.0/SampleRate), shared)
	late = audiotest.MixSNR(late, audiotest.PinkNoise(SampleRate, late.Seconds()+1, 0.1, 4), 10)
	cb, bb := NewBuilder(), NewBuilder()
	for id, p := range map[string]audio.PCM{"own": own, "copy": late} {
		if err := cb.Add(id, p.Seconds(), fp.Fingerprint(p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, x := range []struct {
		id string
		p  audio.PCM
	}{{"bg-shared", shared}, {"bg-other", other}} {
		if err := bb.Add(x.id, x.p.Seconds(), fp.Fingerprint(x.p)); err != nil {
			t.Fatal(err)
		}
	}
	bg := bb.Build()
	held := bg.heldIn(cb.Build())
	if len(held) != 1 || !held["bg-shared"] {
		t.Fatalf("held %v, want only bg-shared", held)
	}
	kept := bg.without(held)
	if n := len(kept.Tracks()); n != 1 || kept.Tracks()[0].ID != "bg-other" {
		t.Errorf("kept %+v", kept.Tracks())
	}
	if a, b := bg.trackHashes()["bg-other"], kept.trackHashes()["bg-other"]; len(a) == 0 || !slices.Equal(a, b) {
		t.Errorf("bg-other's hashes changed: %d → %d", len(a), len(b))
	}
	if kept.Len() != len(bg.trackHashes()["bg-other"]) {
		t.Errorf("%d postings kept, want bg-other's %d", kept.Len(), len(bg.trackHashes()["bg-other"]))
	}
}
