package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// trackHashes are the index hashes of one recording, kept per audio file
// so that segments can be rebuilt without decoding again.
type trackHashes struct {
	Seconds float64
	Hashes  []fingerprint.Hash
}

const hashesMagic = "MCFPH"

// marshal encodes as magic, format, seconds, count, then per hash the
// zig-zag time delta and the key, as varints (~4 bytes a hash).
func (h trackHashes) marshal() []byte {
	out := append([]byte(hashesMagic), fingerprint.FormatVersion)
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(h.Seconds))
	out = binary.AppendUvarint(out, uint64(len(h.Hashes)))
	prev := int64(0)
	for _, x := range h.Hashes {
		out = binary.AppendVarint(out, int64(x.Time)-prev)
		out = binary.AppendUvarint(out, uint64(x.Key))
		prev = int64(x.Time)
	}
	return out
}

var errHashesFormat = errors.New("ingest: damaged fingerprint hashes")

func unmarshalHashes(b []byte) (trackHashes, error) {
	n := len(hashesMagic)
	if len(b) < n+9 || string(b[:n]) != hashesMagic || b[n] != fingerprint.FormatVersion {
		return trackHashes{}, errHashesFormat
	}
	h := trackHashes{Seconds: math.Float64frombits(binary.LittleEndian.Uint64(b[n+1:]))}
	b = b[n+9:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > uint64(len(b)) {
		return trackHashes{}, errHashesFormat
	}
	b = b[k:]
	h.Hashes = make([]fingerprint.Hash, count)
	t := int64(0)
	for i := range h.Hashes {
		dt, k1 := binary.Varint(b)
		if k1 <= 0 {
			return trackHashes{}, errHashesFormat
		}
		key, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 || key >= 1<<fingerprint.HashBits {
			return trackHashes{}, errHashesFormat
		}
		b = b[k1+k2:]
		t += dt
		if t < 0 || t > math.MaxUint32 {
			return trackHashes{}, errHashesFormat
		}
		h.Hashes[i] = fingerprint.Hash{Key: uint32(key), Time: uint32(t)}
	}
	if len(b) != 0 {
		return trackHashes{}, errHashesFormat
	}
	return h, nil
}

// planSegments keeps the previous segments whose tracks are all still in
// the catalog with the audio they were indexed with, stems included (a
// segment lists a track's stems after it: a stem added, removed or changed
// re-indexes the track, as does a segment from before stems were indexed),
// and returns the tracks no kept segment covers, in catalog order.
func planSegments(prev *catalog.Catalog, tracks []*catalog.Track) (kept []catalog.Segment, todo []*catalog.Track) {
	now := make(map[string]*catalog.Track, len(tracks))
	for _, t := range tracks {
		now[t.ID] = t
	}
	covered := map[string]bool{}
	if prev != nil {
		for _, s := range prev.Segments() {
			if !segmentCurrent(prev, now, s) {
				continue
			}
			kept = append(kept, s)
			for _, id := range s.TrackIDs {
				covered[id] = true
			}
		}
	}
	for _, t := range tracks {
		if !covered[t.ID] {
			todo = append(todo, t)
		}
	}
	return kept, todo
}

// segmentCurrent reports whether segment s of prev indexes exactly what the
// tracks now hold: every track it lists is still there with the same audio,
// and with the same stems (same ids, same audio) listed.
func segmentCurrent(prev *catalog.Catalog, now map[string]*catalog.Track, s catalog.Segment) bool {
	listed := map[string]bool{}
	for _, id := range s.TrackIDs {
		listed[id] = true
	}
	for _, id := range s.TrackIDs {
		if _, _, isStem := prev.Stem(id); isStem {
			continue // checked with its track
		}
		old, _ := prev.Track(id)
		t, ok := now[id]
		if !ok || old == nil || t.Audio.SHA256 != old.Audio.SHA256 || len(t.Stems) != len(old.Stems) {
			return false
		}
		for i, st := range t.Stems {
			if !listed[st.ID] || st.ID != old.Stems[i].ID || st.Audio.SHA256 != old.Stems[i].Audio.SHA256 {
				return false
			}
		}
	}
	return true
}

// buildSegment indexes tracks into one new segment and stores it. hashesOf
// gives each track's hashes.
func buildSegment(ctx context.Context, bs blob.Store, tracks []*catalog.Track, hashesOf func(*catalog.Track) (trackHashes, error)) (catalog.Segment, error) {
	b := fingerprint.NewBuilder()
	seg := catalog.Segment{}
	for _, t := range tracks {
		h, err := hashesOf(t)
		if err != nil {
			return catalog.Segment{}, err
		}
		if err := b.Add(t.ID, h.Seconds, h.Hashes); err != nil {
			return catalog.Segment{}, err
		}
		seg.TrackIDs = append(seg.TrackIDs, t.ID)
		for _, st := range t.Stems {
			seg.TrackIDs = append(seg.TrackIDs, st.ID)
		}
	}
	key, err := putIndex(ctx, bs, b.Build())
	seg.Key = key
	return seg, err
}

// putIndex stores an index under the digest of its bytes.
func putIndex(ctx context.Context, bs blob.Store, ix *fingerprint.Index) (string, error) {
	data, err := ix.MarshalBinary()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	key := segmentKey(hex.EncodeToString(sum[:12]))
	if err := bs.Put(ctx, key, bytes.NewReader(data), int64(len(data)), "application/octet-stream"); err != nil {
		return "", fmt.Errorf("ingest: store fingerprint segment: %w", err)
	}
	return key, nil
}

// CompactReport says what Compact did.
type CompactReport struct {
	Segments  int    // segments before
	Version   string // version published, "" when nothing changed
	Segment   string // the merged segment
	Postings  int
	Published bool
}

// Compact merges the current catalog's fingerprint segments into one and
// publishes the catalog with it, so that matching reads one index.
func Compact(ctx context.Context, bs blob.Store, arts ...catalog.Artifact) (CompactReport, error) {
	cur, err := catalog.Load(ctx, bs)
	if err != nil {
		return CompactReport{}, err
	}
	segs := cur.Segments()
	rep := CompactReport{Segments: len(segs)}
	if len(segs) < 2 {
		return rep, nil
	}
	ixs := make([]*fingerprint.Index, len(segs))
	for i, s := range segs {
		if ixs[i], err = readIndex(ctx, bs, s.Key); err != nil {
			return rep, err
		}
	}
	merged, err := fingerprint.Merge(ixs...)
	if err != nil {
		return rep, err
	}
	key, err := putIndex(ctx, bs, merged)
	if err != nil {
		return rep, err
	}
	seg := catalog.Segment{Key: key}
	for _, s := range segs { // the tracks and the stems indexed under them
		seg.TrackIDs = append(seg.TrackIDs, s.TrackIDs...)
	}
	contents := cur.Contents()
	contents.Segments = []catalog.Segment{seg}
	next, err := catalog.New(contents)
	if err != nil {
		return rep, err
	}
	if rep.Published, err = catalog.Publish(ctx, bs, next, arts...); err != nil {
		return rep, err
	}
	rep.Version, rep.Segment, rep.Postings = next.Version(), key, merged.Len()
	return rep, nil
}

func readIndex(ctx context.Context, bs blob.Store, key string) (*fingerprint.Index, error) {
	rc, _, err := bs.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("ingest: read segment %s: %w", key, err)
	}
	defer rc.Close()
	ix, err := fingerprint.ReadIndex(io.LimitReader(rc, 4<<30))
	if err != nil {
		return nil, fmt.Errorf("ingest: segment %s: %w", key, err)
	}
	return ix, nil
}
