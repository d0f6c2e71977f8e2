package decode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Formats are the demuxers ffmpeg and ffprobe may use on an input (the
// first name of ffprobe's format_name): the containers of the video
// uploads (interface.md §8: .mp4, .mov, .avi, .mpeg; WebM/Matroska from
// fetched links) and the audio files catalog ingest takes. Every other
// demuxer is refused – above all those that open further files or URLs
// named inside the input: HLS/DASH playlists, concat lists, image
// sequences, tee, and the network ones. A playlist uploaded as "x.mp4"
// would otherwise make ffmpeg read any file on the server's disk.
var Formats = []string{
	"mov",      // mov,mp4,m4a,3gp,3g2,mj2
	"avi",      // avi
	"mpeg",     // MPEG program stream (.mpeg, .mpg)
	"mpegts",   // MPEG transport stream
	"matroska", // matroska,webm
	"wav", "mp3", "flac", "ogg", "aac", "aiff",
}

// formatWhitelist is Formats as ffmpeg's format_whitelist option.
var formatWhitelist = strings.Join(Formats, ",")

// maxProbeOutput bounds what is read of ffprobe's JSON (a hostile file may
// declare thousands of streams).
const maxProbeOutput = 1 << 20

// Media is an input that passed Probe: its demuxer is one of Formats.
type Media struct {
	Path string
	// Format is the demuxer ffmpeg reads it with ("mov", "matroska", …).
	Format string
	// Seconds is the duration of the longest audio stream, or the
	// container's when the streams do not say; 0 when neither does.
	Seconds float64
	// Audio and Video report whether it has such streams.
	Audio, Video bool
	// Channels is the channel count of the first audio stream (0 unknown).
	Channels int
	// VideoCodec is the codec of the first video stream ("h264", …; ""
	// without one), what a remux may copy as it is.
	VideoCodec string
	// Length is the container's duration, else the longest stream's; what
	// a render of the whole video lasts.
	Length float64
}

// InputArgs are the ffmpeg arguments that open m and nothing else: only
// the file protocol, only the probed demuxer (from Formats), and the path
// behind an explicit "file:" so no part of it reads as a protocol. start
// > 0 seeks there first. Every ffmpeg run on media this service did not
// make itself opens its input with these arguments.
func (m Media) InputArgs(start float64) []string {
	args := []string{"-protocol_whitelist", "file", "-format_whitelist", formatWhitelist, "-f", m.Format}
	if m.Format == "mov" {
		// External data references of QuickTime files stay off (the
		// default, made explicit).
		args = append(args, "-enable_drefs", "0")
	}
	if start > 0 {
		args = append(args, "-ss", formatSeconds(start))
	}
	return append(args, "-i", fileURL(m.Path))
}

func fileURL(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "file:" + path
}

// FFprobePath is the ffprobe beside ffmpegPath ("/opt/bin/ffprobe" for
// "/opt/bin/ffmpeg"), or "ffprobe" from PATH when there is none.
func FFprobePath(ffmpegPath string) string {
	if dir := filepath.Dir(ffmpegPath); strings.ContainsRune(ffmpegPath, filepath.Separator) {
		p := filepath.Join(dir, "ffprobe")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "ffprobe"
}

func (d Decoder) ffprobe() string {
	if d.FFprobePath != "" {
		return d.FFprobePath
	}
	return FFprobePath(d.ffmpeg())
}

// Probe identifies the file at path with ffprobe under the same
// restrictions as decoding. A file no allowed demuxer reads is ErrCorrupt;
// a failure to run ffprobe at all is not the input's fault.
func (d Decoder) Probe(ctx context.Context, path string) (Media, error) {
	if _, err := os.Stat(path); err != nil {
		return Media{}, fmt.Errorf("decode: %w", err)
	}
	cmd := exec.CommandContext(ctx, d.ffprobe(), "-v", "error", "-protocol_whitelist", "file",
		"-format_whitelist", formatWhitelist, "-show_entries", "format=format_name,duration:stream=codec_type,codec_name,channels,duration",
		"-of", "json", fileURL(path))
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &LimitedWriter{W: &stdout, N: maxProbeOutput}
	cmd.Stderr = &LimitedWriter{W: &stderr, N: StderrLimit}
	err := cmd.Run()
	if ctx.Err() != nil {
		return Media{}, fmt.Errorf("probe %s: %w", path, ctx.Err())
	}
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return Media{}, fmt.Errorf("probe %s: ffprobe: %w", path, err)
		}
		return Media{}, fmt.Errorf("probe %s: %s: %w", path, firstLine(strings.TrimSpace(stderr.String())), ErrCorrupt)
	}
	return parseProbe(path, stdout.Bytes())
}

// parseProbe reads ffprobe's JSON; anything unexpected in it is the
// input's fault, never a crash.
func parseProbe(path string, out []byte) (Media, error) {
	var doc struct {
		Format struct {
			FormatName string `json:"format_name"`
			Duration   string `json:"duration"`
		} `json:"format"`
		Streams []struct {
			CodecType string `json:"codec_type"`
			CodecName string `json:"codec_name"`
			Channels  int    `json:"channels"`
			Duration  string `json:"duration"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return Media{}, fmt.Errorf("probe %s: unreadable ffprobe output: %v: %w", path, err, ErrCorrupt)
	}
	name, _, _ := strings.Cut(doc.Format.FormatName, ",")
	if !slices.Contains(Formats, name) {
		return Media{}, fmt.Errorf("probe %s: format %q is not allowed: %w", path, doc.Format.FormatName, ErrCorrupt)
	}
	m := Media{Path: path, Format: name, Length: seconds(doc.Format.Duration)}
	longest := 0.0
	for _, s := range doc.Streams {
		longest = max(longest, seconds(s.Duration))
		switch s.CodecType {
		case "audio":
			if !m.Audio {
				m.Channels = s.Channels
			}
			m.Audio = true
			m.Seconds = max(m.Seconds, seconds(s.Duration))
		case "video":
			if !m.Video {
				m.VideoCodec = s.CodecName
			}
			m.Video = true
		}
	}
	if m.Seconds == 0 {
		m.Seconds = seconds(doc.Format.Duration)
	}
	if m.Length == 0 {
		m.Length = longest
	}
	return m, nil
}

// seconds reads a duration of ffprobe's output; 0 when absent or absurd.
func seconds(v string) float64 {
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && s < 1e9 {
		return s
	}
	return 0
}
