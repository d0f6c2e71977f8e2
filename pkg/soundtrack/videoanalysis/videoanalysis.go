package videoanalysis

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/audio/musicdetect"
	"musiccatalog/pkg/soundtrack"
)

// version must change whenever what Analyze computes changes, so that
// cached analyses are redone.
const version = "video-3" // 3: music ranges refined to the frame (musicdetect refine.go)

// Picture sampling: scene scores of frames sampled at sampleFPS from a
// sceneWidth-pixel-wide copy. Scores compare neighbouring samples, so a
// fixed rate keeps them comparable between 24, 30 and 60 fps sources, and
// the small copy keeps a minute of video under a second of CPU.
const (
	sampleFPS  = 10
	sceneWidth = 160
	// cutScore: a sample at least this different from the previous one is
	// a cut (ffmpeg's own scene filter suggests 0.3–0.4).
	cutScore = 0.3
	// minCutGap: cuts closer than this are one transition (a dissolve or
	// a flash spans a few samples).
	minCutGap = 0.5
)

// Analyzer is the soundtrack.Analyzer of the audio engine and ffmpeg.
type Analyzer struct {
	// FFmpegPath is the ffmpeg binary ("/opt/bin/ffmpeg" in Lambda).
	FFmpegPath string
	// MaxSeconds bounds the analyzed part of the media (default
	// soundtrack.MaxAnalysisSeconds).
	MaxSeconds float64
	// TempDir is for ffmpeg's spooled output (default os.TempDir()).
	TempDir string
	// Identifier, when set, names the catalog track the audio comes from
	// (fingerprints survive speech over the music and re-encoding, where
	// the features of a short excerpt may not single the track out).
	Identifier soundtrack.Identifier
}

var _ soundtrack.Analyzer = Analyzer{}

// Version names what Analyze computes.
func (Analyzer) Version() string { return version }

func (a Analyzer) ffmpeg() string {
	if a.FFmpegPath == "" {
		return "ffmpeg"
	}
	return a.FFmpegPath
}

func (a Analyzer) maxSeconds() float64 {
	if a.MaxSeconds <= 0 {
		return soundtrack.MaxAnalysisSeconds
	}
	return a.MaxSeconds
}

// Analyze decodes the audio of path and describes its music; with
// picture it also measures the picture's pace. The two ffmpeg runs go in
// parallel (a Lambda with 1769 MB or more has two vCPUs).
func (a Analyzer) Analyze(ctx context.Context, path string, picture bool) (soundtrack.Analysis, error) {
	out := soundtrack.Analysis{Version: version}
	dec := decode.Decoder{FFmpegPath: a.FFmpegPath, MinSeconds: features.MinSeconds, TempDir: a.TempDir}
	media, err := dec.Probe(ctx, path)
	if err != nil {
		return soundtrack.Analysis{}, err
	}
	var (
		wg     sync.WaitGroup
		pic    *soundtrack.Picture
		picErr error
	)
	if picture && media.Video {
		wg.Go(func() {
			defer recoverTo(&picErr)
			pic, picErr = a.Picture(ctx, media)
		})
	}
	pcm, err := dec.DecodeMedia(ctx, media, 0, a.maxSeconds())
	if err == nil {
		err = a.describeAudio(pcm, &out)
	}
	if err == nil && a.Identifier != nil {
		out.CatalogTrackID, err = a.Identifier.Identify(ctx, pcm)
	}
	wg.Wait()
	if err != nil {
		return soundtrack.Analysis{}, err
	}
	if picErr != nil {
		if ctx.Err() != nil {
			return soundtrack.Analysis{}, ctx.Err()
		}
		return soundtrack.Analysis{}, picErr
	}
	out.Picture = pic
	return out, nil
}

// recoverTo turns a panic of the goroutine it is deferred in into an
// error: the router's recover does not reach other goroutines, and a
// panic there would end the process.
func recoverTo(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("videoanalysis: panic: %v", p)
	}
}

