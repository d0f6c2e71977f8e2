package soundtrack

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// Link is a link to a page on one of the allowlisted platforms.
type Link struct {
	// URL is the link as the client wrote it (trimmed): what source_value
	// echoes.
	URL string
	// Platform is "youtube", "vimeo", "soundcloud", "spotify",
	// "apple_music" or "tiktok".
	Platform string
	// Canonical names the same page whatever form the link took
	// (youtu.be/X and youtube.com/watch?v=X; tracking parameters dropped),
	// so that analyses are cached once per page.
	Canonical string
	// VideoID is the YouTube video id ("" on other platforms).
	VideoID string
}

// platformHosts are the hosts of the platforms gaps.md allows for by-url
// and by-video links, with their subdomains; a fetcher never receives a
// link to any other host.
var platformHosts = map[string]string{
	"youtube.com":     "youtube",
	"youtu.be":        "youtube",
	"vimeo.com":       "vimeo",
	"soundcloud.com":  "soundcloud",
	"spotify.com":     "spotify",
	"music.apple.com": "apple_music",
	"tiktok.com":      "tiktok",
}

// Platforms lists the platform names, for error messages.
var Platforms = []string{"YouTube", "Vimeo", "SoundCloud", "Spotify", "Apple Music", "TikTok"}

var (
	errNotALink       = errors.New("not an http(s) link")
	errPlatform       = errors.New("not a supported platform")
	errNotAPage       = errors.New("not a page of the platform")
	youtubeIDRE       = regexp.MustCompile(`^[A-Za-z0-9_-]{11}$`)
	youtubePathPrefix = []string{"/shorts/", "/embed/", "/live/", "/v/"}
)

// ParseLink checks that raw is an http(s) link to a page on an allowlisted
// platform. Credentials and non-default ports are refused: a platform link
// has neither, and both are ways to aim a fetcher somewhere else.
func ParseLink(raw string) (Link, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return Link{}, errNotALink
	}
	if p := u.Port(); p != "" && p != "443" && p != "80" {
		return Link{}, errNotALink
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	platform := ""
	for h, name := range platformHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			platform = name
			break
		}
	}
	if platform == "" {
		return Link{}, errPlatform
	}
	l := Link{URL: raw, Platform: platform}
	if platform == "youtube" {
		id, ok := youtubeVideoID(host, u)
		if !ok {
			return Link{}, errNotAPage
		}
		l.VideoID = id
		l.Canonical = "https://www.youtube.com/watch?v=" + id
		return l, nil
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if path == "" {
		return Link{}, errNotAPage
	}
	for _, p := range []string{"www.", "m."} {
		host = strings.TrimPrefix(host, p)
	}
	l.Canonical = "https://" + host + path
	return l, nil
}

// ParseYouTubeVideo accepts only links to one YouTube video: the links
// the soundtrack upload takes (its 400 asks for "a valid YouTube URL").
func ParseYouTubeVideo(raw string) (Link, error) {
	l, err := ParseLink(raw)
	if err != nil {
		return Link{}, err
	}
	if l.Platform != "youtube" {
		return Link{}, errPlatform
	}
	return l, nil
}

// youtubeVideoID finds the video id in watch?v=, youtu.be/, /shorts/,
// /embed/, /live/ and /v/ links.
func youtubeVideoID(host string, u *url.URL) (string, bool) {
	id := ""
	switch {
	case host == "youtu.be" || strings.HasSuffix(host, ".youtu.be"):
		id = strings.Trim(u.Path, "/")
	case u.Path == "/watch":
		id = u.Query().Get("v")
	default:
		for _, p := range youtubePathPrefix {
			if rest, ok := strings.CutPrefix(u.Path, p); ok {
				id, _, _ = strings.Cut(rest, "/")
			}
		}
	}
	return id, youtubeIDRE.MatchString(id)
}
