package recognition

import (
	"context"
	"math"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/catalog"
	soundalike "musiccatalog/pkg/search/similarity"
)

// MaxSuggestions per not-cleared segment (interface.md §8).
const MaxSuggestions = 3

// scoreScale maps a fingerprint score (aligned hashes in the best
// matching 6-s window) into [0, 1) as 1 − exp(−score/scoreScale): a match
// at the matcher's threshold gives 0.18, clean or noisy real matches
// (200–300 aligned hashes) 0.9 and above. Scores are in [0, 1] for catalog
// and outside matches alike.
const scoreScale = 5 * fingerprint.DefaultMinScore

// segments turns r's timeline and outside results into the job's
// segments, in timeline order.
func (s *Service) segments(ctx context.Context, r *jobRecord) ([]Segment, error) {
	cat, err := s.catalog.Current(ctx)
	if err != nil {
		return nil, err
	}
	var pcm audio.PCM // read only when outside matches need suggestions
	out := []Segment{}
	for _, st := range r.timeline {
		if st.TrackID != "" {
			t, ok := cat.Track(st.TrackID)
			if !ok { // removed from the catalog since Match
				out = append(out, unidentified(st.StartMs, st.EndMs))
				continue
			}
			seg := catalogSegment(t, st, r.plan)
			if seg.NotCleared() {
				seg.Suggestions = suggest(cat, r.plan, t.Features, t.ID)
			}
			out = append(out, seg)
			continue
		}
		for _, part := range outsideParts(r.external, st) {
			if part.Hit == nil {
				out = append(out, unidentified(part.StartMs, part.EndMs))
				continue
			}
			seg := outsideSegment(part)
			if s.vectorizer != nil {
				if pcm.Rate == 0 {
					if pcm, err = s.sourceAudio(ctx, r.Source); err != nil {
						return nil, err
					}
				}
				win := pcm.Window(float64(part.StartMs)/1000, float64(part.EndMs-part.StartMs)/1000)
				if v, err := s.vectorizer.Vector(ctx, cat, win); err == nil {
					seg.Suggestions = suggest(cat, r.plan, v, "")
				} else {
					s.log.Warn("no suggestions for an outside match", "job", r.ID, "err", err)
				}
			}
			out = append(out, seg)
		}
	}
	return mergeTouching(out), nil
}

// outsideParts are the outside results inside stretch st, or st as one
// unknown part when the outside tier did not run.
func outsideParts(results []externalResult, st fingerprint.Stretch) []externalResult {
	var out []externalResult
	for _, r := range results {
		if r.StartMs >= st.StartMs && r.EndMs <= st.EndMs {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = []externalResult{{StartMs: st.StartMs, EndMs: st.EndMs}}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func unidentified(start, end int64) Segment {
	return Segment{StartMs: start, EndMs: end}
}

// catalogSegment is a catalog match; cleared when plan covers the track
// (interface.md §5: free plans only free, unrestricted tracks; subscriber
// and commercial all but enterprise-only ones; enterprise all).
func catalogSegment(t *catalog.Track, st fingerprint.Stretch, plan string) Segment {
	return Segment{
		Identified: true, StartMs: st.StartMs, EndMs: st.EndMs,
		ID: ptr(t.ID), Title: ptr(t.DisplayName()), Artist: optional(t.Artist.Name),
		Cleared: ptr(catalog.Covers(plan, t)), Internal: ptr(true),
		ISRC: optional(t.ISRC), Score: ptr(similarity(1 - math.Exp(-float64(st.Score)/scoreScale))),
		Cover: coverOf(t), Speed: speedOf(st), PitchSemitones: pitchOf(st),
	}
}

// speedOf is the stretch's tempo ratio to three decimals, nil when the
// track plays at its own speed.
func speedOf(st fingerprint.Stretch) *float64 {
	if w := st.Warp(); w.Speed != 1 {
		return ptr(math.Round(w.Speed*1000) / 1000)
	}
	return nil
}

// pitchOf is the stretch's pitch shift in semitones to one decimal, nil
// when the track plays at its own pitch.
func pitchOf(st fingerprint.Stretch) *float64 {
	if w := st.Warp(); w.Semitones != 0 {
		return ptr(math.Round(w.Semitones*10) / 10)
	}
	return nil
}

// outsideSegment is an outside match: never cleared, no catalog id, no
// cover; the service's 0–100 score scaled to [0, 1] when it gives one.
func outsideSegment(r externalResult) Segment {
	h := r.Hit
	seg := Segment{
		Identified: true, StartMs: r.StartMs, EndMs: r.EndMs,
		Title: ptr(h.Title), Artist: optional(h.Artist), Cleared: ptr(false), Internal: ptr(false),
		ISRC: optional(h.ISRC), ExternalLabel: optional(h.Label),
	}
	if h.Score != nil {
		seg.Score = ptr(similarity(*h.Score / 100))
	}
	return seg
}

// similarity clamps to [0, 1] with two decimals.
func similarity(x float64) float64 { return math.Round(min(1, max(0, x))*100) / 100 }

func coverOf(t *catalog.Track) any {
	c := Cover{URL: t.Cover}
	if t.Album != nil {
		c.Small, c.Medium, c.Large = t.Album.Images.Small, t.Album.Images.Medium, t.Album.Images.Large
	}
	if c == (Cover{}) {
		return nil
	}
	return &c
}

// suggest returns up to MaxSuggestions tracks the plan covers, most
// similar to seed by sound (package search/similarity, what by-id ranks with), never
// the track exclude.
func suggest(cat *catalog.Catalog, plan string, seed []float32, exclude string) []Suggestion {
	if len(seed) == 0 {
		return []Suggestion{}
	}
	covered := func(t *catalog.Track) bool { return catalog.Covers(plan, t) }
	similar := soundalike.Similar(cat, seed, covered, exclude, MaxSuggestions)
	out := make([]Suggestion, len(similar))
	for i, t := range similar {
		out[i] = Suggestion{ID: t.ID, Name: t.DisplayName(), Artist: SuggestionArtist{
			Name: t.Artist.Name, Slug: t.Artist.Slug, Path: "/artists/" + t.Artist.Slug + "/",
		}}
	}
	return out
}

// mergeTouching joins neighbours that are the same music without a gap:
// a song the video cut inside of, or outside chunks and unidentified
// stretches that follow each other.
func mergeTouching(segs []Segment) []Segment {
	var out []Segment
	for _, s := range segs {
		if n := len(out); n > 0 && out[n-1].EndMs >= s.StartMs && sameMusic(out[n-1], s) {
			p := &out[n-1]
			p.EndMs = max(p.EndMs, s.EndMs)
			if s.Score != nil && (p.Score == nil || *s.Score > *p.Score) {
				p.Score = s.Score
			}
			continue
		}
		out = append(out, s)
	}
	if out == nil {
		out = []Segment{}
	}
	return out
}

func sameMusic(a, b Segment) bool {
	if a.Identified != b.Identified {
		return false
	}
	if !a.Identified {
		return true
	}
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.ID, b.ID) && eq(a.Title, b.Title) && eq(a.Artist, b.Artist) && eq(a.ISRC, b.ISRC)
}

// longestIdentified is the job's track: the longest identified segment
// (the earliest of equals), without timing.
func longestIdentified(segs []Segment) *Segment {
	var best *Segment
	for i := range segs {
		s := &segs[i]
		if s.Identified && (best == nil || s.EndMs-s.StartMs > best.EndMs-best.StartMs) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	return best.untimed()
}