// describeAudio keeps the music of pcm (dropping speech, silence and
// noise, which would pull the features away from any catalog track) and
// analyzes it. Audio with no music gives no Music, which is not an error:
// the picture can still suggest music.
func (a Analyzer) describeAudio(pcm audio.PCM, out *soundtrack.Analysis) error {
	out.Seconds = pcm.Seconds()
	music := MusicOnly(pcm)
	out.MusicSeconds = music.Seconds()
	if out.MusicSeconds < features.MinSeconds {
		return nil
	}
	f, err := features.Analyze(music)
	if errors.Is(err, features.ErrTooShort) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("videoanalysis: features: %w", err)
	}
	f.Beats, f.Energy, f.Sections = nil, nil, nil // not used for ranking; keeps the cached analysis small
	out.Music = &f
	return nil
}

// MusicOnly joins the stretches of pcm that musicdetect finds to hold music.
func MusicOnly(pcm audio.PCM) audio.PCM {
	ranges := musicdetect.Detect(pcm, musicdetect.Options{})
	out := audio.PCM{Rate: pcm.Rate}
	for _, r := range ranges {
		lo := int(r.StartMs * int64(pcm.Rate) / 1000)
		hi := min(int(r.EndMs*int64(pcm.Rate)/1000), len(pcm.Samples))
		if lo < hi {
			out.Samples = append(out.Samples, pcm.Samples[lo:hi]...)
		}
	}
	return out
}

// Picture measures the pace of the first video stream of a probed file;
// nil, nil when the file has no picture.
func (a Analyzer) Picture(ctx context.Context, media decode.Media) (*soundtrack.Picture, error) {
	filter := fmt.Sprintf("fps=%d,scale=%d:-2,select='gte(scene\\,0)',metadata=print:key=lavfi.scene_score:file=-", sampleFPS, sceneWidth)
	args := append([]string{"-nostdin", "-hide_banner", "-nostats", "-loglevel", "error",
		"-t", strconv.FormatFloat(a.maxSeconds(), 'f', 3, 64)}, media.InputArgs(0)...)
	args = append(args, "-map", "0:v:0?", "-an", "-sn", "-dn", "-vf", filter, "-f", "null", "-")
	cmd := exec.CommandContext(ctx, a.ffmpeg(), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &decode.LimitedWriter{W: &stderr, N: decode.StderrLimit}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("videoanalysis: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("videoanalysis: start ffmpeg: %w", err)
	}
	scores, times, perr := parseSceneScores(stdout)
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if perr != nil {
		return nil, perr
	}
	if len(scores) == 0 {
		// No video stream (or one ffmpeg cannot decode, which the audio
		// decoding judges): no picture to describe.
		return nil, nil
	}
	if werr != nil && len(scores) < 2 {
		return nil, fmt.Errorf("videoanalysis: ffmpeg: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return Pace(scores, times), nil
}

// parseSceneScores reads the metadata filter's "frame:N pts:P pts_time:T"
// and "lavfi.scene_score=S" lines.
func parseSceneScores(r io.Reader) (scores, times []float64, err error) {
	sc := bufio.NewScanner(r)
	t := 0.0
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "lavfi.scene_score="); ok {
			s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return nil, nil, fmt.Errorf("videoanalysis: scene score %q: %w", v, err)
			}
			scores, times = append(scores, s), append(times, t)
			continue
		}
		if _, rest, ok := strings.Cut(line, "pts_time:"); ok {
			// "pts_time:" may end the line (or be followed by nothing
			// readable): the time stays the previous one.
			if f := strings.Fields(rest); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					t = v
				}
			}
		}
	}
	return scores, times, sc.Err()
}

// Pace turns per-sample scene scores (with their times in seconds) into
// cuts, cut rate and motion.
func Pace(scores, times []float64) *soundtrack.Picture {
	p := &soundtrack.Picture{Frames: len(scores)}
	if len(scores) == 0 {
		return p
	}
	p.Seconds = times[len(times)-1] - times[0] + 1.0/sampleFPS
	lastCut := -minCutGap - 1
	var motion float64
	var still int
	for i, s := range scores {
		if i == 0 {
			continue // the first sample has nothing to differ from
		}
		if s >= cutScore {
			if times[i]-lastCut >= minCutGap {
				p.Cuts++
			}
			lastCut = times[i]
			continue
		}
		motion += s
		still++
	}
	if still > 0 {
		p.Motion = motion / float64(still)
	}
	if p.Seconds > 0 {
		p.CutsPerMinute = float64(p.Cuts) * 60 / p.Seconds
	}
	return p
}
