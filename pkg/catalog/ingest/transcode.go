package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"musiccatalog/pkg/audio/decode"
)

// transcode writes the mp3 and wav renditions of the files in one ffmpeg
// run, each source decoded once for both. The mp3 is LAME VBR ~190 kb/s
// (-q:a 2) at algorithm quality 5, which encodes twice as fast as LAME's
// default with no audible difference at that rate; the wav keeps the
// source's rate and channels at 16 bits. bitexact keeps ffmpeg's version
// out of the files. Each input is probed first and opened only with its
// allowed demuxer (decode.Media.InputArgs): a manifest may name any file.
// A failure is the inputs' fault when ffmpeg ran and exited with an error.
func transcode(ctx context.Context, ffmpeg string, files []*file) error {
	if len(files) == 0 {
		return nil
	}
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}
	probe := decode.Decoder{FFmpegPath: ffmpeg}
	for _, f := range files {
		m, err := probe.Probe(ctx, f.path)
		if decode.Code(err) != "" {
			return inputError{fmt.Errorf("transcode: %w", err)}
		}
		if err != nil {
			return fmt.Errorf("transcode: %w", err)
		}
		args = append(args, m.InputArgs(0)...)
	}
	common := []string{"-vn", "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact"}
	for i, f := range files {
		in := strconv.Itoa(i) + ":a:0"
		args = append(args, "-map", in)
		args = append(args, common...)
		args = append(args, "-c:a", "libmp3lame", "-q:a", "2", "-compression_level", "5", "-f", "mp3", f.mp3)
		args = append(args, "-map", in)
		args = append(args, common...)
		args = append(args, "-c:a", "pcm_s16le", "-f", "wav", f.wav)
	}
	cmd := exec.CommandContext(ctx, ffmpeg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &decode.LimitedWriter{W: &stderr, N: decode.StderrLimit}
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return inputError{fmt.Errorf("transcode: %s", msg)}
	}
	return fmt.Errorf("transcode: %w", err)
}

// inputError is a failure caused by one record's audio: the record is
// reported and skipped, the run goes on.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }
