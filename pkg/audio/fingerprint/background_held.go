package fingerprint

import (
	"cmp"
	"math"
	"slices"
)

// A catalog may hold a background recording itself (or a long sample of
// one): the two would then score alike for its music, no ratio test would
// pass, and the catalog's track would never be named. WithBackground
// leaves such background tracks out. Index hashes against index hashes, a
// copy aligns 28–60 % of a 10-s window's hashes (Score counts at most
// frameCap a frame), a copy half a hop late through MP3 18–36 %, and
// chance against other music 0–2 % (the OpenClonk background against
// itself and the wesnoth set): heldShare, in heldWindows of the
// heldWindowsTried windows, lies between them with room on both sides. A
// window of fewer than heldLeast hashes (a fade, a rest) says nothing.
const (
	heldWindowSeconds = 10
	heldWindowsTried  = 6
	heldWindows       = 2
	heldShare         = 0.1
	heldLeast         = 100
)

// heldIn lists the tracks of ix that catalog holds (see heldShare).
func (ix *Index) heldIn(catalog *Index) map[string]bool {
	held := map[string]bool{}
	all := ix.trackHashes()
	span := uint32(math.Round(heldWindowSeconds / FrameSeconds))
	for _, t := range ix.tracks {
		if t.Frames <= span {
			continue
		}
		found := 0
		for w := range heldWindowsTried {
			from := uint32(uint64(t.Frames-span) * uint64(w) / (heldWindowsTried - 1))
			win := hashesIn(nil, all[t.ID], from, from+span)
			if len(win) < heldLeast {
				continue
			}
			cs := catalog.matchAll(win, MatchOptions{MaxCandidates: 1, MinScore: DefaultMinScore, MinRatio: 0.5})
			if len(cs) > 0 && float64(cs[0].Score) >= heldShare*float64(len(win)) {
				found++
			}
		}
		if found >= heldWindows {
			held[t.ID] = true
		}
	}
	return held
}

// trackHashes rebuilds each track's hashes (track time, ascending) from
// the postings.
func (ix *Index) trackHashes() map[string][]Hash {
	out := make(map[string][]Hash, len(ix.tracks))
	for k := range uint32(1 << HashBits) {
		for _, g := range ix.postings(k) {
			if t, ok := ix.track(int64(g)); ok {
				out[t.ID] = append(out[t.ID], Hash{Key: k, Time: g - t.Start})
			}
		}
	}
	for _, hs := range out {
		slices.SortFunc(hs, func(a, b Hash) int { return cmp.Compare(a.Time, b.Time) })
	}
	return out
}

// without returns ix less the tracks drop names (their postings removed).
func (ix *Index) without(drop map[string]bool) *Index {
	if len(drop) == 0 {
		return ix
	}
	out := &Index{starts: make([]uint32, len(ix.starts)), end: ix.end}
	for _, t := range ix.tracks {
		if !drop[t.ID] {
			out.tracks = append(out.tracks, t)
		}
	}
	out.posts = make([]uint32, 0, len(ix.posts))
	for k := range uint32(1 << HashBits) {
		for _, g := range ix.postings(k) {
			if t, ok := ix.track(int64(g)); !ok || !drop[t.ID] {
				out.posts = append(out.posts, g)
			}
		}
		out.starts[k+1] = uint32(len(out.posts))
	}
	return out
}
