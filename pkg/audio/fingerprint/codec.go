package fingerprint

import (
	"bufio"
	"bytes"
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

// magicRaw starts the current encoding, whose postings are fixed-width:
// a function's cold start reads them at memory speed instead of decoding
// a varint per posting (BenchmarkColdStartMatch100h in pkg/catalog/fpindex).
// The older, varint-delta encoding (magic) is still read.
var magicRaw = []byte("MCFPIX2")

// MarshalBinary encodes the index: magicRaw, the format version, the
// length of the header, the header (the tracks, then for each used key
// its number of postings, as varints), every posting as a little-endian
// uint32 in key order, and a CRC-32 of everything before it.
func (ix *Index) MarshalBinary() ([]byte, error) {
	if ix.HasBackground() {
		return nil, errors.New("fingerprint: an index with a background is not stored")
	}
	head := binary.AppendUvarint(nil, uint64(ix.end))
	head = binary.AppendUvarint(head, uint64(len(ix.tracks)))
	for _, t := range ix.tracks {
		head = binary.AppendUvarint(head, uint64(len(t.ID)))
		head = append(head, t.ID...)
		head = binary.AppendUvarint(head, uint64(t.Start))
		head = binary.AppendUvarint(head, uint64(t.Frames))
	}
	used := 0
	for k := range uint32(1 << HashBits) {
		if ix.starts[k+1] > ix.starts[k] {
			used++
		}
	}
	head = binary.AppendUvarint(head, uint64(used))
	head = binary.AppendUvarint(head, uint64(len(ix.posts)))
	prevKey := uint32(0)
	for k := range uint32(1 << HashBits) {
		if n := ix.starts[k+1] - ix.starts[k]; n > 0 {
			head = binary.AppendUvarint(head, uint64(k-prevKey))
			head = binary.AppendUvarint(head, uint64(n))
			prevKey = k
		}
	}
	out := make([]byte, 0, len(magicRaw)+5+len(head)+4*len(ix.posts)+4)
	out = append(out, magicRaw...)
	out = append(out, FormatVersion)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(head)))
	out = append(out, head...)
	for _, g := range ix.posts {
		out = binary.LittleEndian.AppendUint32(out, g)
	}
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out)), nil
}

// UnmarshalBinary replaces ix with the decoded index (either encoding).
func (ix *Index) UnmarshalBinary(data []byte) error {
	if bytes.HasPrefix(data, magicRaw) {
		out, err := readRaw(bytes.NewReader(data))
		if err != nil {
			return err
		}
		*ix = *out
		return nil
	}
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

// ReadIndex reads an index written by WriteTo or MarshalBinary. The
// current encoding is decoded as it streams in, without a copy of the
// whole blob in memory.
func ReadIndex(r io.Reader) (*Index, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if head, err := br.Peek(len(magicRaw)); err == nil && bytes.Equal(head, magicRaw) {
		return readRaw(br)
	}
	b, err := io.ReadAll(br)
	if err != nil {
		return nil, err
	}
	ix := new(Index)
	if err := ix.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return ix, nil
}

// readRaw decodes the current encoding (see MarshalBinary).
func readRaw(r io.Reader) (*Index, error) {
	crc := crc32.NewIEEE()
	read := func(b []byte) error {
		if _, err := io.ReadFull(r, b); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("%w: truncated", ErrFormat)
			}
			return err
		}
		crc.Write(b)
		return nil
	}
	pre := make([]byte, len(magicRaw)+5)
	if err := read(pre); err != nil {
		return nil, err
	}
	if !bytes.Equal(pre[:len(magicRaw)], magicRaw) || pre[len(magicRaw)] != FormatVersion {
		return nil, ErrFormat
	}
	headLen := binary.LittleEndian.Uint32(pre[len(magicRaw)+1:])
	if headLen > 1<<30 {
		return nil, fmt.Errorf("%w: bad header length", ErrFormat)
	}
	head := make([]byte, headLen)
	if err := read(head); err != nil {
		return nil, err
	}
	hr := reader{b: head}
	out := &Index{starts: make([]uint32, 1<<HashBits+1)}
	out.end = uint32(hr.uvarint())
	nt := hr.uvarint()
	if nt > uint64(len(hr.b)) {
		return nil, fmt.Errorf("%w: bad track count", ErrFormat)
	}
	out.tracks = make([]Track, 0, nt)
	for range nt {
		n := hr.uvarint()
		id := hr.bytes(n)
		out.tracks = append(out.tracks, Track{ID: string(id), Start: uint32(hr.uvarint()), Frames: uint32(hr.uvarint())})
	}
	used, total := hr.uvarint(), hr.uvarint()
	if total >= maxGlobalFrames {
		return nil, fmt.Errorf("%w: bad posting count", ErrFormat)
	}
	key, sum := uint64(0), uint64(0)
	for i := range used {
		d := hr.uvarint()
		key += d
		n := hr.uvarint()
		if (d == 0 && i > 0) || n == 0 || key >= 1<<HashBits || n > total-sum || hr.err != nil {
			return nil, fmt.Errorf("%w: corrupt postings", ErrFormat)
		}
		out.starts[key+1] = uint32(n)
		sum += n
	}
	if hr.err != nil || len(hr.b) != 0 || sum != total {
		return nil, fmt.Errorf("%w: corrupt header", ErrFormat)
	}
	for k := 1; k < len(out.starts); k++ {
		out.starts[k] += out.starts[k-1]
	}
	// The postings arrive in chunks; a damaged count reserves at most
	// 256 MB before the data runs out.
	out.posts = make([]uint32, 0, min(total, 1<<26))
	buf := make([]byte, 1<<20)
	for left := total * 4; left > 0; {
		chunk := buf[:min(left, uint64(len(buf)))]
		if err := read(chunk); err != nil {
			return nil, err
		}
		for i := 0; i < len(chunk); i += 4 {
			out.posts = append(out.posts, binary.LittleEndian.Uint32(chunk[i:]))
		}
		left -= uint64(len(chunk))
	}
	want := crc.Sum32()
	var tail [5]byte
	if n, _ := io.ReadFull(r, tail[:]); n != 4 || binary.LittleEndian.Uint32(tail[:4]) != want {
		return nil, fmt.Errorf("%w: checksum mismatch or trailing data", ErrFormat)
	}
	return out, nil
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
