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
	var riff [12]byte
	if _, err := io.ReadFull(br, riff[:]); err != nil || string(riff[0:4]) != "RIFF" || string(riff[8:12]) != "WAVE" {
		return audio.PCM{}, fmt.Errorf("read wav: not a RIFF/WAVE file: %w", ErrCorrupt)
	}
	var format, channels, bits uint16
	var rate uint32
	for {
		var ch [8]byte
		if _, err := io.ReadFull(br, ch[:]); err != nil {
			return audio.PCM{}, fmt.Errorf("read wav: no data chunk: %w", ErrNoAudio)
		}
		size := binary.LittleEndian.Uint32(ch[4:])
		switch string(ch[0:4]) {
		case "fmt ":
			if size < 16 {
				return audio.PCM{}, fmt.Errorf("read wav: short fmt chunk: %w", ErrCorrupt)
			}
			f := make([]byte, size+size&1)
			if _, err := io.ReadFull(br, f); err != nil {
				return audio.PCM{}, fmt.Errorf("read wav: %w", ErrCorrupt)
			}
			format = binary.LittleEndian.Uint16(f[0:])
			channels = binary.LittleEndian.Uint16(f[2:])
			rate = binary.LittleEndian.Uint32(f[4:])
			bits = binary.LittleEndian.Uint16(f[14:])
			if format == 0xFFFE && size >= 26 {
				format = binary.LittleEndian.Uint16(f[24:])
			}
		case "data":
			if channels == 0 || rate == 0 {
				return audio.PCM{}, fmt.Errorf("read wav: data before fmt: %w", ErrCorrupt)
			}
			return readWAVData(br, size, format, int(channels), int(bits), int(rate))
		default:
			if _, err := br.Discard(int(size + size&1)); err != nil {
				return audio.PCM{}, fmt.Errorf("read wav: %w", ErrCorrupt)
			}
		}
	}
}

func readWAVData(r io.Reader, size uint32, format uint16, channels, bits, rate int) (audio.PCM, error) {
	width := bits / 8
	if (format != 1 && format != 3) || width < 1 || width > 4 || (format == 3 && width != 4) {
		return audio.PCM{}, fmt.Errorf("read wav: format %d/%d bits unsupported: %w", format, bits, ErrCorrupt)
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(size)))
	if err != nil {
		return audio.PCM{}, fmt.Errorf("read wav: %w", err)
	}
	frame := width * channels
	n := len(data) / frame
	out := make([]float32, n)
	for i := range n {
		var sum float64
		for c := range channels {
			sum += sampleAt(data[i*frame+c*width:], width, format)
		}
		out[i] = float32(sum / float64(channels))
	}
	return audio.PCM{Samples: out, Rate: rate}, nil
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
