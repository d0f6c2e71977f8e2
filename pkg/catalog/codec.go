package catalog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// The snapshot encoding. A catalog repeats the same strings thousands of
// times (genres, moods, artists, labels, translations of them, PROs), so the
// body is a string table followed by records that refer to strings by
// index; decoding makes every string a substring of one allocation. The body
// is zstd-compressed (format 2), whose frame checksum catches a damaged
// snapshot; format 1 snapshots, gzip-compressed with the same body, are
// still read. zstd inflates about three times as fast as gzip, and the
// inflating was half of a cold function's snapshot load (issue 15:
// api-search's first answer at 100k tracks).
//
//	file: magic "MCSNAP", format byte, uvarint len + version, zstd(body)
//	body: uvarint n, uvarint string bytes, uvarint record bytes,
//	      n uvarint lengths, the n strings' bytes, the records
//
// Strings are referenced as uvarint index+1 (0 is ""); floats are IEEE
// little endian. Records are written in catalog order, maps in key order,
// so equal contents give equal bytes and thus equal versions. The sizes up
// front let the decoder read each part into one buffer of the right size.
const (
	snapshotMagic = "MCSNAP"
	// snapshotFormat changes with the record layout or the compression; a
	// snapshot of a format not listed here is rejected (re-ingest to
	// publish one in the new format).
	snapshotFormat = 2
	// snapshotFormatGzip is format 2's body gzip-compressed.
	snapshotFormatGzip = 1
	// snapshotFormatEmbedding is format 2 with each track's AudioEmbedding
	// after its highlights: uvarint n, then (n > 0) embeddingBytes.
	// Written only when some track has one, so a catalog without
	// embeddings keeps its bytes and version.
	snapshotFormatEmbedding = 3
)

// ErrSnapshotFormat is returned for bytes that are not a snapshot of this
// format, or that are damaged.
var ErrSnapshotFormat = errors.New("catalog: not a snapshot of this format")

// Track flag bits.
const (
	flagExplicit = 1 << iota
	flagRestricted
	flagTempo
	flagKey
	flagAlbum
)

// Encode writes the catalog's snapshot to w.
func Encode(w io.Writer, c *Catalog) error {
	format := formatOf(c.contents)
	body, err := encodeBody(c.contents, format)
	if err != nil {
		return err
	}
	head := append([]byte(snapshotMagic), format)
	head = binary.AppendUvarint(head, uint64(len(c.version)))
	head = append(head, c.version...)
	if _, err := w.Write(head); err != nil {
		return err
	}
	zw, err := zstd.NewWriter(w, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	if _, err := zw.Write(body); err != nil {
		return err
	}
	return zw.Close()
}

// Decode reads a snapshot written by Encode.
func Decode(r io.Reader) (*Catalog, error) {
	head := make([]byte, len(snapshotMagic)+1)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(snapshotMagic)]) != snapshotMagic {
		return nil, ErrSnapshotFormat
	}
	format := head[len(snapshotMagic)]
	if format != snapshotFormat && format != snapshotFormatGzip && format != snapshotFormatEmbedding {
		return nil, ErrSnapshotFormat
	}
	br := &byteReader{r: r}
	n, err := binary.ReadUvarint(br)
	if err != nil || n > 256 {
		return nil, fmt.Errorf("%w: bad version", ErrSnapshotFormat)
	}
	version := make([]byte, n)
	if _, err := io.ReadFull(r, version); err != nil {
		return nil, fmt.Errorf("%w: bad version", ErrSnapshotFormat)
	}
	zr, err := inflater(format, r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshotFormat, err)
	}
	defer zr.Close()
	contents, err := decodeBody(bufio.NewReaderSize(zr, 256<<10), format)
	if err != nil {
		return nil, err
	}
	// The checksum is checked at the end of the stream.
	if n, err := zr.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		return nil, fmt.Errorf("%w: damaged or trailing data", ErrSnapshotFormat)
	}
	return build(contents, string(version))
}

