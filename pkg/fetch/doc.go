// Package fetch holds the VideoFetcher adapters of DESIGN.md §3: they fetch
// the media behind a link for the soundtrack and search domains.
//
//   - YTDLP runs yt-dlp for platform pages (YouTube, Vimeo, SoundCloud, …),
//     where the media is not at the link itself.
//   - Direct downloads a link that serves the media itself.
//
// Links reach them already checked against the platform allowlist
// (soundtrack.ParseLink). Both enforce the address rule themselves: a
// Guard resolves every host and refuses loopback, private, link-local and
// other non-public addresses before any connection is made, then dials the
// checked address so that DNS rebinding cannot change it. yt-dlp does its
// own networking, so it is pointed at a Proxy on loopback whose upstream
// connections go through the same Guard.
//
// Failures are *errs.Error values with an error_code the client can act
// on (see errors.go): a blocked address is a 400, media the platform
// refuses or that is too large a 422, an unreachable platform a 502.
package fetch
