package fingerprint

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
)

// TestStrongPeaksAreTheSparseQuerys: the peaks a QueryOptions fingerprint
// marks strong are exactly the peaks of a query at StrongPeaksPerSecond,
// StrongBit is set on a hash exactly when both its peaks are strong, and
// index hashes never carry it.
func TestStrongPeaksAreTheSparseQuerys(t *testing.T) {
	pcm := audiotest.MixSNR(audiotest.KeyPiece(SampleRate, 12, 2, true, 5), audiotest.PinkNoise(SampleRate, 12, 0.1, 6), 0)
	dense := New(QueryOptions)
	hs := dense.Fingerprint(pcm)
	sparseOpts := QueryOptions
	sparseOpts.PeaksPerSecond = QueryOptions.StrongPeaksPerSecond
	sparse := New(sparseOpts)
	sparse.Fingerprint(pcm)
	var strong []peak
	for _, p := range dense.peaks {
		if p.strong {
			strong = append(strong, peak{t: p.t, f: p.f, v: p.v})
		}
	}
	want := make([]peak, len(sparse.peaks))
	for i, p := range sparse.peaks {
		want[i] = peak{t: p.t, f: p.f, v: p.v}
	}
	if len(strong) == 0 || len(strong) == len(dense.peaks) || fmt.Sprint(strong) != fmt.Sprint(want) {
		t.Fatalf("strong peaks %d of %d, sparse query's %d: not the same set", len(strong), len(dense.peaks), len(want))
	}
	flagged := 0
	for _, h := range hs {
		if h.Key&StrongBit != 0 {
			flagged++
		}
	}
	if flagged == 0 || flagged == len(hs) {
		t.Fatalf("%d of %d hashes strong", flagged, len(hs))
	}
	for _, h := range New(IndexOptions).Fingerprint(pcm) {
		if h.Key&StrongBit != 0 {
			t.Fatal("an index hash carries StrongBit")
		}
	}
}

// TestStrongHashesJudgeTheRatio: a query whose strong hashes align with
// one track while its weak ones lift another track's chance score close to
// it is accepted on the strong hashes' ratio; the same hashes unmarked are
// not, and strong hashes that do not reach MinScore by themselves accept
// nothing either.
func TestStrongHashesJudgeTheRatio(t *testing.T) {
	b := NewBuilder()
	tracks := [2][]Hash{}
	for i := range tracks {
		for f := range uint32(400) {
			tracks[i] = append(tracks[i], Hash{Key: uint32(i)<<20 | f, Time: f})
		}
		if err := b.Add(fmt.Sprint("t", i), 400*FrameSeconds, tracks[i]); err != nil {
			t.Fatal(err)
		}
	}
	ix := b.Build()
	// 40 frames of track 0 (strong), 30 of track 1 (weak): ratio 4/3 over
	// all hashes, 40/0 over the strong ones.
	query := func(strong0, n0 int) []Hash {
		var q []Hash
		for f := range uint32(n0) {
			h := Hash{Key: tracks[0][100+f].Key, Time: f}
			if int(f) < strong0 {
				h.Key |= StrongBit
			}
			q = append(q, h)
		}
		for f := range uint32(30) {
			q = append(q, Hash{Key: tracks[1][200+f].Key, Time: f})
		}
		sortHashes(q)
		return q
	}
	if cs := ix.Match(query(40, 40), MatchOptions{}); len(cs) != 1 || cs[0].TrackID != "t0" || cs[0].StrongScore != 40 || cs[0].Ratio < DefaultMinRatio {
		t.Fatalf("strong query: %+v", cs)
	}
	if cs := ix.Match(query(0, 40), MatchOptions{}); len(cs) != 0 {
		t.Fatalf("unmarked query: %+v", cs)
	}
	if cs := ix.Match(query(DefaultMinScore-1, 40), MatchOptions{}); len(cs) != 0 {
		t.Fatalf("strong hashes below MinScore: %+v", cs)
	}
}
