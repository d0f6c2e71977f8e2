package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"musiccatalog/pkg/audio/decode"
)

// Output of a render: MP4 with AAC audio.
const (
	OutputType = "video/mp4"
	outputExt  = ".mp4"
	// peakLimit is where the limiter holds the mix: -1 dBFS, headroom for
	// the AAC encoder's overshoot, so the mix never clips.
	peakLimit    = 0.891
	audioRate    = 48000
	audioBitrate = "192k"
)

// copyCodecs are the video codecs an MP4 carries as they are: the render
// copies their stream without re-encoding; any other is encoded to H.264.
var copyCodecs = []string{"h264", "hevc", "mpeg4", "av1", "vp9", "mpeg2video", "mpeg1video", "mjpeg"}

// Mixer runs ffmpeg. Both inputs open only through decode.Media.InputArgs
// (file protocol, allowed demuxers).
type Mixer struct {
	FFmpegPath string // default "ffmpeg"
}

// MixInput is one render's files and parameters.
type MixInput struct {
	VideoPath, TrackPath, OutPath string
	Params
}

// MixResult describes a finished render.
type MixResult struct {
	Seconds     float64 // the video's length, which the render has
	CopiedVideo bool    // the video stream was copied, not re-encoded
}

func (m Mixer) ffmpeg() string {
	if m.FFmpegPath != "" {
		return m.FFmpegPath
	}
	return "ffmpeg"
}

// Mix writes the render of in.VideoPath to in.OutPath: the video's own
// audio × VideoVolume plus the track from TrackStart × TrackVolume, cut to
// the video's length with a FadeOut-second fade and a limiter at -1 dBFS;
// the video stream copied where MP4 carries its codec. Input it cannot use
// is a *BuildError.
func (m Mixer) Mix(ctx context.Context, in MixInput) (MixResult, error) {
	dec := decode.Decoder{FFmpegPath: m.FFmpegPath}
	video, err := dec.Probe(ctx, in.VideoPath)
	if err != nil {
		return MixResult{}, inputError(err, "The uploaded video cannot be read.")
	}
	if !video.Video {
		return MixResult{}, &BuildError{Code: CodeNoVideo, Detail: "The uploaded file has no video stream."}
	}
	track, err := dec.Probe(ctx, in.TrackPath)
	if err != nil || !track.Audio {
		return MixResult{}, &BuildError{Code: CodeSourceMissing, Detail: "The track's audio cannot be read."}
	}
	length := video.Length
	if length <= 0 {
		return MixResult{}, &BuildError{Code: CodeCorrupt, Detail: "The uploaded video has no duration."}
	}
	p := in.Params.Normalized()
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}
	args = append(args, video.InputArgs(0)...)
	args = append(args, track.InputArgs(p.TrackStart)...)
	args = append(args, "-filter_complex", mixFilter(video, track, p, length), "-map", "0:v:0", "-map", "[mix]")
	copied := slices.Contains(copyCodecs, video.VideoCodec)
	if copied {
		args = append(args, "-c:v", "copy")
		if video.VideoCodec == "hevc" {
			args = append(args, "-tag:v", "hvc1") // what players expect of HEVC in MP4
		}
	} else {
		args = append(args, "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p")
	}
	args = append(args, "-c:a", "aac", "-b:a", audioBitrate, "-ar", strconv.Itoa(audioRate),
		"-t", sec(length), "-movflags", "+faststart", "-f", "mp4", "file:"+in.OutPath)
	cmd := exec.CommandContext(ctx, m.ffmpeg(), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &decode.LimitedWriter{W: &stderr, N: decode.StderrLimit}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return MixResult{}, ctx.Err()
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return MixResult{}, &BuildError{Code: CodeCorrupt, Detail: "The video could not be rendered: " + firstLine(stderr.String())}
		}
		return MixResult{}, fmt.Errorf("render: ffmpeg: %w", err)
	}
	return MixResult{Seconds: length, CopiedVideo: copied}, nil
}

// mixFilter is the filter graph: both sources as 48 kHz stereo floats,
// each at its volume and padded with silence (either may end before the
// picture), summed without scaling, cut to the video's length, faded out
// and limited. The sum is amerge's four channels panned back to two, not
// amix: amix scales its inputs down unless told normalize=0, an option
// ffmpeg gained in 4.4, and the Lambda layer's pinned static build is 4.1
// (TestMixProbesAndLevels runs on it too).
func mixFilter(video, track decode.Media, p Params, length float64) string {
	fade := min(FadeOut, length)
	tail := fmt.Sprintf("atrim=0:%s,afade=t=out:st=%s:d=%s,alimiter=limit=%g:level=disabled[mix]",
		sec(length), sec(length-fade), sec(fade), peakLimit)
	t := fmt.Sprintf("[1:a:0]%s,volume=%s,apad", stereo(track), num(p.TrackVolume))
	if !video.Audio {
		return t + "," + tail
	}
	return fmt.Sprintf("[0:a:0]%s,volume=%s,apad[v];%s[t];[v][t]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c3,%s",
		stereo(video), num(p.VideoVolume), t, tail)
}

// stereo converts a source to 48 kHz stereo floats. A mono source goes to
// both channels at full level (ffmpeg's own upmix would put it 3 dB down,
// as a centre channel).
func stereo(m decode.Media) string {
	const format = "aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo"
	if m.Channels == 1 {
		return "pan=stereo|c0=c0|c1=c0," + format
	}
	return format
}

func sec(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// inputError turns a probe failure of the upload into a BuildError when
// it is the input's fault.
func inputError(err error, detail string) error {
	if errors.Is(err, decode.ErrCorrupt) {
		return &BuildError{Code: CodeCorrupt, Detail: detail}
	}
	return err
}