// inflater reads the compressed body of a snapshot of format.
func inflater(format byte, r io.Reader) (io.ReadCloser, error) {
	if format == snapshotFormatGzip {
		return gzip.NewReader(r)
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	return zr.IOReadCloser(), nil
}

// byteReader reads single bytes straight from r, so that nothing past the
// version is consumed before the inflater takes over.
type byteReader struct{ r io.Reader }

func (b *byteReader) ReadByte() (byte, error) {
	var p [1]byte
	_, err := io.ReadFull(b.r, p[:])
	return p[0], err
}

func versionOf(body []byte) string {
	h := sha256.Sum256(body)
	return hex.EncodeToString(h[:12])
}

// formatOf is the format c is written in: with embeddings only when a
// track has one.
func formatOf(c Contents) byte {
	for _, t := range c.Tracks {
		if len(t.AudioEmbedding) > 0 {
			return snapshotFormatEmbedding
		}
	}
	return snapshotFormat
}

func encodeBody(c Contents, format byte) ([]byte, error) {
	e := &encoder{ids: map[string]uint64{}, embeddings: format == snapshotFormatEmbedding}
	e.uvarint(uint64(len(c.Tracks)))
	for _, t := range c.Tracks {
		e.track(t)
	}
	e.uvarint(uint64(len(c.SoundFX)))
	for _, s := range c.SoundFX {
		e.str(s.ID)
		e.str(s.Name)
		e.str(s.Genre)
		e.str(s.SecondaryGenre)
		e.int(s.Length)
		e.audio(s.Audio)
		e.str(s.WaveformKey)
	}
	e.uvarint(uint64(len(c.Segments)))
	for _, s := range c.Segments {
		e.str(s.Key)
		e.strs(s.TrackIDs)
	}
	e.floats(c.Scaler.Mean)
	e.floats(c.Scaler.Std)
	var size int
	for _, s := range e.table {
		size += len(s)
	}
	out := make([]byte, 0, size+len(e.b)+5*len(e.table)+30)
	out = binary.AppendUvarint(out, uint64(len(e.table)))
	out = binary.AppendUvarint(out, uint64(size))
	out = binary.AppendUvarint(out, uint64(len(e.b)))
	for _, s := range e.table {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range e.table {
		out = append(out, s...)
	}
	return append(out, e.b...), nil
}

type encoder struct {
	b          []byte
	ids        map[string]uint64
	table      []string
	embeddings bool // write each track's AudioEmbedding (format 3)
}

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)        { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) f64(v float64)    { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }

func (e *encoder) floats(fs []float32) {
	e.uvarint(uint64(len(fs)))
	for _, f := range fs {
		e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(f))
	}
}

func (e *encoder) str(s string) {
	if s == "" {
		e.uvarint(0)
		return
	}
	id, ok := e.ids[s]
	if !ok {
		e.table = append(e.table, s)
		id = uint64(len(e.table))
		e.ids[s] = id
	}
	e.uvarint(id)
}

func (e *encoder) strs(ss []string) {
	e.uvarint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) audio(a AudioRef) {
	e.str(a.MP3Key)
	e.str(a.WAVKey)
	e.str(a.SHA256)
}

func (e *encoder) rights(hs []RightsHolder) {
	e.uvarint(uint64(len(hs)))
	for _, h := range hs {
		e.str(h.Name)
		e.f64(h.Share)
		e.str(h.PRO)
		e.str(h.IPI)
	}
}

func (e *encoder) track(t *Track) {
	var flags uint64
	if t.IsExplicit {
		flags |= flagExplicit
	}
	if t.Restricted {
		flags |= flagRestricted
	}
	if t.Tempo != nil {
		flags |= flagTempo
	}
	if t.Key != nil {
		flags |= flagKey
	}
	if t.Album != nil {
		flags |= flagAlbum
	}
	e.uvarint(flags)
	e.str(t.ID)
	e.str(t.Name)
	e.str(t.Variant)
	e.str(t.Description)
	e.int(t.Length)
	if t.Tempo != nil {
		e.f64(*t.Tempo)
	}
	if t.Key != nil {
		e.str(*t.Key)
	}
	e.str(t.Vocals)
	e.str(t.ShortID)
	e.str(t.Genre)
	e.str(t.Subgenre)
	e.str(t.Mood)
	e.str(t.SecondaryMood)
	locales := make([]string, 0, len(t.Translations))
	for l := range t.Translations {
		locales = append(locales, l)
	}
	slices.Sort(locales)
	e.uvarint(uint64(len(locales)))
	for _, l := range locales {
		tr := t.Translations[l]
		e.str(l)
		e.str(tr.Genre)
		e.str(tr.Subgenre)
		e.str(tr.Mood)
		e.str(tr.SecondaryMood)
		e.str(tr.Description)
	}
	e.str(t.Artist.Name)
	e.str(t.Artist.Slug)
	if a := t.Album; a != nil {
		e.str(a.ID)
		e.str(a.Name)
		e.str(a.Slug)
		e.str(a.URL)
		e.str(a.Images.Small)
		e.str(a.Images.Medium)
		e.str(a.Images.Large)
		e.str(a.Blurhash)
	}
	e.str(t.Cover)
	e.str(t.LibraryName)
	e.str(t.Lyrics)
	e.rights(t.Writers)
	e.rights(t.Publishers)
	e.str(string(t.AccessTier))
	e.str(t.ReleaseDate)
	e.strs(t.Tags)
	e.str(t.ISRC)
	e.str(t.Label)
	e.uvarint(uint64(len(t.Stems)))
	for _, s := range t.Stems {
		e.str(s.ID)
		e.str(s.Name)
		e.int(s.Length)
		e.audio(s.Audio)
		e.str(s.WaveformKey)
	}
	e.audio(t.Audio)
	e.str(t.WaveformKey)
	e.floats(t.Features)
	e.floats(t.Vector)
	e.f64(t.Energy)
	e.uvarint(uint64(len(t.Highlights)))
	for _, h := range t.Highlights {
		e.f64(h.Offset)
		e.f64(h.Duration)
	}
	if e.embeddings {
		e.embedding(t.AudioEmbedding)
	}
}

