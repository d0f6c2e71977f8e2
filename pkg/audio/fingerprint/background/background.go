package background

import (
	_ "embed"
	"fmt"

	"musiccatalog/pkg/audio/fingerprint"
)

//go:embed background.idx
var indexBytes []byte

// Below is the catalog duration (seconds, outside its longest track) under
// which For adds the background: 2 hours. In BenchmarkSmallCatalog (package fingerprint)
// unknown music was named for 40.8 / 10.6 / 2.0 / 0.2 % of its time against
// indexes of 1 / 3 / 10 / 21 wesnoth tracks (0.06 / 0.2 / 0.6 / 1.2 h)
// without the background and 0.1 / 0.0 / 1.1 / 0.2 % with it, the catalog's
// own clips found as often either way: from about an hour a catalog has
// runners-up enough of its own. Twice that leaves room for music that
// aligns more by chance than wesnoth's; above it the merge would only add
// to a large catalog's cold start.
const Below = 2 * 3600

// Index decodes the embedded background index. It is not kept: For runs
// once per catalog version, and the merged index holds what it needs
// (decoding, the check for recordings the catalog holds and merging cost
// 27–53 ms, BenchmarkFor).
func Index() (*fingerprint.Index, error) {
	ix := new(fingerprint.Index)
	if err := ix.UnmarshalBinary(indexBytes); err != nil {
		return nil, fmt.Errorf("background: embedded index: %w", err)
	}
	return ix, nil
}

// For returns catalog with the background added (fingerprint.WithBackground)
// when it is small, catalog itself otherwise (or when it is nil). A catalog
// is small when its audio outside its longest track is under Below
// seconds: what competes with a match is the other tracks, so one long
// track (a 3-hour mix) has as few runners-up as a short one.
func For(catalog *fingerprint.Index) (*fingerprint.Index, error) {
	if catalog == nil || !small(catalog) {
		return catalog, nil
	}
	bg, err := Index()
	if err != nil {
		return nil, err
	}
	return fingerprint.WithBackground(catalog, bg)
}

// small reports whether catalog's audio outside its longest track is
// under Below seconds.
func small(catalog *fingerprint.Index) bool {
	longest := uint32(0)
	for _, t := range catalog.Tracks() {
		longest = max(longest, t.Frames)
	}
	return catalog.Seconds()-float64(longest)*fingerprint.FrameSeconds < Below
}
