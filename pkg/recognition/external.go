package recognition

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/store"
)

// The outside tier samples every unexplained stretch (music the catalog
// did not explain) about once per sampleSpacingMs, each sample at most
// sampleMs from the middle of its share of the stretch, and never sends
// more than the job's budget (Config.OutsideSamples, default
// DefaultOutsideSamples) in all. The answers are then joined into parts
// covering the stretch (resolveStretch): one song is one part, extended to
// the stretch's edges.
const (
	// DefaultOutsideSamples bounds the samples one job sends to the outside
	// recognizer: each is one billed identification request. 20 samples
	// cover 10 minutes of unexplained music at full density; longer
	// stretches are sampled more sparsely.
	DefaultOutsideSamples = 20
	sampleSpacingMs       = 30_000
	sampleMs              = outside.MaxSampleSeconds * 1000
	// minSegmentMs: no outside-tier part shorter than this is reported
	// (issue 16, "no slivers"); a shorter piece goes to its neighbour, and
	// a shorter unexplained stretch is not sampled (too short for a
	// service to name).
	minSegmentMs = 3000
	// Transient outside errors are retried in process a few times; a
	// sample that still fails counts as unheard.
	outsideAttempts = 3
	// maxFailedInRow samples failing one after another means the service
	// is down: the task stops sending and fails (the workflow retries it)
	// instead of spending the budget and the task's time on it.
	maxFailedInRow = 3
)

// outsideBackoff is the pause before the second attempt (doubling after).
var outsideBackoff = 500 * time.Millisecond

// externalResult is what the outside tier said about a part of an
// unexplained stretch; Hit is nil when it knew nothing.
type externalResult struct {
	StartMs int64       `json:"start_ms"`
	EndMs   int64       `json:"end_ms"`
	Hit     *outsideHit `json:"hit,omitempty"`
}

type outsideHit struct {
	Title  string   `json:"title"`
	Artist string   `json:"artist"`
	Album  string   `json:"album,omitempty"`
	Label  string   `json:"label,omitempty"`
	ISRC   string   `json:"isrc,omitempty"`
	Score  *float64 `json:"score,omitempty"`
}

// same reports whether two answers name the same song: the same ISRC, or
// the same title and artist (a service may name different releases of
// one recording, with different ISRCs, from different samples).
func (h *outsideHit) same(o *outsideHit) bool {
	if h == nil || o == nil {
		return h == o
	}
	if h.ISRC != "" && h.ISRC == o.ISRC {
		return true
	}
	fold := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	return fold(h.Title) == fold(o.Title) && fold(h.Artist) == fold(o.Artist)
}

// sample is one request to the outside tier and its answer.
type sample struct {
	FromMs int64       `json:"from_ms"` // the sample's window of the video
	ToMs   int64       `json:"to_ms"`
	Hit    *outsideHit `json:"hit,omitempty"`
	Failed bool        `json:"-"` // no answer after the retries: no evidence either way
	// SongStartMs and SongEndMs place the named recording on the video's
	// clock (from the service's play offset and duration); set when Timed.
	SongStartMs int64 `json:"song_start_ms,omitempty"`
	SongEndMs   int64 `json:"song_end_ms,omitempty"`
	Timed       bool  `json:"timed,omitempty"`
	HasEnd      bool  `json:"has_end,omitempty"`
}

// maxHeardBytes bounds the answers kept on the job item while External
// runs: at the default budget they take a few KB; answers past the bound
// are used but not kept, so a retry would ask for those again. The item
// (store.MaxItemSize, DynamoDB's 400 KB) also holds the timeline and the
// job's other attributes, so the bound is lowered to what they leave,
// less heardMargin (heardLimit).
const (
	maxHeardBytes = 64 << 10
	// heardMargin is kept free on the item for the attributes a write
	// with the answers also sets (updated_at) and rounding.
	heardMargin = 4 << 10
)

// heardLimit is the size of the answers r's item can take.
func heardLimit(r *jobRecord) int {
	return max(0, min(maxHeardBytes, store.MaxItemSize-heardMargin-r.sizeButHeard))
}

