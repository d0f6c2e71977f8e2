package acrcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/outside"
)

var _ outside.Recognizer = (*Client)(nil)

// maxResponse bounds how much of a response is read.
const maxResponse = 1 << 20

// Client calls one ACRCloud project.
type Client struct {
	endpoint    string
	key, secret string
	http        *http.Client
	now         func() time.Time
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: 30-s timeout).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithClock sets the clock that timestamps requests.
func WithClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// New returns a Client for the project at host, a base URL such as
// https://identify-eu-west-1.acrcloud.com (a bare host name means https).
func New(host, accessKey, secret string, opts ...Option) (*Client, error) {
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("acrcloud: host %q: want a base URL like https://identify-eu-west-1.acrcloud.com", host)
	}
	if accessKey == "" || secret == "" {
		return nil, errors.New("acrcloud: access key and secret are required")
	}
	c := &Client{
		endpoint: strings.TrimSuffix(u.String(), "/") + IdentifyPath,
		key:      accessKey, secret: secret,
		http: &http.Client{Timeout: 30 * time.Second},
		now:  time.Now,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Identify sends sample to the identify endpoint.
func (c *Client) Identify(ctx context.Context, sample []byte) (*outside.Match, error) {
	body, contentType, err := c.form(sample)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, body)
	if err != nil {
		return nil, fmt.Errorf("acrcloud: %w", err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("acrcloud: %w", ctx.Err())
		}
		return nil, fmt.Errorf("acrcloud: %w: %w", outside.ErrTransient, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, fmt.Errorf("acrcloud: read response: %w: %w", outside.ErrTransient, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, fmt.Errorf("acrcloud: HTTP %d: %w", resp.StatusCode, outside.ErrTransient)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("acrcloud: HTTP %d: %w", resp.StatusCode, outside.ErrRejected)
	}
	var r Response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("acrcloud: malformed response: %w: %w", outside.ErrTransient, err)
	}
	return result(r)
}

// form builds the multipart body of gaps.md.
func (c *Client) form(sample []byte) (io.Reader, string, error) {
	ts := strconv.FormatInt(c.now().Unix(), 10)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fields := [][2]string{
		{"access_key", c.key},
		{"sample_bytes", strconv.Itoa(len(sample))},
		{"timestamp", ts},
		{"signature", Signature(c.secret, c.key, DataType, SignatureVersion, ts)},
		{"data_type", DataType},
		{"signature_version", SignatureVersion},
	}
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return nil, "", fmt.Errorf("acrcloud: %w", err)
		}
	}
	part, err := w.CreateFormFile("sample", "sample")
	if err != nil {
		return nil, "", fmt.Errorf("acrcloud: %w", err)
	}
	part.Write(sample)
	if err := w.Close(); err != nil {
		return nil, "", fmt.Errorf("acrcloud: %w", err)
	}
	return &buf, w.FormDataContentType(), nil
}

func result(r Response) (*outside.Match, error) {
	switch r.Status.Code {
	case CodeSuccess:
	case CodeNoResult:
		return nil, nil
	case CodeLimitExceeded, CodeRateLimited, CodeInternalServerErr:
		return nil, fmt.Errorf("acrcloud: %d %s: %w", r.Status.Code, r.Status.Msg, outside.ErrTransient)
	default: // 3001, 3014, 3016 and anything not documented
		return nil, fmt.Errorf("acrcloud: %d %s: %w", r.Status.Code, r.Status.Msg, outside.ErrRejected)
	}
	if r.Metadata == nil || len(r.Metadata.Music) == 0 {
		return nil, nil
	}
	m := r.Metadata.Music[0]
	out := &outside.Match{Title: m.Title, Label: m.Label, Score: m.Score, PlayOffsetMs: m.PlayOffsetMs, DurationMs: m.DurationMs}
	names := make([]string, 0, len(m.Artists))
	for _, a := range m.Artists {
		if a.Name != "" {
			names = append(names, a.Name)
		}
	}
	out.Artist = strings.Join(names, ", ")
	if m.Album != nil {
		out.Album = m.Album.Name
	}
	if m.ExternalIDs != nil && len(m.ExternalIDs.ISRC) > 0 {
		out.ISRC = m.ExternalIDs.ISRC[0]
	}
	return out, nil
}
