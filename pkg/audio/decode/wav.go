package decode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"musiccatalog/pkg/audio"
)

// WriteWAV writes p as 16-bit mono PCM WAV, clipping to [-1, 1].
func WriteWAV(w io.Writer, p audio.PCM) error {
	bw := bufio.NewWriter(w)
	n := uint32(len(p.Samples) * 2)
	hdr := make([]byte, 44)
	copy(hdr[0:], "RIFF")
	binary.LittleEndian.PutUint32(hdr[4:], 36+n)
	copy(hdr[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(hdr[16:], 16)
	binary.LittleEndian.PutUint16(hdr[20:], 1)
	binary.LittleEndian.PutUint16(hdr[22:], 1)
	binary.LittleEndian.PutUint32(hdr[24:], uint32(p.Rate))
	binary.LittleEndian.PutUint32(hdr[28:], uint32(p.Rate*2))
	binary.LittleEndian.PutUint16(hdr[32:], 2)
	binary.LittleEndian.PutUint16(hdr[34:], 16)
	copy(hdr[36:], "data")
	binary.LittleEndian.PutUint32(hdr[40:], n)
	if _, err := bw.Write(hdr); err != nil {
		return err
	}
	var b [2]byte
	for _, v := range p.Samples {
		s := math.Round(float64(max(-1, min(1, v))) * 32767)
		binary.LittleEndian.PutUint16(b[:], uint16(int16(s)))
		if _, err := bw.Write(b[:]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WAVSize is the size of the WAV file WriteWAV writes for n samples.
func WAVSize(n int) int64 { return 44 + 2*int64(n) }

// WAVBytes is p as a WAV file in memory (WriteWAV into a buffer, which
// cannot fail).
func WAVBytes(p audio.PCM) []byte {
	var b bytes.Buffer
	b.Grow(int(WAVSize(len(p.Samples))))
	_ = WriteWAV(&b, p)
	return b.Bytes()
}

// ReadWAV reads a PCM (8/16/24/32-bit integer or 32-bit float) WAV file,
// mixing channels down to mono. It keeps the file's rate; resample with
// dsp.Resample when another is needed.
func ReadWAV(r io.Reader) (audio.PCM, error) {
	br := bufio.NewReader(r)
	l, err := ReadWAVLayout(br)
	if err != nil {
		return audio.PCM{}, err
	}
	return l.ReadData(br, l.DataSize)
}

// WAVLayout is where a WAV file keeps its samples and how they are coded.
type WAVLayout struct {
	Format         uint16 // 1: integer PCM, 3: float
	Channels, Bits int
	Rate           int
	// DataOffset is the byte offset of the first sample, DataSize the
	// bytes of samples the data chunk declares.
	DataOffset, DataSize int64
}

// maxFmtChunk bounds a fmt chunk (40 bytes for WAVE_FORMAT_EXTENSIBLE):
// a larger one is a corrupt file, not a reason to allocate its size.
const maxFmtChunk = 1 << 10

// ReadWAVLayout reads a WAV header up to the first sample (r is left
// there) and checks that ReadData can decode the samples.
func ReadWAVLayout(r io.Reader) (WAVLayout, error) {
	var riff [12]byte
	if _, err := io.ReadFull(r, riff[:]); err != nil || string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return WAVLayout{}, fmt.Errorf("read wav: not a RIFF/WAVE file: %w", ErrCorrupt)
	}
	var l WAVLayout
	at := int64(len(riff))
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return WAVLayout{}, fmt.Errorf("read wav: no data chunk: %w", ErrNoAudio)
		}
		at += int64(len(ch))
		size := binary.LittleEndian.Uint32(ch[4:])
		switch string(ch[0:4]) {
		case "fmt ":
			if size < 16 || size > maxFmtChunk {
				return WAVLayout{}, fmt.Errorf("read wav: fmt chunk of %d bytes: %w", size, ErrCorrupt)
			}
			f := make([]byte, size+size&1)
			if _, err := io.ReadFull(r, f); err != nil {
				return WAVLayout{}, fmt.Errorf("read wav: %w", ErrCorrupt)
			}
			at += int64(len(f))
			l.Format = binary.LittleEndian.Uint16(f[0:])
			l.Channels = int(binary.LittleEndian.Uint16(f[2:]))
			l.Rate = int(binary.LittleEndian.Uint32(f[4:]))
			l.Bits = int(binary.LittleEndian.Uint16(f[14:]))
			if l.Format == 0xFFFE && size >= 26 {
				l.Format = binary.LittleEndian.Uint16(f[24:])
			}
		case "data":
			if l.Channels == 0 || l.Rate == 0 {
				return WAVLayout{}, fmt.Errorf("read wav: data before fmt: %w", ErrCorrupt)
			}
			if w := l.Bits / 8; (l.Format != 1 && l.Format != 3) || w < 1 || w > 4 || (l.Format == 3 && w != 4) {
				return WAVLayout{}, fmt.Errorf("read wav: format %d/%d bits unsupported: %w", l.Format, l.Bits, ErrCorrupt)
			}
			l.DataOffset, l.DataSize = at, int64(size)
			return l, nil
		default:
			n := int64(size) + int64(size&1)
			if _, err := io.CopyN(io.Discard, r, n); err != nil {
				return WAVLayout{}, fmt.Errorf("read wav: %w", ErrCorrupt)
			}
			at += n
		}
	}
}

// frameBytes is the size of one sample of every channel.
func (l WAVLayout) frameBytes() int64 { return int64(l.Bits / 8 * l.Channels) }

// Window is the byte range of the file (offset, length) that holds the
// samples from fromSec for seconds, clipped to the data chunk (length 0
// when the window starts past it).
func (l WAVLayout) Window(fromSec, seconds float64) (offset, length int64) {
	fb := l.frameBytes()
	frames := l.DataSize / fb
	a := min(frames, max(0, int64(math.Round(fromSec*float64(l.Rate)))))
	b := min(frames, max(a, a+int64(math.Round(seconds*float64(l.Rate)))))
	return l.DataOffset + a*fb, (b - a) * fb
}

// ReadData decodes up to n bytes of samples from r, mixed down to mono.
func (l WAVLayout) ReadData(r io.Reader, n int64) (audio.PCM, error) {
	data, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return audio.PCM{}, fmt.Errorf("read wav: %w", err)
	}
	width, fb := l.Bits/8, int(l.frameBytes())
	frames := len(data) / fb
	out := make([]float32, frames)
	for i := range frames {
		var sum float64
		for c := range l.Channels {
			sum += sampleAt(data[i*fb+c*width:], width, l.Format)
		}
		out[i] = float32(sum / float64(l.Channels))
	}
	return audio.PCM{Samples: out, Rate: l.Rate}, nil
}

func sampleAt(b []byte, width int, format uint16) float64 {
	switch {
	case format == 3:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case width == 1:
		return (float64(b[0]) - 128) / 128
	case width == 2:
		return float64(int16(binary.LittleEndian.Uint16(b))) / 32768
	case width == 3:
		v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
		return float64(v) / 8388608
	default:
		return float64(int32(binary.LittleEndian.Uint32(b))) / 2147483648
	}
}
