package fingerprint

import (
	"errors"
	"slices"
)

// Background music. Every decision to name a track weighs its score
// against the best *other* track's (Candidate.Ratio, the warp search's
// contenders): music the index does not hold still aligns some hashes with
// every track – tuning, chords and scales are shared – and the runner-up is
// how high that chance goes for this query. A catalog of a few tracks has
// few runners-up to show it: with one track there is none, and anything
// that aligns 20 hashes with it is named (BenchmarkSmallCatalog: whole
// wesnoth tracks outside the index named for 41 % of their time against a
// one-track index, 11 % against three, 0.2 % against 21).
//
// WithBackground lends such a catalog the runners-up a larger one would
// have: the tracks of a background index (reference music, see package
// background) are matched like any other and may win a window, a run or
// the warp search, but are never reported. Match and MatchWarped leave
// their candidates out; Timeline reports their time as music the index
// does not explain (TrackID "", when Music is set) or not at all.

// WithBackground returns an index of catalog's tracks and bg's, in which
// bg's tracks only compete: they are never reported. Track IDs must not
// repeat between the two. The result is for matching only: MarshalBinary
// refuses it, so that a background is never stored as catalog.
func WithBackground(catalog, bg *Index) (*Index, error) {
	if len(bg.background) > 0 || len(catalog.background) > 0 {
		return nil, errors.New("fingerprint: index already has a background")
	}
	out, err := Merge(catalog, bg)
	if err != nil {
		return nil, err
	}
	out.background = make(map[string]bool, len(bg.tracks))
	for _, t := range bg.tracks {
		out.background[t.ID] = true
	}
	return out, nil
}

// HasBackground reports whether ix was made by WithBackground.
func (ix *Index) HasBackground() bool { return len(ix.background) > 0 }

// isBackground reports whether id is a background track of ix.
func (ix *Index) isBackground(id string) bool { return ix.background[id] }

// catalogCandidates drops background tracks' candidates.
func catalogCandidates[C interface{ trackID() string }](ix *Index, cs []C) []C {
	if len(ix.background) == 0 {
		return cs
	}
	return slices.DeleteFunc(cs, func(c C) bool { return ix.isBackground(c.trackID()) })
}

func (c Candidate) trackID() string { return c.TrackID }

// catalogStretches turns background tracks' stretches into music the index
// does not explain (joined with such music they touch) when the timeline
// reports it (music set), and drops them otherwise.
func (ix *Index) catalogStretches(in []Stretch, music bool) []Stretch {
	if len(ix.background) == 0 {
		return in
	}
	var out []Stretch
	for _, s := range in {
		if ix.isBackground(s.TrackID) {
			if !music {
				continue
			}
			s = Stretch{StartMs: s.StartMs, EndMs: s.EndMs}
		}
		if n := len(out); n > 0 && s.TrackID == "" && out[n-1].TrackID == "" && s.StartMs <= out[n-1].EndMs {
			out[n-1].EndMs = max(out[n-1].EndMs, s.EndMs)
			continue
		}
		out = append(out, s)
	}
	return out
}
