package app

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/soundtrack"
)

// hlsPlaylist is a 210-byte-class HLS playlist naming a media file on the
// server's own disk.
func hlsPlaylist(target string) []byte {
	return []byte("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:30\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:30.0,\n" +
		target + "\n#EXT-X-ENDLIST\n")
}

// TestPlaylistUploadedAsVideoIsCorruptMedia: a playlist naming a local
// media file, uploaded as x.mp4, is corrupt_media for recognition and for
// the soundtrack upload; the file it names is never decoded.
func TestPlaylistUploadedAsVideoIsCorruptMedia(t *testing.T) {
	needFFmpeg(t)
	_, _, c := partnerClient(t)
	secret := filepath.Join(t.TempDir(), "track.mp3")
	stFFmpeg(t, "-f", "lavfi", "-i", "sine=f=440:d=30", secret)
	playlist := hlsPlaylist(secret)

	ct, body := multipartFile(t, "x.mp4", playlist, nil)
	r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}})
	if r.Status != 201 {
		t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	job := pollJob(t, c, r.Map(t)["job_id"].(string), 60*time.Second)
	if job["status"] != "failed" || job["error_code"] != "corrupt_media" {
		t.Errorf("recognition of a playlist: %v", job)
	}
	r = postFile(c, "x.mp4", playlist, nil, t)
	if m := r.Map(t); r.Status != 422 || m["error_code"] != "corrupt_media" {
		t.Errorf("soundtrack upload of a playlist: %d %s", r.Status, r.Body)
	}
}

// captureDeps is newTestDeps with the log kept, to tell 400s from logged
// errors.
func captureDeps(t *testing.T, opts ...func(*Config)) (*Deps, DemoCredentials, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	d, creds := openTestDeps(t, logs, opts...)
	return d, creds, logs
}

type syncBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.lock()
	defer s.unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string { s.lock(); defer s.unlock(); return s.buf.String() }
func (s *syncBuffer) lock() {
	if s.mu == nil {
		s.mu = make(chan struct{}, 1)
	}
	s.mu <- struct{}{}
}
func (s *syncBuffer) unlock() { <-s.mu }

// TestTruncatedMultipartIs400: a multipart body cut off before its
// closing boundary is the client's error (400), not a 500, and logs no
// error; nothing is stored.
func TestTruncatedMultipartIs400(t *testing.T) {
	d, creds, logs := captureDeps(t)
	c := apitest.New(t, d.LocalHandler())
	c.Token = creds.Partner.Key
	video := bytes.Repeat([]byte("0123456789"), 50_000)
	for _, path := range []string{recognitionPath, soundtrackPath} {
		ct, body := multipartFile(t, "clip.mp4", video, nil)
		for _, cut := range []int{len(body) - 8, len(body) / 2} { // without the closing boundary; mid-file
			r := c.Do(apitest.Request{Method: "POST", Path: path, Body: body[:cut], Header: map[string]string{"Content-Type": ct}})
			if r.Status != 400 || r.Map(t)["detail"] != "Malformed multipart body." {
				t.Errorf("%s cut at %d of %d: %d %s", path, cut, len(body), r.Status, r.Body)
			}
		}
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", logs)
	}
	for _, prefix := range []string{"video-recognition/", soundtrack.UploadPrefix} {
		if objs, _ := d.Blob.List(context.Background(), prefix); len(objs) != 0 {
			t.Errorf("%d objects left under %s", len(objs), prefix)
		}
	}
}

// countingBody is an endless stream of bytes that counts what is read.
type countingBody struct {
	n, limit int64
	read     *atomic.Int64
	head     []byte
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.n >= b.limit {
		return 0, io.EOF
	}
	k := int64(len(p))
	if k > b.limit-b.n {
		k = b.limit - b.n
	}
	for i := range p[:k] {
		if j := b.n + int64(i); j < int64(len(b.head)) {
			p[i] = b.head[j]
		} else {
			p[i] = 'x'
		}
	}
	b.n += k
	b.read.Add(k)
	return int(k), nil
}

// TestOversizeUploadsOneAnswer: an upload over the limit gets 400
// {"file": ["File size cannot exceed …"]} with or without Content-Length,
// and a Content-Length over the limit is answered without reading the body,
// with an Idempotency-Key as without.
func TestOversizeUploadsOneAnswer(t *testing.T) {
	d, creds := newTestDeps(t)
	c := apitest.New(t, d.LocalHandler())
	post := func(path string, size int64, chunked bool) (int, string, int64) {
		t.Helper()
		head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.mp4\"\r\nContent-Type: video/mp4\r\n\r\n"
		var read atomic.Int64
		req, _ := http.NewRequest("POST", c.Server.URL+path, &countingBody{limit: size, read: &read, head: []byte(head)})
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		req.Header.Set("Authorization", "Bearer "+creds.Partner.Key)
		// The limit applies before the idempotency fingerprint reads the body.
		req.Header.Set("Idempotency-Key", "oversize-"+strconv.FormatInt(size, 10))
		if !chunked {
			req.ContentLength = size
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), read.Load()
	}
	for _, tc := range []struct {
		path    string
		size    int64
		chunked bool
		msg     string
	}{
		{recognitionPath, 150_000_000, false, "File size cannot exceed 100 MB."},
		{recognitionPath, 5_000_000_000, false, "File size cannot exceed 100 MB."},
		{soundtrackPath, 150_000_000, false, "File size cannot exceed 60 MB."},
		{soundtrackPath, 62_000_000, true, "File size cannot exceed 60 MB."},
	} {
		status, body, read := post(tc.path, tc.size, tc.chunked)
		if want := `{"file":["` + tc.msg + `"]}`; status != 400 || strings.TrimSpace(body) != want {
			t.Errorf("%s %d bytes (chunked %v): %d %s; want 400 %s", tc.path, tc.size, tc.chunked, status, body, want)
		}
		if !tc.chunked && read > 10_000_000 {
			t.Errorf("%s: %d bytes read of a body announced too large", tc.path, read)
		}
	}
	if objs, _ := d.Blob.List(context.Background(), soundtrack.UploadPrefix); len(objs) != 0 {
		t.Errorf("%d objects left", len(objs))
	}
}

