package fingerprint

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

// trackGap separates tracks on the index's global timeline so that votes
// near the end of one track never add up with the start of the next.
const trackGap = 2048

// maxGlobalFrames keeps global times and biased offsets inside 31 bits.
const maxGlobalFrames = 1 << 31

// Track is one indexed recording, placed on the index's global timeline.
type Track struct {
	ID     string
	Start  uint32 // global frame of the track's frame 0
	Frames uint32 // length in frames
}

// Index maps hash keys to the global frames where they occur. It is
// immutable and safe for concurrent use.
type Index struct {
	tracks []Track
	// CSR layout: the postings of key k are posts[starts[k]:starts[k+1]],
	// ascending. One uint32 per posting keeps 100 hours in ~250 MB.
	starts []uint32
	posts  []uint32
	end    uint32 // first free global frame
	// background holds the IDs of the tracks that only compete (see
	// WithBackground); nil for a catalog's own index.
	background map[string]bool
}

// Tracks lists the indexed tracks in timeline order, background tracks
// (WithBackground) left out.
func (ix *Index) Tracks() []Track {
	return slices.DeleteFunc(slices.Clone(ix.tracks), func(t Track) bool { return ix.isBackground(t.ID) })
}

// Len is the number of postings (hashes) stored.
func (ix *Index) Len() int { return len(ix.posts) }

// Seconds is the indexed audio duration, background tracks
// (WithBackground) left out.
func (ix *Index) Seconds() float64 {
	var n uint64
	for _, t := range ix.tracks {
		if !ix.isBackground(t.ID) {
			n += uint64(t.Frames)
		}
	}
	return float64(n) * FrameSeconds
}

func (ix *Index) postings(key uint32) []uint32 {
	key &= keyMask
	return ix.posts[ix.starts[key]:ix.starts[key+1]]
}

// track finds the track containing global frame g.
func (ix *Index) track(g int64) (Track, bool) {
	i := sort.Search(len(ix.tracks), func(i int) bool { return int64(ix.tracks[i].Start) > g }) - 1
	if i < 0 {
		return Track{}, false
	}
	t := ix.tracks[i]
	if g >= int64(t.Start)+int64(t.Frames)+trackGap/2 {
		return Track{}, false
	}
	return t, true
}

// Builder accumulates tracks for an Index.
type Builder struct {
	tracks []Track
	ids    map[string]bool
	pairs  []uint64 // key<<32 | global frame
	end    uint32
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{ids: map[string]bool{}, end: trackGap} }

// ErrDuplicateTrack is returned when a track ID is added twice.
var ErrDuplicateTrack = errors.New("fingerprint: duplicate track id")

// Add places a track's hashes (computed with IndexOptions) after the
// tracks added so far. seconds is the track's duration.
func (b *Builder) Add(id string, seconds float64, hashes []Hash) error {
	if b.ids[id] {
		return fmt.Errorf("%w: %q", ErrDuplicateTrack, id)
	}
	frames := uint32(seconds/FrameSeconds) + 1
	for _, h := range hashes {
		frames = max(frames, h.Time+1)
	}
	if uint64(b.end)+uint64(frames)+trackGap >= maxGlobalFrames {
		return errors.New("fingerprint: index full")
	}
	b.ids[id] = true
	b.tracks = append(b.tracks, Track{ID: id, Start: b.end, Frames: frames})
	for _, h := range hashes {
		b.pairs = append(b.pairs, uint64(h.Key&keyMask)<<32|uint64(b.end+h.Time))
	}
	b.end += frames + trackGap
	return nil
}

// Build returns the index of everything added. The Builder may be reused
// afterwards, and further Adds do not affect the returned Index.
func (b *Builder) Build() *Index {
	pairs := slices.Clone(b.pairs)
	radixSort(pairs, make([]uint64, len(pairs)), 0, 32+HashBits)
	ix := &Index{tracks: slices.Clone(b.tracks), starts: make([]uint32, 1<<HashBits+1), posts: make([]uint32, len(pairs)), end: b.end}
	for i, p := range pairs {
		ix.starts[p>>32+1]++
		ix.posts[i] = uint32(p)
	}
	for k := 1; k < len(ix.starts); k++ {
		ix.starts[k] += ix.starts[k-1]
	}
	return ix
}

// Merge combines segments into one index, the later segments' tracks after
// the earlier ones'. A track ID present in two segments is an error.
func Merge(segments ...*Index) (*Index, error) {
	out := &Index{starts: make([]uint32, 1<<HashBits+1), end: trackGap}
	seen := map[string]bool{}
	shifts := make([]uint32, len(segments))
	total := 0
	for i, s := range segments {
		if s.HasBackground() {
			return nil, errors.New("fingerprint: cannot merge an index with a background")
		}
		shifts[i] = out.end - trackGap
		for _, t := range s.tracks {
			if seen[t.ID] {
				return nil, fmt.Errorf("%w: %q", ErrDuplicateTrack, t.ID)
			}
			seen[t.ID] = true
			t.Start += shifts[i]
			out.tracks = append(out.tracks, t)
		}
		if uint64(out.end)+uint64(s.end) >= maxGlobalFrames {
			return nil, errors.New("fingerprint: merged index too large")
		}
		out.end += s.end - trackGap
		total += len(s.posts)
	}
	out.posts = make([]uint32, 0, total)
	for k := range uint32(1 << HashBits) {
		for i, s := range segments {
			for _, g := range s.postings(k) {
				out.posts = append(out.posts, g+shifts[i])
			}
		}
		out.starts[k+1] = uint32(len(out.posts))
	}
	return out, nil
}

// radixSort sorts a by bits [lo, hi) of its values (LSD, 11 bits a pass),
// using tmp (same length) as scratch.
func radixSort(a, tmp []uint64, lo, hi uint) {
	const digit = 11
	var count [1 << digit]int
	src, dst := a, tmp
	for shift := lo; shift < hi; shift += digit {
		clear(count[:])
		for _, v := range src {
			count[(v>>shift)&(1<<digit-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range src {
			d := (v >> shift) & (1<<digit - 1)
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if len(a) > 0 && &src[0] != &a[0] {
		copy(a, src)
	}
}