// embedding writes fs as embeddingBytes does.
func (e *encoder) embedding(fs []float32) {
	e.uvarint(uint64(len(fs)))
	if len(fs) > 0 {
		e.b = append(e.b, embeddingBytes(fs)...)
	}
}

// maxPart bounds the parts of a body, so a damaged size cannot make the
// decoder allocate without limit before the CRC would catch it.
const maxPart = 1 << 31

func decodeBody(r *bufio.Reader, format byte) (Contents, error) {
	d := &decoder{embeddings: format == snapshotFormatEmbedding}
	if err := d.readParts(r); err != nil {
		return Contents{}, err
	}
	var c Contents
	n := d.count(1)
	// One allocation for all tracks; the catalog lives as a whole.
	tracks := make([]Track, n)
	c.Tracks = make([]*Track, n)
	for i := range tracks {
		d.track(&tracks[i])
		c.Tracks[i] = &tracks[i]
	}
	n = d.count(1)
	sfx := make([]SoundFX, n)
	c.SoundFX = make([]*SoundFX, n)
	for i := range sfx {
		s := &sfx[i]
		s.ID, s.Name, s.Genre, s.SecondaryGenre = d.str(), d.str(), d.str(), d.str()
		s.Length = d.int()
		s.Audio = d.audio()
		s.WaveformKey = d.str()
		c.SoundFX[i] = s
	}
	if n := d.count(1); n > 0 {
		c.Segments = make([]Segment, n)
		for i := range c.Segments {
			c.Segments[i] = Segment{Key: d.str(), TrackIDs: d.strs()}
		}
	}
	c.Scaler = FeatureScaler{Mean: d.floats(), Std: d.floats()}
	if d.err != nil {
		return Contents{}, d.err
	}
	if len(d.b) != 0 {
		return Contents{}, fmt.Errorf("%w: trailing data", ErrSnapshotFormat)
	}
	return c, nil
}

type decoder struct {
	b          []byte
	pool       []string // the string table; pool[0] is ""
	err        error
	embeddings bool // tracks end with their AudioEmbedding (format 3)
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrSnapshotFormat, what)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("truncated")
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// count reads a length whose elements take at least min bytes each, which
// bounds what a damaged snapshot can make us allocate.
func (d *decoder) count(min int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/min) {
		d.fail("bad count")
		return 0
	}
	return int(v)
}

