package fingerprint

import (
	"math/bits"
	"slices"
	"sync"
)

// Candidate is a track a query may come from.
type Candidate struct {
	TrackID string
	// Score is the number of query hashes aligned at this offset (at most
	// frameCap per query frame).
	Score int
	// Ratio is Score over the best score of any other track (at least 1),
	// the query's own measure of how high unrelated music scores. When the
	// query marks strong hashes (StrongBit) it is the larger of that and
	// the same ratio over the strong hashes alone divided by strongRatioBar,
	// as long as those reach MinScore by themselves.
	Ratio float64
	// StrongScore is Score counting only the query's strong hashes.
	StrongScore int
	// TrackOffset is the track time (seconds) that the query's time 0
	// aligns with; negative when the query starts before the track.
	TrackOffset float64
	// QueryStart and QueryEnd bound (seconds) the aligned hashes in the query.
	QueryStart, QueryEnd float64
}

// MatchOptions tune Match; zero fields take defaults.
type MatchOptions struct {
	// MaxCandidates returned (default 5).
	MaxCandidates int
	// Tolerance in frames of offset slack (default 2), which absorbs peak
	// jitter and a little speed change.
	Tolerance int
	// MinScore is the least score to report (default 20).
	MinScore int
	// MinRatio is the least Ratio to report (default 1.9). Music that is
	// not in the index still aligns some hashes with every track – chords
	// and scales are shared – so the runner-up is the background a real
	// match must clear. 0 < MinRatio ≤ 1 reports runners-up too.
	MinRatio float64
}

// Defaults chosen on the wesnoth set (BenchmarkAccuracy): with 20 and 1.9,
// 3 of 600 out-of-index clips (0.5 %) pass, while 5-s clips at 0 dB SNR
// after AAC are found 97 % of the time. 1.8 let 5 of 600 through, 2.0 none
// but cost 1–2 points of recall.
const (
	DefaultMinScore = 20
	DefaultMinRatio = 1.9
)

func (o MatchOptions) withDefaults() MatchOptions {
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = 5
	}
	if o.Tolerance <= 0 {
		o.Tolerance = 2
	}
	if o.MinScore <= 0 {
		o.MinScore = DefaultMinScore
	}
	if o.MinRatio <= 0 {
		o.MinRatio = DefaultMinRatio
	}
	return o
}

// matcher holds the vote buffers of one query.
type matcher struct {
	votes, tmp []uint64
	qs         []uint32
	// bins counts votes per bin of offsets (saturating), the first pass
	// of vote.
	bins []uint8
	// offs and ends are the first pass's notes: the offsets (plus qFrames)
	// of query hash i's votes end at ends[i].
	offs, ends []uint32
}

var matchers = sync.Pool{New: func() any { return new(matcher) }}

// window is a run of votes whose offsets lie within the tolerance.
type window struct {
	lo, hi int // votes[lo:hi]
	raw    int
	offset int64 // unbiased offset (global − query frames) at the window's centre
}

// Match returns the tracks the query hashes (QueryOptions) most likely come
// from, best first. It is safe for concurrent use.
func (ix *Index) Match(query []Hash, opts MatchOptions) []Candidate {
	return reported(ix, opts, func(o MatchOptions) []Candidate { return ix.matchAll(query, o) })
}

// matchAll is Match with background tracks' candidates kept: the matching
// inside the package must see them to weigh the catalog's against them.
func (ix *Index) matchAll(query []Hash, opts MatchOptions) []Candidate {
	return ix.match(query, opts, Track{Frames: ix.end})
}

// match is Match over the postings in the global frames of within (a
// track, or the whole index).
func (ix *Index) match(query []Hash, opts MatchOptions, within Track) []Candidate {
	o := opts.withDefaults()
	m := matchers.Get().(*matcher)
	defer matchers.Put(m)
	qFrames := int64(0)
	for _, h := range query {
		qFrames = max(qFrames, int64(h.Time)+1)
	}
	// A runner-up below MinScore/MinRatio cannot veto a candidate that
	// reaches MinScore, nor can a window below MinScore be reported, so
	// weaker windows need not be looked at.
	minRaw := max(1, int(float64(o.MinScore)/max(1, o.MinRatio)))
	m.vote(ix, query, qFrames, minRaw, within.Start, within.Start+within.Frames)
	radixSort(m.votes, m.growTmp(), 32, 32+uint(bits.Len64(uint64(int64(ix.end)+qFrames))))
	wins := m.windows(o.Tolerance, minRaw, qFrames)
	return ix.rank(m, query, wins, o, qFrames)
}

func (m *matcher) growTmp() []uint64 {
	if cap(m.tmp) < len(m.votes) {
		m.tmp = make([]uint64, len(m.votes))
	}
	return m.tmp[:len(m.votes)]
}

// Votes are counted per bin of offsets before they are kept: a window
// (2·Tolerance+1 frames, less than a bin) lies in one bin or two adjacent
// ones, so a vote in a bin that with neither neighbour holds minRaw votes
// belongs to no window worth looking at, and dropping it changes nothing
// Match returns. Against 100 hours a 10-s query casts about a million
// votes; the bins keep about 15 % of them, which the sort and the window
// scan then handle in a fraction of the time (a single sort of all votes
// took two thirds of a query). Music repeats itself at short lags, so
// wide bins gather dozens of chance votes and keep most: 8 frames kept
// 15 %, 16 frames 37 %, 64 frames 91 %, and 8 was the fastest. The counts
// take one byte per bin, 4.4 MiB per matcher for 100 hours; larger indexes
// widen the bins to stay within maxBins.
const (
	binShift = 3
	maxBins  = 1 << 23
)

// vote collects, for every posting in [lo, hi) of every query hash, its
// offset plus qFrames (so that it is not negative) and the query hash's
// index, keeping only the votes in bins that could hold a window of minRaw
// votes. The first pass reads the postings once, counting and noting each
// offset; the second filters the notes in order.
func (m *matcher) vote(ix *Index, query []Hash, qFrames int64, minRaw int, lo, hi uint32) {
	whole := lo == 0 && hi >= ix.end
	span := int64(ix.end) + qFrames
	shift := uint(binShift)
	for span>>shift >= maxBins {
		shift++
	}
	n := int(span>>shift) + 2
	if cap(m.bins) < n {
		m.bins = make([]uint8, n)
	}
	bins := m.bins[:n]
	offs, ends := m.offs[:0], m.ends[:0]
	for _, h := range query {
		base := uint32(qFrames - int64(h.Time))
		ps := ix.postings(h.Key)
		if !whole {
			a, _ := slices.BinarySearch(ps, lo)
			b, _ := slices.BinarySearch(ps[a:], hi)
			ps = ps[a : a+b]
		}
		for _, g := range ps {
			o := g + base
			offs = append(offs, o)
			if c := bins[o>>shift]; c != 255 {
				bins[o>>shift] = c + 1
			}
		}
		ends = append(ends, uint32(len(offs)))
	}
	need := uint(min(minRaw, 255))
	m.votes = m.votes[:0]
	from := uint32(0)
	for i, to := range ends {
		for _, o := range offs[from:to] {
			b := o >> shift
			c := uint(bins[b])
			if b > 0 && c+uint(bins[b-1]) >= need || c+uint(bins[b+1]) >= need {
				m.votes = append(m.votes, uint64(o)<<32|uint64(i))
			}
		}
		from = to
	}
	if len(offs) < n/8 {
		for _, o := range offs {
			bins[o>>shift] = 0
		}
	} else {
		clear(bins)
	}
	m.offs, m.ends = offs, ends
}

// windows finds, for every distinct offset, the votes within ±tol of it and
// keeps the windows holding at least minRaw votes that are local maxima.
// The votes' offsets are biased by bias.
func (m *matcher) windows(tol, minRaw int, bias int64) []window {
	v := m.votes
	var out []window
	lo, hi := 0, 0
	for i := 0; i < len(v); {
		off := v[i] >> 32
		j := i
		for j < len(v) && v[j]>>32 == off {
			j++
		}
		for lo < len(v) && v[lo]>>32+uint64(tol) < off {
			lo++
		}
		for hi < len(v) && v[hi]>>32 <= off+uint64(tol) {
			hi++
		}
		if hi-lo >= minRaw {
			w := window{lo: lo, hi: hi, raw: hi - lo, offset: int64(off) - bias}
			// Overlapping windows of one cluster: keep the fullest.
			if n := len(out); n > 0 && out[n-1].hi > lo {
				if w.raw > out[n-1].raw {
					out[n-1] = w
				}
			} else {
				out = append(out, w)
			}
		}
		i = j
	}
	return out
}

