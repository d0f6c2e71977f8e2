package decode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"musiccatalog/pkg/audio"
)

// Decoder runs ffmpeg. The zero value decodes with "ffmpeg" from PATH at
// audio.DefaultSampleRate and rejects nothing for length.
type Decoder struct {
	// FFmpegPath is the ffmpeg binary ("/opt/bin/ffmpeg" in Lambda).
	FFmpegPath string
	// FFprobePath is the ffprobe binary (default: FFprobePath(FFmpegPath)).
	FFprobePath string
	// SampleRate of the output; 0 means audio.DefaultSampleRate.
	SampleRate int
	// MinSeconds: shorter audio fails with ErrTooShort.
	MinSeconds float64
	// MaxSeconds caps how much audio is decoded (0 = all), which bounds
	// memory for hostile or very long inputs.
	MaxSeconds float64
	// TooLongAfter, when set, fails longer audio with ErrTooLong: before
	// decoding when the container says so, otherwise when decoding gets
	// past it (decoding stops there, so a container that understates its
	// duration costs no more than an honest one).
	TooLongAfter float64
	// TempDir holds spooled readers (default os.TempDir(), /tmp in Lambda).
	TempDir string
}

func (d Decoder) rate() int {
	if d.SampleRate > 0 {
		return d.SampleRate
	}
	return audio.DefaultSampleRate
}

func (d Decoder) ffmpeg() string {
	if d.FFmpegPath != "" {
		return d.FFmpegPath
	}
	return "ffmpeg"
}

// DecodeFile decodes the first audio stream of the file at path.
func (d Decoder) DecodeFile(ctx context.Context, path string) (audio.PCM, error) {
	return d.DecodeWindow(ctx, path, 0, d.MaxSeconds)
}

// DecodeWindow decodes length seconds (0 = to the end) starting at start
// seconds, letting ffmpeg seek instead of decoding what is not needed.
// The file is probed first (Probe): only the allowed demuxers read it.
func (d Decoder) DecodeWindow(ctx context.Context, path string, start, length float64) (audio.PCM, error) {
	m, err := d.Probe(ctx, path)
	if err != nil {
		return audio.PCM{}, err
	}
	return d.DecodeMedia(ctx, m, start, length)
}

// DecodeMedia is DecodeWindow on a probed file.
func (d Decoder) DecodeMedia(ctx context.Context, m Media, start, length float64) (audio.PCM, error) {
	if !m.Audio {
		return audio.PCM{}, fmt.Errorf("decode %s: no audio stream: %w", m.Path, ErrNoAudio)
	}
	if d.TooLongAfter > 0 {
		if m.Seconds-start > d.TooLongAfter+1 {
			return audio.PCM{}, fmt.Errorf("decode %s: %.0f s: %w", m.Path, m.Seconds, ErrTooLong)
		}
		// A second more than allowed tells "too long" from "just fits".
		if cut := d.TooLongAfter + 1; length <= 0 || length > cut {
			length = cut
		}
	}
	args := append([]string{"-nostdin", "-hide_banner", "-loglevel", "error"}, m.InputArgs(start)...)
	if length > 0 {
		args = append(args, "-t", formatSeconds(length))
	}
	args = append(args, "-map", "0:a:0", "-vn", "-sn", "-dn",
		"-ac", "1", "-ar", strconv.Itoa(d.rate()), "-f", "s16le", "-acodec", "pcm_s16le", "pipe:1")
	// The samples go in one allocation of the expected length rather
	// than a slice doubled as it grows (which peaks at three times the
	// audio): the container's duration, within the window asked for.
	expect := m.Seconds - start
	if length > 0 && (expect <= 0 || expect > length) {
		expect = length
	}
	pcm, err := d.run(ctx, m.Path, args, int(min(max(expect, 0), maxPreallocSeconds)*float64(d.rate()))+d.rate())
	if err == nil && d.TooLongAfter > 0 && pcm.Seconds() > d.TooLongAfter {
		return audio.PCM{}, fmt.Errorf("decode %s: more than %.0f s: %w", m.Path, d.TooLongAfter, ErrTooLong)
	}
	return pcm, err
}

