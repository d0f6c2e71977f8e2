package fingerprint

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// matchUnpruned is Match without the bins: every vote is sorted and
// scanned, as before the bins existed. It is the reference the pruning must
// not depart from.
func (ix *Index) matchUnpruned(query []Hash, opts MatchOptions, within Track) []Candidate {
	o := opts.withDefaults()
	m := new(matcher)
	qFrames := int64(0)
	for _, h := range query {
		qFrames = max(qFrames, int64(h.Time)+1)
	}
	minRaw := max(1, int(float64(o.MinScore)/max(1, o.MinRatio)))
	m.vote(ix, query, qFrames, 1, within.Start, within.Start+within.Frames)
	radixSort(m.votes, m.growTmp(), 32, 64)
	return ix.rank(m, query, m.windows(o.Tolerance, minRaw, qFrames), o, qFrames)
}

// TestVotePruningExact: on an index whose few keys make long posting
// lists and dense chance alignments, queries made of a track's hashes
// (some dropped, some moved by a frame) plus noise get exactly the
// candidates of the unpruned matcher, with default and relaxed options,
// over the whole index and within one track.
func TestVotePruningExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const keys = 1 << 11
	b := NewBuilder()
	tracks := make([][]Hash, 30)
	for i := range tracks {
		n := 2000 + r.IntN(3000)
		for range n * 3 {
			tracks[i] = append(tracks[i], Hash{Key: uint32(r.IntN(keys)), Time: uint32(r.IntN(n))})
		}
		sortHashes(tracks[i])
		if err := b.Add(fmt.Sprint("t", i), float64(n)*FrameSeconds, tracks[i]); err != nil {
			t.Fatal(err)
		}
	}
	ix := b.Build()
	opts := []MatchOptions{{}, {MinScore: 5, MinRatio: 0.5, MaxCandidates: 5}, {MinScore: 1, MinRatio: 1e-9, MaxCandidates: 10}}
	for q := range 40 {
		src := tracks[r.IntN(len(tracks))]
		from := uint32(r.IntN(1000))
		var query []Hash
		for _, h := range src {
			if h.Time < from || h.Time >= from+860 || r.Float64() < 0.5 {
				continue
			}
			// Some hashes are marked strong, as a QueryOptions query's are.
			query = append(query, Hash{Key: h.Key | StrongBit*uint32(r.IntN(2)), Time: uint32(max(0, int(h.Time-from)+r.IntN(3)-1))})
		}
		for range 100 + r.IntN(2000) {
			query = append(query, Hash{Key: uint32(r.IntN(keys)) | StrongBit*uint32(r.IntN(2)), Time: uint32(r.IntN(860))})
		}
		sortHashes(query)
		for _, o := range opts {
			within := Track{Frames: ix.end}
			if q%2 == 1 {
				within = ix.tracks[r.IntN(len(ix.tracks))]
			}
			got, want := ix.match(query, o, within), ix.matchUnpruned(query, o, within)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("query %d, options %+v: pruned %+v, unpruned %+v", q, o, got, want)
			}
			if q == 0 && len(got) == 0 {
				t.Fatalf("options %+v: the test query found nothing", o)
			}
		}
	}
}

func sortHashes(hs []Hash) {
	slices.SortStableFunc(hs, func(a, b Hash) int { return int(a.Time) - int(b.Time) })
}
