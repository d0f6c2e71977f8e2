package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"musiccatalog/pkg/soundtrack"
)

// Direct fetches a link that serves the media itself (an .mp4 or .mp3
// behind plain HTTP(S)) with a Guard on every connection, redirects
// included. Platform pages are HTML and need yt-dlp; Direct is the
// fetcher where the media is at the link, and the one the tests run.
type Direct struct {
	Guard *Guard
	// MaxBytes bounds the download (default soundtrack.MaxFileSize).
	MaxBytes int64
	// Timeout bounds the whole fetch (default 60 s).
	Timeout time.Duration
	// TLS is the client TLS configuration (tests trust their own CA).
	TLS *tls.Config
}

var _ soundtrack.VideoFetcher = (*Direct)(nil)

// maxRedirects follows as many redirects as a browser would need for a
// media link (short link → page → CDN), no more.
const maxRedirects = 5

func (d *Direct) client() *http.Client {
	tr := &http.Transport{
		DialContext:           d.Guard.DialContext,
		TLSClientConfig:       d.TLS,
		ResponseHeaderTimeout: 20 * time.Second,
		DisableCompression:    true,
		Proxy:                 nil, // never an environment proxy: the guard must see the real host
	}
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return errors.New("too many redirects")
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to a %s URL", req.URL.Scheme)
		}
		return nil
	}}
}

// Fetch downloads the link into dir.
func (d *Direct) Fetch(ctx context.Context, link soundtrack.Link, dir string, audioOnly bool) (soundtrack.FetchedMedia, error) {
	const op = "fetch.Direct"
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	max := d.MaxBytes
	if max <= 0 {
		max = soundtrack.MaxFileSize
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link.URL, nil)
	if err != nil {
		return soundtrack.FetchedMedia{}, notMedia(op, err)
	}
	req.Header.Set("Accept", "video/*, audio/*;q=0.9")
	cl := d.client()
	defer cl.CloseIdleConnections()
	resp, err := cl.Do(req)
	if err != nil {
		return soundtrack.FetchedMedia{}, classify(op, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return soundtrack.FetchedMedia{}, unreachable(op, fmt.Errorf("status %d", resp.StatusCode))
	default:
		return soundtrack.FetchedMedia{}, unavailableMedia(op,
			fmt.Sprintf("The linked video is not available (the platform answered %d).", resp.StatusCode), nil)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !strings.HasPrefix(mt, "video/") && !strings.HasPrefix(mt, "audio/") && mt != "application/octet-stream" {
		return soundtrack.FetchedMedia{}, notMedia(op, fmt.Errorf("content type %q", mt))
	}
	if resp.ContentLength > max {
		return soundtrack.FetchedMedia{}, tooLarge(op, max)
	}
	f, err := os.CreateTemp(dir, "fetched-*")
	if err != nil {
		return soundtrack.FetchedMedia{}, fmt.Errorf("%s: %w", op, err)
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, max+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return soundtrack.FetchedMedia{}, classify(op, ctx.Err())
	case err != nil:
		return soundtrack.FetchedMedia{}, unreachable(op, err)
	case n > max:
		return soundtrack.FetchedMedia{}, tooLarge(op, max)
	case n == 0:
		return soundtrack.FetchedMedia{}, notMedia(op, errors.New("empty body"))
	}
	return soundtrack.FetchedMedia{Path: f.Name(), Title: titleOf(resp)}, nil
}

// titleOf is the file name the server gives, else the last path segment,
// without extension.
func titleOf(resp *http.Response) string {
	name := ""
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		name = params["filename"]
	}
	if name == "" {
		name = path.Base(resp.Request.URL.Path)
	}
	name = strings.TrimSuffix(filepath.Base(name), path.Ext(name))
	if name == "." || name == "/" {
		return ""
	}
	return name
}