// heardSamples are the answers External received so far, kept on the job
// (attrHeard) as they arrive: a task that fails partway (the service went
// down, the Lambda timed out) and is retried asks only for the windows
// still unanswered, since every request is billed.
type heardSamples struct {
	s     *Service
	job   jobRef
	list  []sample
	limit int // bytes of the stored list (heardLimit)
}

// lookup returns the stored answer for window w (none on a nil h).
func (h *heardSamples) lookup(w [2]int64) (sample, bool) {
	if h == nil {
		return sample{}, false
	}
	for _, x := range h.list {
		if x.FromMs == w[0] && x.ToMs == w[1] {
			return x, true
		}
	}
	return sample{}, false
}

// keep stores answer x with the others; errInactive when the job ended.
// Another store failure is logged and not returned: the answer is still
// used by this run, only a retry would ask for it again. A nil h keeps
// nothing.
func (h *heardSamples) keep(ctx context.Context, x sample) error {
	if h == nil {
		return nil
	}
	list := append(slices.Clip(h.list), x)
	body, err := json.Marshal(list)
	if err != nil || len(body) > h.limit {
		return nil
	}
	err = h.s.updateActive(ctx, h.job.id, h.job.gen, map[string]any{attrHeard: body})
	if errors.Is(err, errInactive) {
		return err
	}
	if err != nil {
		h.s.log.Warn("outside answer not kept", "job", h.job, "from_ms", x.FromMs, "err", err)
		return nil
	}
	h.list = list
	return nil
}

func (s sample) midMs() int64 { return (s.FromMs + s.ToMs) / 2 }

// identifyOutside samples the unexplained stretches of r's timeline and
// returns the parts the answers give them. Windows heard already answered
// are not sent again; new answers are added to heard (nil: none kept).
func (s *Service) identifyOutside(ctx context.Context, r *jobRecord, heard *heardSamples) ([]externalResult, error) {
	var targets []fingerprint.Stretch
	for _, st := range r.timeline {
		if st.TrackID == "" && st.EndMs-st.StartMs >= minSegmentMs {
			targets = append(targets, st)
		}
	}
	counts := planSamples(targets, s.outsideSamples)
	results := []externalResult{}
	var pcm audio.PCM
	failedInRow := 0
	for i, st := range targets {
		if counts[i] == 0 {
			continue // over the budget: reported unidentified
		}
		var samples []sample
		var lastErr error
		for _, w := range sampleWindows(st.StartMs, st.EndMs, counts[i]) {
			if smp, ok := heard.lookup(w); ok {
				failedInRow = 0                // a kept answer is a success, as when it came
				samples = append(samples, smp) // answered by an earlier run
				continue
			}
			if pcm.Rate == 0 {
				var err error
				if pcm, err = s.sourceAudio(ctx, r.Source); err != nil {
					return nil, err
				}
			}
			smp, err := s.identifySample(ctx, pcm, w)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err == nil {
				failedInRow = 0
				if err := heard.keep(ctx, smp); err != nil {
					return nil, err
				}
			} else {
				s.log.Warn("outside sample failed", "job", r.ID, "from_ms", w[0], "err", err)
				lastErr = err
				if failedInRow++; failedInRow >= maxFailedInRow && !errors.Is(err, outside.ErrRejected) {
					return nil, err
				}
			}
			samples = append(samples, smp)
		}
		if !slices.ContainsFunc(samples, func(x sample) bool { return !x.Failed }) && !errors.Is(lastErr, outside.ErrRejected) {
			// Nothing heard at all: let the workflow retry the task rather
			// than call music unidentified because the service was down.
			// (Rejected requests are a configuration problem of ours: the
			// music stays unidentified, the truth that no tier named it.)
			return nil, lastErr
		}
		results = append(results, resolveStretch(st.StartMs, st.EndMs, samples)...)
	}
	return results, nil
}