func (d *decoder) f64() float64 {
	if len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

// readParts reads the string table, making every string a substring of
// one allocation, and then the records into d.b.
func (d *decoder) readParts(r *bufio.Reader) error {
	bad := fmt.Errorf("%w: bad header", ErrSnapshotFormat)
	n, err1 := binary.ReadUvarint(r)
	strBytes, err2 := binary.ReadUvarint(r)
	recBytes, err3 := binary.ReadUvarint(r)
	if err1 != nil || err2 != nil || err3 != nil || n > strBytes || strBytes > maxPart || recBytes > maxPart {
		return bad
	}
	lens := make([]uint32, n)
	total := uint64(0)
	for i := range lens {
		l, err := binary.ReadUvarint(r)
		total += l
		if err != nil || l == 0 || total > strBytes {
			return bad
		}
		lens[i] = uint32(l)
	}
	if total != strBytes {
		return bad
	}
	buf := make([]byte, strBytes)
	if _, err := io.ReadFull(r, buf); err != nil {
		return fmt.Errorf("%w: %v", ErrSnapshotFormat, err)
	}
	// buf is never written again, so the strings may share it instead of
	// copying 40+ MB for a large catalog.
	all := unsafe.String(unsafe.SliceData(buf), len(buf))
	d.pool = make([]string, n+1)
	off := 0
	for i, l := range lens {
		d.pool[i+1] = all[off : off+int(l)]
		off += int(l)
	}
	d.b = make([]byte, recBytes)
	if _, err := io.ReadFull(r, d.b); err != nil {
		return fmt.Errorf("%w: %v", ErrSnapshotFormat, err)
	}
	return nil
}

func (d *decoder) str() string {
	i := d.uvarint()
	if i >= uint64(len(d.pool)) {
		d.fail("bad string reference")
		return ""
	}
	return d.pool[i]
}

func (d *decoder) strs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) floats() []float32 {
	n := d.count(4)
	if n == 0 {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*n:]
	return out
}

func (d *decoder) audio() AudioRef {
	return AudioRef{MP3Key: d.str(), WAVKey: d.str(), SHA256: d.str()}
}

func (d *decoder) rights() []RightsHolder {
	n := d.count(11)
	if n == 0 {
		return nil
	}
	out := make([]RightsHolder, n)
	for i := range out {
		out[i] = RightsHolder{Name: d.str(), Share: d.f64(), PRO: d.str(), IPI: d.str()}
	}
	return out
}

func (d *decoder) track(t *Track) {
	flags := d.uvarint()
	t.IsExplicit = flags&flagExplicit != 0
	t.Restricted = flags&flagRestricted != 0
	t.ID, t.Name, t.Variant, t.Description = d.str(), d.str(), d.str(), d.str()
	t.Length = d.int()
	if flags&flagTempo != 0 {
		v := d.f64()
		t.Tempo = &v
	}
	if flags&flagKey != 0 {
		v := d.str()
		t.Key = &v
	}
	t.Vocals, t.ShortID = d.str(), d.str()
	t.Genre, t.Subgenre, t.Mood, t.SecondaryMood = d.str(), d.str(), d.str(), d.str()
	if n := d.count(6); n > 0 {
		t.Translations = make(map[string]Translation, n)
		for range n {
			l := d.str()
			t.Translations[l] = Translation{Genre: d.str(), Subgenre: d.str(), Mood: d.str(), SecondaryMood: d.str(), Description: d.str()}
		}
	}
	t.Artist = Artist{Name: d.str(), Slug: d.str()}
	if flags&flagAlbum != 0 {
		t.Album = &Album{ID: d.str(), Name: d.str(), Slug: d.str(), URL: d.str(),
			Images: ImageSizes{Small: d.str(), Medium: d.str(), Large: d.str()}, Blurhash: d.str()}
	}
	t.Cover, t.LibraryName, t.Lyrics = d.str(), d.str(), d.str()
	t.Writers, t.Publishers = d.rights(), d.rights()
	t.AccessTier = AccessTier(d.str())
	t.ReleaseDate = d.str()
	t.Tags = d.strs()
	t.ISRC, t.Label = d.str(), d.str()
	if n := d.count(7); n > 0 {
		t.Stems = make([]Stem, n)
		for i := range t.Stems {
			t.Stems[i] = Stem{ID: d.str(), Name: d.str(), Length: d.int(), Audio: d.audio(), WaveformKey: d.str()}
		}
	}
	t.Audio = d.audio()
	t.WaveformKey = d.str()
	t.Features = d.floats()
	t.Vector = d.floats()
	t.Energy = d.f64()
	if n := d.count(16); n > 0 {
		t.Highlights = make([]Region, n)
		for i := range t.Highlights {
			t.Highlights[i] = Region{Offset: d.f64(), Duration: d.f64()}
		}
	}
	if d.embeddings {
		t.AudioEmbedding = d.embedding()
	}
}

// embedding reads what encoder.embedding wrote.
func (d *decoder) embedding() []float32 {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	if d.err != nil || len(d.b) < 1+n {
		d.fail("short embedding")
		return nil
	}
	out := embeddingFrom(d.b[:1+n])
	d.b = d.b[1+n:]
	return out
}

// encodeSnapshot returns the snapshot bytes of c.
func encodeSnapshot(c *Catalog) ([]byte, error) {
	var buf bytes.Buffer
	if err := Encode(&buf, c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
