package fingerprint_test

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/audio/fingerprint"
)

// BenchmarkSmallCatalog measures false catalog stretches when the index is
// small – a new deployment, the demo catalog, a partner's own library:
// indexes of 1, 3, 10 and up to 30 wesnoth tracks (every other track from
// the first: 21 there are), and whole wesnoth tracks that are not in them
// as the queries (every fourth from the second; Timeline over each, clean). Every catalog stretch reported is false
// (the set does share a few passages between tracks: casualties_of_war
// holds 3 s of the_deep_path and 7 s of battle, scores 73 and 85).
//
//	go test ./pkg/audio/fingerprint/ -run '^$' -bench BenchmarkSmallCatalog -benchtime 1x
//
// The ratio test compares a match with the best other track's score, the
// background that music no track explains still aligns; with few tracks
// there is little background to clear. Found and measured in the
// 2026-12-07 session, not fixed (README, Recognition).
func BenchmarkSmallCatalog(b *testing.B) {
	tracks := loadTracks(b)
	fp := fingerprint.New(fingerprint.IndexOptions)
	qfp := fingerprint.New(fingerprint.QueryOptions)
	var queries []benchTrack
	for i := 1; i < len(tracks); i += 4 {
		queries = append(queries, tracks[i])
	}
	for range b.N {
		for _, size := range []int{1, 3, 10, 30} {
			bl := fingerprint.NewBuilder()
			n := 0
			for i := 0; i < len(tracks) && n < size; i += 2 {
				if err := bl.Add(tracks[i].name, tracks[i].pcm.Seconds(), fp.Fingerprint(tracks[i].pcm)); err != nil {
					b.Fatal(err)
				}
				n++
			}
			ix := bl.Build()
			var stretches, warped int
			var seconds, total float64
			for _, q := range queries {
				total += q.pcm.Seconds()
				for _, s := range ix.Timeline(qfp.Fingerprint(q.pcm), fingerprint.TimelineOptions{}) {
					if s.TrackID == "" {
						continue
					}
					stretches++
					seconds += float64(s.EndMs-s.StartMs) / 1000
					if s.Speed != 0 || s.Semitones != 0 {
						warped++
					}
				}
			}
			fmt.Printf("index of %2d tracks: %3d false catalog stretches (%d warped), %5.0f s of %5.0f s of music not in it (%4.1f %%)\n",
				n, stretches, warped, seconds, total, 100*seconds/total)
		}
	}
}