// planSamples shares budget samples among the stretches: one per
// sampleSpacingMs of each, at least one for each stretch while the budget
// lasts (longest first), the rest to whichever stretch is then sampled
// most sparsely.
func planSamples(stretches []fingerprint.Stretch, budget int) []int {
	n := len(stretches)
	counts := make([]int, n)
	want := make([]int, n)
	order := make([]int, n)
	for i, st := range stretches {
		want[i] = int(max(1, (st.EndMs-st.StartMs+sampleSpacingMs-1)/sampleSpacingMs))
		order[i] = i
	}
	length := func(i int) int64 { return stretches[i].EndMs - stretches[i].StartMs }
	slices.SortStableFunc(order, func(a, b int) int { return int(length(b) - length(a)) })
	for _, i := range order {
		if budget == 0 {
			return counts
		}
		counts[i], budget = 1, budget-1
	}
	for ; budget > 0; budget-- {
		best := -1
		for _, i := range order {
			// Largest spacing first: length/count, compared without division.
			if counts[i] < want[i] && (best < 0 || length(i)*int64(counts[best]) > length(best)*int64(counts[i])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		counts[best]++
	}
	return counts
}

// sampleWindows places n samples in [start, end): the stretch cut in n
// equal shares, each sampled for at most sampleMs in its middle.
func sampleWindows(start, end int64, n int) [][2]int64 {
	out := make([][2]int64, 0, n)
	for i := range int64(n) {
		a, b := start+(end-start)*i/int64(n), start+(end-start)*(i+1)/int64(n)
		length := min(b-a, sampleMs)
		from := a + (b-a-length)/2
		out = append(out, [2]int64{from, from + length})
	}
	return out
}

// identifySample sends one window of pcm, retrying transient errors. An
// error that survives the retries, or a rejected request, comes back with
// the sample marked Failed.
func (s *Service) identifySample(ctx context.Context, pcm audio.PCM, w [2]int64) (sample, error) {
	out := sample{FromMs: w[0], ToMs: w[1]}
	wav := decode.WAVBytes(pcm.Window(float64(w[0])/1000, float64(w[1]-w[0])/1000))
	var m *outside.Match
	var err error
	for attempt := range outsideAttempts {
		if attempt > 0 {
			select {
			case <-time.After(outsideBackoff << (attempt - 1)):
			case <-ctx.Done():
				return out, ctx.Err()
			}
		}
		if m, err = s.outside.Identify(ctx, wav); !errors.Is(err, outside.ErrTransient) {
			break
		}
	}
	switch {
	case errors.Is(err, outside.ErrRejected):
		// A configuration problem of ours: operators are told.
		s.log.Error("outside recognizer rejected a sample", "err", err)
		out.Failed = true
		return out, err
	case err != nil:
		out.Failed = true
		return out, err
	case m == nil:
		return out, nil
	}
	out.Hit = &outsideHit{Title: m.Title, Artist: m.Artist, Album: m.Album, Label: m.Label, ISRC: m.ISRC, Score: m.Score}
	if m.PlayOffsetMs > 0 {
		out.Timed, out.SongStartMs = true, w[1]-m.PlayOffsetMs
		if m.DurationMs > 0 {
			out.HasEnd, out.SongEndMs = true, out.SongStartMs+m.DurationMs
		}
	}
	return out, nil
}

// resolveStretch turns the samples of the stretch [start, end) into parts
// covering it, in order:
//
//   - a failed sample is no evidence; a lone miss (a sample the service
//     knew nothing about, with no missed neighbour) is dropped when
//     another sample of the stretch named a song: a quiet bar or a voice
//     over one sample does not split a song;
//   - consecutive samples naming the same song are one part, and the first
//     and last parts reach the stretch's edges;
//   - two songs meet where the later one started by its play offset (or
//     the earlier one ended), when that lies between their samples, else
//     halfway between them;
//   - music before a song's start or after its end by the service's
//     timing, at least minSegmentMs of it, is unidentified;
//   - no part is shorter than minSegmentMs: a shorter one joins the part
//     before it (the tail of a song), or after it at the stretch's start.
func resolveStretch(start, end int64, samples []sample) []externalResult {
	var heard []sample
	for _, x := range samples {
		if !x.Failed {
			heard = append(heard, x)
		}
	}
	named := slices.ContainsFunc(heard, func(x sample) bool { return x.Hit != nil })
	if !named {
		return []externalResult{{StartMs: start, EndMs: end}}
	}
	var kept []sample
	for i, x := range heard {
		missed := func(j int) bool { return j >= 0 && j < len(heard) && heard[j].Hit == nil }
		if x.Hit == nil && !missed(i-1) && !missed(i+1) {
			continue
		}
		kept = append(kept, x)
	}
	// Groups of consecutive samples with the same answer.
	type group struct{ first, last sample }
	var groups []group
	for _, x := range kept {
		if n := len(groups); n > 0 && groups[n-1].last.Hit.same(x.Hit) {
			groups[n-1].last = x
			continue
		}
		groups = append(groups, group{x, x})
	}
	var parts []externalResult
	add := func(a, b int64, hit *outsideHit) {
		if b <= a {
			return
		}
		if n := len(parts); n > 0 && parts[n-1].Hit.same(hit) {
			parts[n-1].EndMs = b
			parts[n-1].Hit = better(parts[n-1].Hit, hit)
			return
		}
		parts = append(parts, externalResult{StartMs: a, EndMs: b, Hit: hit})
	}
	from := start
	for i, g := range groups {
		to := end
		if i+1 < len(groups) {
			to = boundary(g.last, groups[i+1].first)
		}
		a, b := from, to
		if g.first.Hit != nil && g.first.Timed && g.first.SongStartMs-a >= minSegmentMs && g.first.SongStartMs < g.first.midMs() {
			a = g.first.SongStartMs
		}
		if g.last.Hit != nil && g.last.HasEnd && b-g.last.SongEndMs >= minSegmentMs && g.last.SongEndMs > g.last.midMs() {
			b = g.last.SongEndMs
		}
		add(from, a, nil)
		add(a, b, g.first.Hit)
		add(b, to, nil)
		from = to
	}
	return noSlivers(parts)
}

// boundary is where the song of sample x gives way to that of y (the next
// sample, another answer): y's start or x's end by the service's timing
// when it falls between the two samples' middles, else halfway between
// the samples.
func boundary(x, y sample) int64 {
	between := func(t int64) bool { return t >= x.midMs() && t <= y.midMs() }
	switch {
	case y.Hit != nil && y.Timed && between(y.SongStartMs):
		return y.SongStartMs
	case x.Hit != nil && x.HasEnd && between(x.SongEndMs):
		return x.SongEndMs
	}
	return (x.ToMs + y.FromMs) / 2
}

// noSlivers gives every part shorter than minSegmentMs to a neighbour:
// the part before it, or the one after it when it comes first.
func noSlivers(parts []externalResult) []externalResult {
	for {
		i := slices.IndexFunc(parts, func(p externalResult) bool { return p.EndMs-p.StartMs < minSegmentMs })
		if i < 0 || len(parts) < 2 {
			return parts
		}
		if i == 0 {
			parts[1].StartMs = parts[0].StartMs
		} else {
			parts[i-1].EndMs = parts[i].EndMs
		}
		parts = slices.Delete(parts, i, i+1)
		// Neighbours of the same song that now touch are one part.
		for j := 1; j < len(parts); j++ {
			if parts[j-1].Hit.same(parts[j].Hit) {
				parts[j-1].EndMs, parts[j-1].Hit = parts[j].EndMs, better(parts[j-1].Hit, parts[j].Hit)
				parts = slices.Delete(parts, j, j+1)
				j--
			}
		}
	}
}

// better is the answer of a and b with the higher score (a on ties), which
// a merged part reports.
func better(a, b *outsideHit) *outsideHit {
	if a == nil || b == nil || b.Score == nil || (a.Score != nil && *a.Score >= *b.Score) {
		return a
	}
	return b
}

// sourceAudio reads the prepared audio, preparing it again when storage
// lost it.
func (s *Service) sourceAudio(ctx context.Context, src SourceRef) (audio.PCM, error) {
	pcm, err := s.readAudio(ctx, src)
	if errors.Is(err, blob.ErrNotFound) {
		if _, err = s.prepare(ctx, src); err == nil {
			pcm, err = s.readAudio(ctx, src)
		}
	}
	return pcm, err
}
