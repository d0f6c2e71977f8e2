package fingerprint

import (
	"errors"
	"slices"

	"musiccatalog/pkg/audio"
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
// bg's tracks only compete: they are never reported. A background track
// the catalog holds itself is left out (see heldIn). Track IDs must not
// repeat between the two. The result is for matching only: MarshalBinary
// refuses it, so that a background is never stored as catalog.
func WithBackground(catalog, bg *Index) (*Index, error) {
	if len(bg.background) > 0 || len(catalog.background) > 0 {
		return nil, errors.New("fingerprint: index already has a background")
	}
	bg = bg.without(bg.heldIn(catalog))
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

// reported is what match (Match's or MatchWarped's unfiltered search)
// answers with opts, background tracks' candidates left out. It asks for as
// many more candidates as ix has background tracks, so that the caller's
// MaxCandidates are still there once the background's are dropped.
func reported[C interface{ trackID() string }](ix *Index, opts MatchOptions, match func(MatchOptions) []C) []C {
	if !ix.HasBackground() {
		return match(opts)
	}
	o := opts.withDefaults()
	want := o.MaxCandidates
	o.MaxCandidates += len(ix.background)
	cs := slices.DeleteFunc(match(o), func(c C) bool { return ix.isBackground(c.trackID()) })
	return cs[:min(len(cs), want)]
}

func (c Candidate) trackID() string { return c.TrackID }

// catalogStretches turns background tracks' stretches into music the
// index does not explain when the timeline reports such music (Music set),
// and drops them otherwise. Background time counts as music even where
// music detection missed it: the fingerprints matched music there. A
// piece of it is joined with unexplained music it nearly touches (within
// mergeGapSeconds, no catalog stretch between), and dropped when shorter
// than minPiece, as finish drops short unexplained pieces: a gap inside a
// song or a neighbour's edge. Unexplained music the background had no part
// in is left as it was. A piece keeps the span the background explained
// (bg), which guided edges treat as a neighbour, as they would the catalog
// track it stands in for.
func (ix *Index) catalogStretches(in []Stretch, o TimelineOptions) []Stretch {
	if len(ix.background) == 0 {
		return in
	}
	var out, unexplained []Stretch
	for _, s := range in {
		switch {
		case ix.isBackground(s.TrackID):
			if len(o.Music) > 0 {
				unexplained = append(unexplained, Stretch{StartMs: s.StartMs, EndMs: s.EndMs, bg: audio.Range{StartMs: s.StartMs, EndMs: s.EndMs}})
			}
		case s.TrackID == "":
			unexplained = append(unexplained, s)
		default:
			out = append(out, s)
		}
	}
	sortStretches(unexplained)
	catalog := toRanges(out)
	hasBg := func(s Stretch) bool { return s.bg.EndMs > s.bg.StartMs }
	var joined []Stretch
	for _, s := range unexplained {
		if n := len(joined); n > 0 && (hasBg(s) || hasBg(joined[n-1])) &&
			float64(s.StartMs-joined[n-1].EndMs) <= mergeGapSeconds*1000 &&
			!slices.ContainsFunc(catalog, func(r audio.Range) bool { return r.StartMs < s.StartMs && r.EndMs > joined[n-1].EndMs }) {
			p := &joined[n-1]
			p.EndMs = max(p.EndMs, s.EndMs)
			switch {
			case !hasBg(s):
			case !hasBg(*p):
				p.bg = s.bg
			default:
				p.bg.EndMs = max(p.bg.EndMs, s.bg.EndMs)
			}
			continue
		}
		joined = append(joined, s)
	}
	for _, s := range joined {
		if !hasBg(s) || float64(s.EndMs-s.StartMs) >= max(o.MinSeconds, minPiece)*1000 {
			out = append(out, s)
		}
	}
	sortStretches(out)
	return out
}

// heldBy is the time a stretch holds against guided edges: a catalog
// stretch's whole span, the span background music explains in an
// unexplained one (see catalogStretches), else none.
func (s Stretch) heldBy() (audio.Range, bool) {
	switch {
	case s.TrackID != "":
		return audio.Range{StartMs: s.StartMs, EndMs: s.EndMs}, true
	case s.bg.EndMs > s.bg.StartMs:
		return s.bg, true
	}
	return audio.Range{}, false
}
