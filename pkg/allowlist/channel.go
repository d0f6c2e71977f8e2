package allowlist

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Channel is an allowlist entry (interface.md §2.8).
type Channel struct {
	ID        string `json:"id"`
	ChannelID string `json:"channel_id"`
	Name      string `json:"name"`
	Provider  string `json:"provider"`
	ImageURL  string `json:"image_url"`
}

// platform describes how one provider names channels.
type platform struct {
	hosts []string
	// idRE validates a channel id given directly.
	idRE *regexp.Regexp
	// fromPath extracts the channel id from a channel page path's segments.
	fromPath func(segs []string) (string, bool)
	// caseSensitive reports whether the platform tells ids apart by case
	// (YouTube's UC… ids); handles and user names are not.
	caseSensitive func(id string) bool
}

var (
	youtubeID   = regexp.MustCompile(`^(UC[0-9A-Za-z_-]{22}|@[0-9A-Za-z_.-]{3,30})$`)
	twitchID    = regexp.MustCompile(`^[0-9A-Za-z_]{4,25}$`)
	tiktokID    = regexp.MustCompile(`^@[0-9A-Za-z_.]{2,24}$`)
	instagramID = regexp.MustCompile(`^[0-9A-Za-z_.]{1,30}$`)
	facebookID  = regexp.MustCompile(`^[0-9A-Za-z.]{5,50}$`)
	vimeoID     = regexp.MustCompile(`^[A-Za-z][0-9A-Za-z_]{1,40}$`)
)

// platforms are the supported providers, keyed by their lowercase name.
var platforms = map[string]platform{
	"youtube": {hosts: []string{"youtube.com", "m.youtube.com", "music.youtube.com"}, idRE: youtubeID,
		caseSensitive: func(id string) bool { return !strings.HasPrefix(id, "@") },
		fromPath: func(s []string) (string, bool) {
			switch {
			case len(s) >= 2 && s[0] == "channel":
				return s[1], true
			case len(s) >= 1 && strings.HasPrefix(s[0], "@"):
				return s[0], true
			}
			return "", false
		}},
	"twitch": {hosts: []string{"twitch.tv", "m.twitch.tv"}, idRE: twitchID, fromPath: first(reserved("directory", "videos", "search", "settings"))},
	"tiktok": {hosts: []string{"tiktok.com", "m.tiktok.com"}, idRE: tiktokID,
		fromPath: func(s []string) (string, bool) {
			if len(s) >= 1 && strings.HasPrefix(s[0], "@") {
				return s[0], true
			}
			return "", false
		}},
	"instagram": {hosts: []string{"instagram.com"}, idRE: instagramID, fromPath: first(reserved("p", "reel", "reels", "explore", "stories", "accounts"))},
	"facebook":  {hosts: []string{"facebook.com", "m.facebook.com", "fb.com"}, idRE: facebookID, fromPath: first(reserved("watch", "groups", "events", "profile.php", "share"))},
	"vimeo":     {hosts: []string{"vimeo.com"}, idRE: vimeoID, fromPath: first(reserved("channels", "groups", "showcase", "categories", "search"))},
}

func reserved(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

// first takes the first path segment unless it is a reserved word.
func first(res map[string]bool) func([]string) (string, bool) {
	return func(s []string) (string, bool) {
		if len(s) == 0 || res[strings.ToLower(s[0])] {
			return "", false
		}
		return s[0], true
	}
}

// IdentityOf is the form of a channel id that tells channels apart: ids
// the platform reads without regard to case are lower-cased, so
// "@GoogleDevelopers" and "@googledevelopers" are one channel.
func IdentityOf(provider, channelID string) string {
	if p, ok := platforms[provider]; ok && p.caseSensitive != nil && p.caseSensitive(channelID) {
		return channelID
	}
	return strings.ToLower(channelID)
}

// Providers lists the supported provider names, for error messages.
func Providers() []string {
	return []string{"facebook", "instagram", "tiktok", "twitch", "vimeo", "youtube"}
}

// ParseChannelURL finds the provider and channel id of a channel page URL.
func ParseChannelURL(raw string) (provider, channelID string, err error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", "", fmt.Errorf("Enter a valid URL.")
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	var segs []string
	for _, s := range strings.Split(u.Path, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if (host == "facebook.com" || host == "m.facebook.com") && len(segs) == 1 && segs[0] == "profile.php" {
		segs = []string{u.Query().Get("id")} // numeric profile ids live in the query
	}
	for name, p := range platforms {
		for _, h := range p.hosts {
			if host != h {
				continue
			}
			id, ok := p.fromPath(segs)
			if !ok || !p.idRE.MatchString(id) {
				return "", "", fmt.Errorf("This %s URL does not point to a channel.", name)
			}
			return name, id, nil
		}
	}
	return "", "", fmt.Errorf("Unsupported platform; supported: %s.", strings.Join(Providers(), ", "))
}

// ValidateChannelID checks a provider name and a channel id given directly.
// It returns the field that is wrong and why.
func ValidateChannelID(provider, channelID string) (field, msg string) {
	p, ok := platforms[provider]
	if !ok {
		return "provider", fmt.Sprintf("%q is not a valid choice; supported: %s.", provider, strings.Join(Providers(), ", "))
	}
	if !p.idRE.MatchString(channelID) {
		return "channel_id", fmt.Sprintf("Not a valid %s channel id.", provider)
	}
	return "", ""
}