// alignedScore scores votes[lo:hi]: the distinct query hashes aligned,
// where each query anchor frame contributes at most frameCap of them and
// each track posting at most once. The cap matters: a held chord pairs its
// harmonics at every time difference, which would pile dozens of votes onto
// one frame of any track holding the same chord; capped, only matching
// onsets spread over time add up. It also returns the query span covered.
func (m *matcher) alignedScore(query []Hash, lo, hi int) (n, strong int, first, last uint32) {
	m.qs = m.qs[:0]
	for _, v := range m.votes[lo:hi] {
		m.qs = append(m.qs, uint32(v))
	}
	slices.Sort(m.qs) // query hash indexes: time order, duplicates adjacent
	first, last = query[m.qs[0]].Time, query[m.qs[len(m.qs)-1]].Time
	perFrame, strongPerFrame := 0, 0
	for i, qi := range m.qs {
		if i > 0 && qi == m.qs[i-1] {
			continue
		}
		if i > 0 && query[qi].Time != query[m.qs[i-1]].Time {
			perFrame, strongPerFrame = 0, 0
		}
		if perFrame < frameCap {
			n++
			perFrame++
		}
		if query[qi].Key&StrongBit != 0 && strongPerFrame < frameCap {
			strong++
			strongPerFrame++
		}
	}
	return n, strong, first, last
}

// strongRatioBar is how much more the strong hashes' ratio must clear than
// MinRatio: they are fewer, so their ratio is noisier. Chosen on the tuning
// half of BenchmarkAccuracy's clips: the 5-s clips at −5 dB the strong
// hashes recover have strong ratios 2.14 and 2.55, a wrong track's 1.95;
// without the bar (1) the held-out half let two more out-of-index clips
// through (strong ratios 1.92, 1.94).
const strongRatioBar = 1.08

// frameCap bounds how many aligned hashes one query anchor frame adds.
const frameCap = 4

func (ix *Index) rank(m *matcher, query []Hash, wins []window, o MatchOptions, qFrames int64) []Candidate {
	slices.SortFunc(wins, func(a, b window) int { return b.raw - a.raw })
	best := map[string]int{}
	var all []Candidate
	cut := 0                      // the raw count of the first window skipped
	strongest := map[string]int{} // each track's best strong score
	for _, w := range wins {
		// Raw counts bound scores from above: once the raw count cannot
		// reach the MaxCandidates+1 best tracks so far (the last of which is
		// only needed as the best's runner-up), no later window changes the
		// answer, and with thousands of tracks seen (relaxed thresholds
		// against a large index) looking at the rest would cost seconds.
		if len(all) > o.MaxCandidates && w.raw < all[o.MaxCandidates].Score {
			cut = w.raw
			break
		}
		t, ok := ix.track(w.offset + qFrames/2)
		if !ok {
			continue
		}
		score, strong, first, last := m.alignedScore(query, w.lo, w.hi)
		c := Candidate{
			TrackID:     t.ID,
			Score:       score,
			StrongScore: strong,
			TrackOffset: float64(w.offset-int64(t.Start)) * FrameSeconds,
			QueryStart:  float64(first) * FrameSeconds,
			QueryEnd:    float64(last) * FrameSeconds,
		}
		strongest[t.ID] = max(strongest[t.ID], strong)
		if i, ok := best[t.ID]; ok {
			if all[i].Score < c.Score {
				all[i] = c
			}
		} else {
			best[t.ID] = len(all)
			all = append(all, c)
		}
		slices.SortStableFunc(all, func(a, b Candidate) int { return b.Score - a.Score })
		for i, c := range all {
			best[c.TrackID] = i
		}
	}
	// The strong runner-up: the best strong score of another track. A
	// window the raw bound skipped holds fewer strong hashes than its raw
	// count, which is below cut.
	strong1, strong2 := 0, 0
	for _, s := range strongest {
		if s > strong1 {
			strong1, strong2 = s, strong1
		} else if s > strong2 {
			strong2 = s
		}
	}
	var out []Candidate
	for i, c := range all {
		other := 0
		if i == 0 && len(all) > 1 {
			other = all[1].Score
		} else if i > 0 {
			other = all[0].Score
		}
		c.Ratio = float64(c.Score) / float64(max(other, 1))
		if c.StrongScore >= o.MinScore {
			otherStrong := strong1
			if strongest[c.TrackID] == strong1 {
				otherStrong = strong2
			}
			otherStrong = max(otherStrong, cut)
			c.Ratio = max(c.Ratio, float64(c.StrongScore)/float64(max(otherStrong, 1))/strongRatioBar)
		}
		if c.Score >= o.MinScore && c.Ratio >= o.MinRatio && len(out) < o.MaxCandidates {
			out = append(out, c)
		}
	}
	return out
}