// TestSoundtrackUploadTexts: no body at all is gaps.md's "Either 'file'
// or 'url' must be provided." (with and without Content-Length), and the
// extension error quotes §4.1's list.
func TestSoundtrackUploadTexts(t *testing.T) {
	_, creds, c := partnerClient(t)
	if r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath}); r.Status != 400 || r.Map(t)["detail"] != soundtrack.MsgNeither {
		t.Errorf("no body: %d %s", r.Status, r.Body)
	}
	req, _ := http.NewRequest("POST", c.Server.URL+soundtrackPath, io.MultiReader(strings.NewReader(" \n")))
	req.Header.Set("Authorization", "Bearer "+creds.Partner.Key)
	req.ContentLength = -1 // chunked
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), soundtrack.MsgNeither) {
		t.Errorf("empty chunked body: %d %s", resp.StatusCode, b)
	}
	want := "Unsupported file extension. Allowed: .mov, .mpeg, .mp4, .avi."
	if r := postFile(c, "clip.mkv", []byte("x"), nil, t); r.Status != 400 || !strings.Contains(string(r.Body), want) {
		t.Errorf("extension: %d %s", r.Status, r.Body)
	}
	if r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath + "upload-url/", JSON: map[string]any{"filename": "clip.mkv"}}); r.Status != 400 || !strings.Contains(string(r.Body), want) {
		t.Errorf("upload-url extension: %d %s", r.Status, r.Body)
	}
	// Recognition keeps its own list (§8).
	ct, body := multipartFile(t, "clip.mkv", []byte("x"), nil)
	if r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}}); r.Status != 400 ||
		!strings.Contains(string(r.Body), "Allowed: .mp4, .mov, .avi, .mpeg.") {
		t.Errorf("recognition extension: %d %s", r.Status, r.Body)
	}
}

// TestBackslashFileName: a Windows path as the multipart file name stores
// a clean title, and the video reads fine afterwards.
func TestBackslashFileName(t *testing.T) {
	needFFmpeg(t)
	d, _, c := partnerClient(t)
	dir := t.TempDir()
	wav := filepath.Join(dir, "a.wav")
	stFFmpeg(t, "-f", "lavfi", "-i", "sine=f=440:d=8", wav)
	video := stVideo(t, dir, "v.mp4", wav, "testsrc2", 8)
	r := postFile(c, `C:\Users\me\evil\name.mp4`, video, nil, t)
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	m := r.Map(t)
	if m["source_title"] != "name.mp4" {
		t.Errorf("source_title %q", m["source_title"])
	}
	for range 2 {
		g := c.Do(apitest.Request{Method: "GET", Path: soundtrackPath + m["id"].(string) + "/"})
		if g.Status != 200 || g.Map(t)["file"] == nil {
			t.Fatalf("read: %d %s", g.Status, g.Body)
		}
		f := g.Map(t)["file"].(string)
		resp, err := http.Get(strings.Replace(f, "http://127.0.0.1:1", c.Server.URL, 1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if _, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); resp.StatusCode != 200 || params["filename"] != "name.mp4" {
			t.Errorf("file: %d %v", resp.StatusCode, resp.Header)
		}
	}
	ct, body := multipartFile(t, "evil\\clip\t.mp4", video, nil)
	if r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}}); r.Status != 201 {
		t.Errorf("recognition: %d %s", r.Status, r.Body)
	}
	objs, _ := d.Blob.List(context.Background(), "video-recognition/")
	if len(objs) != 1 || !strings.HasSuffix(objs[0].Key, "/clip.mp4") {
		t.Errorf("stored %v", objs)
	}
}

// TestSoundtrackAnalysesAreRateLimited: uploads and media searches share
// a per-client analysis rate.
func TestSoundtrackAnalysesAreRateLimited(t *testing.T) {
	d, creds := newTestDeps(t, func(c *Config) { c.RateAnalyses = 2 })
	c := apitest.New(t, d.LocalHandler())
	c.Token = creds.Partner.Key
	for i := range 2 {
		if r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{}}); r.Status != 400 {
			t.Fatalf("call %d: %d %s", i, r.Status, r.Body)
		}
	}
	r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{}})
	if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); r.Status != 429 || s < 1 {
		t.Errorf("third upload in a minute: %d %s %v", r.Status, r.Body, r.Header)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=0123456789abcdef0123456789abcdef"}); r.Status != 429 {
		t.Errorf("by-video after the analysis budget: %d %s", r.Status, r.Body)
	}
}