// maxPreallocSeconds bounds the preallocation for a window with no
// length when the container claims a long duration.
const maxPreallocSeconds = 3600

// Decode decodes media read from r. Containers such as MP4 keep their index
// at the end, which ffmpeg cannot reach on a pipe, so r is spooled to a
// temporary file first.
func (d Decoder) Decode(ctx context.Context, r io.Reader) (audio.PCM, error) {
	f, err := os.CreateTemp(d.TempDir, "decode-*")
	if err != nil {
		return audio.PCM{}, fmt.Errorf("decode: spool: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return audio.PCM{}, fmt.Errorf("decode: spool: %w", err)
	}
	return d.DecodeFile(ctx, f.Name())
}

func (d Decoder) run(ctx context.Context, name string, args []string, capacity int) (audio.PCM, error) {
	cmd := exec.CommandContext(ctx, d.ffmpeg(), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &LimitedWriter{W: &stderr, N: StderrLimit}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return audio.PCM{}, fmt.Errorf("decode: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return audio.PCM{}, fmt.Errorf("decode: start ffmpeg: %w", err)
	}
	samples, readErr := readS16(bufio.NewReaderSize(out, 64<<10), capacity)
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return audio.PCM{}, fmt.Errorf("decode %s: %w", name, ctx.Err())
	}
	if waitErr != nil {
		return audio.PCM{}, classify(name, waitErr, stderr.String())
	}
	if readErr != nil {
		return audio.PCM{}, fmt.Errorf("decode %s: read: %w", name, readErr)
	}
	pcm := audio.PCM{Samples: samples, Rate: d.rate()}
	if len(samples) == 0 {
		return audio.PCM{}, fmt.Errorf("decode %s: no samples: %w", name, ErrNoAudio)
	}
	if pcm.Seconds() < d.MinSeconds {
		return audio.PCM{}, fmt.Errorf("decode %s: %.2fs < %.2fs: %w", name, pcm.Seconds(), d.MinSeconds, ErrTooShort)
	}
	return pcm, nil
}

// classify maps ffmpeg's failure text to an input error; anything it does
// not recognise is reported as corrupt input only when ffmpeg ran at all.
func classify(name string, err error, stderr string) error {
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return fmt.Errorf("decode %s: ffmpeg: %w", name, err)
	}
	msg := strings.TrimSpace(stderr)
	switch {
	case strings.Contains(msg, "matches no streams"), strings.Contains(msg, "does not contain any stream"),
		strings.Contains(msg, "Output file does not contain any stream"):
		return fmt.Errorf("decode %s: %s: %w", name, firstLine(msg), ErrNoAudio)
	default:
		return fmt.Errorf("decode %s: %s: %w", name, firstLine(msg), ErrCorrupt)
	}
}

func readS16(r io.Reader, capacity int) ([]float32, error) {
	buf := make([]byte, 32<<10)
	out := make([]float32, 0, capacity)
	pending := 0 // an odd byte left at buf[0] by the previous read
	for {
		n, err := r.Read(buf[pending:])
		n += pending
		even := n &^ 1
		for i := 0; i < even; i += 2 {
			out = append(out, float32(int16(uint16(buf[i])|uint16(buf[i+1])<<8))/32768)
		}
		pending = n - even
		if pending == 1 {
			buf[0] = buf[even]
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func formatSeconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

// LimitedWriter keeps the first N bytes written to it in W and drops the
// rest: ffmpeg's stderr, which a damaged file can fill with one error per
// frame.
type LimitedWriter struct {
	W io.Writer
	N int
}

func (l *LimitedWriter) Write(p []byte) (int, error) {
	if l.N > 0 {
		k := min(len(p), l.N)
		l.W.Write(p[:k])
		l.N -= k
	}
	return len(p), nil
}

// StderrLimit is how much of ffmpeg's stderr is kept.
const StderrLimit = 8 << 10
