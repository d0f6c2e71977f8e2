package decode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/audio/decode"
)

// TestWAVWindow reads a window of a stereo WAV with a metadata chunk before
// its samples (as ffmpeg writes them) through its layout and byte range,
// and checks it is the same audio as the whole file read at once.
func TestWAVWindow(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	wav := filepath.Join(dir, "tone.wav")
	ffmpeg(t, "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=3", "-f", "lavfi", "-i", "sine=frequency=550:sample_rate=44100:duration=3",
		"-filter_complex", "[0][1]amerge=inputs=2", "-metadata", "title=window test", "-c:a", "pcm_s16le", wav)
	whole, err := decode.Decoder{}.DecodeFile(context.Background(), wav)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	full, err := decode.ReadWAV(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	l, err := decode.ReadWAVLayout(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if l.Channels != 2 || l.Rate != 44100 || l.Bits != 16 || l.DataOffset+l.DataSize != int64(len(raw)) || l.DataOffset <= 44 {
		t.Fatalf("layout %+v of a %d-byte file", l, len(raw))
	}
	off, n := l.Window(1.25, 0.5)
	if n != int64(0.5*44100)*4 {
		t.Fatalf("window of %d bytes", n)
	}
	part, err := l.ReadData(bytes.NewReader(raw[off:off+n]), n)
	if err != nil {
		t.Fatal(err)
	}
	first := int(1.25 * 44100)
	if part.Rate != 44100 || len(part.Samples) != int(0.5*44100) {
		t.Fatalf("rate %d, %d samples", part.Rate, len(part.Samples))
	}
	for i, v := range part.Samples {
		if v != full.Samples[first+i] {
			t.Fatalf("sample %d: %v, whole file %v", i, v, full.Samples[first+i])
		}
	}
	if whole.Seconds() < 2.9 {
		t.Fatalf("decoded %.2f s", whole.Seconds())
	}
	// Past the end: clipped, then empty.
	if _, n := l.Window(2.9, 1); n != int64(math.Round(0.1*44100))*4 {
		t.Errorf("window over the end: %d bytes", n)
	}
	if _, n := l.Window(5, 1); n != 0 {
		t.Errorf("window past the end: %d bytes", n)
	}
}

// TestWAVLayoutRejectsAHugeFmtChunk: a fmt chunk claiming 4 GB is corrupt,
// not an allocation of its size (nor a wrapped padding of it).
func TestWAVLayoutRejectsAHugeFmtChunk(t *testing.T) {
	for _, size := range []uint32{0xFFFFFFFF, 1 << 31} {
		b := []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
		b = binary.LittleEndian.AppendUint32(b, size)
		b = append(b, make([]byte, 64)...)
		if _, err := decode.ReadWAVLayout(bytes.NewReader(b)); !errors.Is(err, decode.ErrCorrupt) {
			t.Errorf("fmt chunk of %d bytes: %v", size, err)
		}
	}
}
