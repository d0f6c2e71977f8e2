package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/soundtrack"
)

// YTDLP fetches platform pages with yt-dlp. All of yt-dlp's traffic goes
// through a guarded Proxy, so CDN redirects and any other connection it
// makes obey the same address rules as the link itself.
type YTDLP struct {
	// Path is the yt-dlp binary ("/opt/bin/yt-dlp" in Lambda).
	Path string
	// FFmpegPath lets yt-dlp remux what it downloads.
	FFmpegPath string
	Guard      *Guard
	// MaxBytes bounds the download (default soundtrack.MaxFileSize).
	MaxBytes int64
	// Timeout bounds one fetch (default 60 s).
	Timeout time.Duration
}

var _ soundtrack.VideoFetcher = (*YTDLP)(nil)

// Formats: a single file (no merging step), small: the analysis decodes
// mono audio at 11 kHz and samples the picture at 160 px. Every
// alternative carries httpOnly: formats served over HLS through ffmpeg,
// RTMP, RTSP, websockets or any other protocol would be downloaded by
// another program that ignores --proxy, and so past the Guard.
const (
	httpOnly    = "[protocol^=http]"
	audioFormat = "bestaudio" + httpOnly + "[filesize<?60M]/worstaudio" + httpOnly +
		"/best" + httpOnly + "[height<=480]/best" + httpOnly
	videoFormat = "best" + httpOnly + "[height<=480][filesize<?60M]/best" + httpOnly + "[height<=720]/best" + httpOnly
)

// Args are the yt-dlp arguments of one fetch, exported for tests.
func (y *YTDLP) Args(link soundtrack.Link, dir, proxy string, audioOnly bool) []string {
	format := videoFormat
	if audioOnly {
		format = audioFormat
	}
	max := y.maxBytes()
	args := []string{
		"--ignore-config", "--no-cache-dir", "--no-playlist", "--no-progress", "--no-warnings",
		"--proxy", proxy, "--socket-timeout", "15", "--retries", "2",
		"--match-filter", "!is_live", "--max-filesize", strconv.FormatInt(max, 10),
		"-f", format, "-o", filepath.Join(dir, "media.%(ext)s"),
		"--print", "after_move:%(.{title,filepath})j",
	}
	if y.FFmpegPath != "" {
		args = append(args, "--ffmpeg-location", y.FFmpegPath)
	}
	return append(args, "--", link.Canonical)
}

func (y *YTDLP) maxBytes() int64 {
	if y.MaxBytes <= 0 {
		return soundtrack.MaxFileSize
	}
	return y.MaxBytes
}

// Fetch runs yt-dlp for the link.
func (y *YTDLP) Fetch(ctx context.Context, link soundtrack.Link, dir string, audioOnly bool) (soundtrack.FetchedMedia, error) {
	const op = "fetch.YTDLP"
	timeout := y.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	proxy, err := StartProxy(y.Guard)
	if err != nil {
		return soundtrack.FetchedMedia{}, fmt.Errorf("%s: %w", op, err)
	}
	defer proxy.Close()
	cmd := exec.CommandContext(ctx, y.Path, y.Args(link, dir, proxy.URL(), audioOnly)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8"} // no proxy or config from the environment
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limited{b: &stderr, n: 16 << 10}
	runErr := cmd.Run()
	if be := proxy.Blocked(); be != nil {
		return soundtrack.FetchedMedia{}, blocked(op, be)
	}
	if ctx.Err() != nil {
		return soundtrack.FetchedMedia{}, classify(op, ctx.Err())
	}
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return soundtrack.FetchedMedia{}, fmt.Errorf("%s: run yt-dlp: %w", op, runErr) // not installed: our fault
		}
		return soundtrack.FetchedMedia{}, classifyYTDLP(op, stderr.String())
	}
	var out struct {
		Title    string `json:"title"`
		Filepath string `json:"filepath"`
	}
	line := lastLine(stdout.String())
	if line == "" || json.Unmarshal([]byte(line), &out) != nil || out.Filepath == "" {
		// yt-dlp skips, with success, what --max-filesize or the match
		// filter rules out.
		if strings.Contains(stderr.String()+stdout.String(), "max-filesize") {
			return soundtrack.FetchedMedia{}, tooLarge(op, y.maxBytes())
		}
		return soundtrack.FetchedMedia{}, unavailableMedia(op, "The linked video could not be downloaded (live streams and playlists are not supported).", nil)
	}
	st, err := os.Stat(out.Filepath)
	if err != nil || !strings.HasPrefix(filepath.Clean(out.Filepath), filepath.Clean(dir)+string(filepath.Separator)) {
		return soundtrack.FetchedMedia{}, fmt.Errorf("%s: yt-dlp reported %q: %v", op, out.Filepath, err)
	}
	if st.Size() > y.maxBytes() {
		return soundtrack.FetchedMedia{}, tooLarge(op, y.maxBytes())
	}
	return soundtrack.FetchedMedia{Path: out.Filepath, Title: out.Title}, nil
}

// classifyYTDLP reads yt-dlp's "ERROR: ..." line: the platform refusing
// this video is the client's problem (422); anything about the network is
// the platform's (502).
func classifyYTDLP(op, stderr string) error {
	msg := ""
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "ERROR:") {
			msg = strings.TrimSpace(strings.TrimPrefix(l, "ERROR:"))
		}
	}
	cause := errors.New("yt-dlp: " + strings.TrimSpace(stderr))
	low := strings.ToLower(msg)
	for _, s := range []string{"unable to download", "timed out", "connection", "network", "temporary failure", "http error 5", "tunnel", "proxy"} {
		if strings.Contains(low, s) && !strings.Contains(low, "http error 4") {
			return unreachable(op, cause)
		}
	}
	for _, s := range []string{"unavailable", "private", "not available", "removed", "http error 4", "sign in", "age", "copyright", "does not exist", "unsupported url"} {
		if strings.Contains(low, s) {
			return unavailableMedia(op, "The linked video is not available: "+clip(msg, 200), cause)
		}
	}
	return unavailableMedia(op, "The linked video could not be downloaded.", cause)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// limited keeps the first n bytes written to it.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
