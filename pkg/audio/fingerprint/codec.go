package fingerprint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// FormatVersion changes whenever the analysis constants or the encoding
// change; older blobs are rejected rather than matched wrongly.
const FormatVersion = 1

var magic = []byte("MCFPIDX")

// ErrFormat is returned for bytes that are not an index of this version.
var ErrFormat = errors.New("fingerprint: not an index of this format version")

// MarshalBinary encodes the index: the tracks, then for each used key its
// postings as varint deltas, then a CRC-32 of everything before it.
func (ix *Index) MarshalBinary() ([]byte, error) {
	out := make([]byte, 0, len(ix.posts)*3+1024)
	out = append(out, magic...)
	out = append(out, FormatVersion)
	out = binary.AppendUvarint(out, uint64(ix.end))
	out = binary.AppendUvarint(out, uint64(len(ix.tracks)))
	for _, t := range ix.tracks {
		out = binary.AppendUvarint(out, uint64(len(t.ID)))
		out = append(out, t.ID...)
		out = binary.AppendUvarint(out, uint64(t.Start))
		out = binary.AppendUvarint(out, uint64(t.Frames))
	}
	used := 0
	for k := range uint32(1 << HashBits) {
		if ix.starts[k+1] > ix.starts[k] {
			used++
		}
	}
	out = binary.AppendUvarint(out, uint64(used))
	out = binary.AppendUvarint(out, uint64(len(ix.posts)))
	prevKey := uint32(0)
	for k := range uint32(1 << HashBits) {
		ps := ix.postings(k)
		if len(ps) == 0 {
			continue
		}
		out = binary.AppendUvarint(out, uint64(k-prevKey))
		prevKey = k
		out = binary.AppendUvarint(out, uint64(len(ps)))
		prev := uint32(0)
		for _, g := range ps {
			out = binary.AppendUvarint(out, uint64(g-prev))
			prev = g
		}
	}
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out)), nil
}

// UnmarshalBinary replaces ix with the decoded index.
func (ix *Index) UnmarshalBinary(data []byte) error {
	if len(data) < len(magic)+5 || string(data[:len(magic)]) != string(magic) || data[len(magic)] != FormatVersion {
		return ErrFormat
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	r := reader{b: body[len(magic)+1:]}
	out := Index{starts: make([]uint32, 1<<HashBits+1)}
	out.end = uint32(r.uvarint())
	nt := r.uvarint()
	if nt > uint64(len(r.b)) {
		return fmt.Errorf("%w: bad track count", ErrFormat)
	}
	out.tracks = make([]Track, 0, nt)
	for range nt {
		n := r.uvarint()
		id := r.bytes(n)
		out.tracks = append(out.tracks, Track{ID: string(id), Start: uint32(r.uvarint()), Frames: uint32(r.uvarint())})
	}
	used := r.uvarint()
	total := r.uvarint()
	// Every posting takes at least one byte, which bounds the allocation.
	if total > uint64(len(r.b)) {
		return fmt.Errorf("%w: bad posting count", ErrFormat)
	}
	out.posts = make([]uint32, 0, total)
	key := uint64(0)
	for range used {
		key += r.uvarint()
		n := r.uvarint()
		if key >= 1<<HashBits || n > total-uint64(len(out.posts)) || r.err != nil {
			return fmt.Errorf("%w: corrupt postings", ErrFormat)
		}
		g := uint64(0)
		for range n {
			g += r.uvarint()
			out.posts = append(out.posts, uint32(g))
		}
		out.starts[key+1] = uint32(n)
	}
	if r.err != nil || len(r.b) != 0 || uint64(len(out.posts)) != total {
		return fmt.Errorf("%w: trailing or truncated data", ErrFormat)
	}
	for k := 1; k < len(out.starts); k++ {
		out.starts[k] += out.starts[k-1]
	}
	out.posts = out.posts[:len(out.posts):len(out.posts)]
	*ix = out
	return nil
}

// WriteTo writes the encoded index to w.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	b, err := ix.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// ReadIndex reads an index written by WriteTo or MarshalBinary.
func ReadIndex(r io.Reader) (*Index, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	ix := new(Index)
	if err := ix.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return ix, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrFormat
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.err = ErrFormat
		r.b = nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
