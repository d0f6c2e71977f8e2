package blobtest

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/blob"
)

func presignGet(t *testing.T, s blob.Store, key string, d time.Duration, filename string) string {
	t.Helper()
	u, err := s.PresignGet(ctx(t), key, d, filename)
	if err != nil {
		t.Fatalf("PresignGet(%q): %v", key, err)
	}
	return u
}

func presignPut(t *testing.T, s blob.Store, key, contentType string, length int64, d time.Duration) string {
	t.Helper()
	u, err := s.PresignPut(ctx(t), key, contentType, length, d)
	if err != nil {
		t.Fatalf("PresignPut(%q): %v", key, err)
	}
	return u
}

func testPresignGet(t *testing.T, h Harness, s blob.Store) {
	data := randomBytes(7, 5000)
	put(t, s, oddKey, data, "audio/mpeg")
	a := head(t, s, oddKey)
	r := do(t, h, http.MethodGet, presignGet(t, s, oddKey, ttl, ""), "", nil, 0)
	wantStatus(t, "presigned GET", r, http.StatusOK)
	if !bytes.Equal(r.body, data) {
		t.Fatalf("presigned GET: got %d bytes, want %d", len(r.body), len(data))
	}
	for name, want := range map[string]string{
		"Content-Type":        "audio/mpeg",
		"Content-Length":      strconv.Itoa(len(data)),
		"ETag":                `"` + a.ETag + `"`,
		"Content-Disposition": "",
	} {
		if got := r.header.Get(name); got != want {
			t.Errorf("presigned GET: %s %q, want %q", name, got, want)
		}
	}
}

func testPresignGetRange(t *testing.T, h Harness, s blob.Store) {
	data := randomBytes(8, 100)
	put(t, s, "k", data, "audio/wav")
	u := presignGet(t, s, "k", ttl, "")
	for _, c := range []struct {
		rng        string
		from, to   int // inclusive
		wantHeader string
	}{
		{"bytes=10-19", 10, 19, "bytes 10-19/100"},
		{"bytes=95-", 95, 99, "bytes 95-99/100"},
		{"bytes=-3", 97, 99, "bytes 97-99/100"},
		{"bytes=90-1000", 90, 99, "bytes 90-99/100"},
	} {
		r := do(t, h, http.MethodGet, u, "", nil, 0, "Range", c.rng)
		wantStatus(t, "GET with Range "+c.rng, r, http.StatusPartialContent)
		if !bytes.Equal(r.body, data[c.from:c.to+1]) || r.header.Get("Content-Range") != c.wantHeader {
			t.Fatalf("Range %s: got %d bytes, Content-Range %q; want bytes %d-%d, %q",
				c.rng, len(r.body), r.header.Get("Content-Range"), c.from, c.to, c.wantHeader)
		}
	}
	r := do(t, h, http.MethodGet, u, "", nil, 0, "Range", "bytes=200-")
	wantStatus(t, "GET with a Range past the end", r, http.StatusRequestedRangeNotSatisfiable)
}

func testPresignGetAttachment(t *testing.T, h Harness, s blob.Store) {
	put(t, s, "k", []byte("music"), "audio/mpeg")
	for _, name := range []string{"track.mp3", "Café Mix (final) ü.mp3", `say "hi".mp3`} {
		r := do(t, h, http.MethodGet, presignGet(t, s, "k", ttl, name), "", nil, 0)
		wantStatus(t, "GET of an attachment", r, http.StatusOK)
		cd := r.header.Get("Content-Disposition")
		disp, params, err := mime.ParseMediaType(cd)
		if err != nil || disp != "attachment" || params["filename"] != name {
			t.Fatalf("Content-Disposition %q parses as %q %q (%v); want attachment, filename %q", cd, disp, params, err, name)
		}
		if string(r.body) != "music" {
			t.Fatalf("attachment body %q", r.body)
		}
		// Clients that ignore filename* still save a readable ASCII name.
		if want := `filename="Cafe Mix (final) u.mp3"`; name == "Café Mix (final) ü.mp3" && !strings.Contains(cd, want) {
			t.Fatalf("Content-Disposition %q lacks the ASCII fallback %s", cd, want)
		}
	}
}

func testPresignGetMissing(t *testing.T, h Harness, s blob.Store) {
	r := do(t, h, http.MethodGet, presignGet(t, s, "no/such", ttl, ""), "", nil, 0)
	wantStatus(t, "presigned GET of a missing key", r, http.StatusNotFound)
}

func testPresignGetWrongMethod(t *testing.T, h Harness, s blob.Store) {
	put(t, s, "k", []byte("keep me"), "text/plain")
	u := presignGet(t, s, "k", ttl, "")
	wantStatus(t, "HEAD with a GET URL", do(t, h, http.MethodHead, u, "", nil, 0), http.StatusForbidden)
	for _, m := range []string{http.MethodPut, http.MethodPost} {
		wantRefused(t, m+" with a GET URL", do(t, h, m, u, "text/plain", []byte("evil!!!"), 7))
	}
	wantRefused(t, "DELETE with a GET URL", do(t, h, http.MethodDelete, u, "", nil, 0))
	wantObject(t, s, "k", []byte("keep me"), "text/plain")
}

// tampered returns variants of a presigned URL for key: each query
// parameter altered, each removed, one added, and the key swapped for other.
func tampered(t *testing.T, raw, key, other string) map[string]string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	base := u.Scheme + "://" + u.Host + u.EscapedPath()
	path, ok := strings.CutSuffix(u.EscapedPath(), "/"+key)
	if !ok {
		t.Fatalf("URL path %q does not end with the key %q", u.EscapedPath(), key)
	}
	out := map[string]string{
		"key swapped":     u.Scheme + "://" + u.Host + path + "/" + other + "?" + u.RawQuery,
		"parameter added": raw + "&extra=1",
	}
	parts := strings.Split(u.RawQuery, "&")
	for i, p := range parts {
		name, value, _ := strings.Cut(p, "=")
		v, err := url.QueryUnescape(value)
		if err != nil {
			t.Fatal(err)
		}
		altered := append([]string(nil), parts...)
		altered[i] = name + "=" + url.QueryEscape(alter(v))
		out[name+" altered"] = base + "?" + strings.Join(altered, "&")
		removed := append(append([]string(nil), parts[:i]...), parts[i+1:]...)
		out[name+" removed"] = base + "?" + strings.Join(removed, "&")
	}
	return out
}

// alter changes the last character of v.
func alter(v string) string {
	if v == "" {
		return "x"
	}
	r := []rune(v)
	last := &r[len(r)-1]
	switch {
	case *last >= '0' && *last <= '9':
		*last = '0' + (*last-'0'+1)%10
	case *last == 'a':
		*last = 'b'
	default:
		*last = 'a'
	}
	return string(r)
}

func testPresignGetTampered(t *testing.T, h Harness, s blob.Store) {
	put(t, s, "k", []byte("secret k"), "text/plain")
	put(t, s, "other", []byte("secret other"), "text/plain")
	raw := presignGet(t, s, "k", ttl, "k.txt")
	for what, u := range tampered(t, raw, "k", "other") {
		r := do(t, h, http.MethodGet, u, "", nil, 0)
		if what == "key swapped" {
			wantStatus(t, "GET with the "+what, r, http.StatusForbidden)
		}
		wantRefused(t, "GET with the "+what, r)
		if bytes.Contains(r.body, []byte("secret")) {
			t.Fatalf("GET with the %s leaked the object", what)
		}
	}
}

func testPresignPut(t *testing.T, h Harness, s blob.Store) {
	var etag string
	for i, data := range [][]byte{randomBytes(9, 5000), randomBytes(10, 5000), randomBytes(11, 1<<20+3)} {
		u := presignPut(t, s, oddKey, "video/mp4", int64(len(data)), ttl)
		wantStatus(t, fmt.Sprintf("presigned PUT #%d", i), do(t, h, http.MethodPut, u, "video/mp4", data, int64(len(data))), http.StatusOK)
		a := wantObject(t, s, oddKey, data, "video/mp4")
		if a.ETag == etag {
			t.Fatalf("ETag %q unchanged after a new upload", etag)
		}
		etag = a.ETag
	}
}

func testPresignPutRejected(t *testing.T, h Harness, s blob.Store) {
	old := []byte("original content")
	put(t, s, "kept", old, "text/plain")
	body := []byte("0123456789")
	cases := []struct {
		what        string
		contentType string
		body        []byte
		length      int64
	}{
		{"another Content-Type", "video/quicktime", body, 10},
		{"no Content-Type", "", body, 10},
		{"a Content-Type in other case", "VIDEO/MP4", body, 10},
		{"a Content-Type with parameters", "video/mp4; codecs=avc1", body, 10},
		{"a shorter body", "video/mp4", body[:5], 5},
		{"a longer body", "video/mp4", append(body, 'x'), 11},
		{"a chunked body of the right size", "video/mp4", body, -1},
		{"a chunked longer body", "video/mp4", bytes.Repeat(body, 3), -1},
	}
	for _, key := range []string{"kept", "fresh"} {
		u := presignPut(t, s, key, "video/mp4", 10, ttl)
		for _, c := range cases {
			wantRefused(t, "PUT of "+key+" with "+c.what, do(t, h, http.MethodPut, u, c.contentType, c.body, c.length))
		}
	}
	wantObject(t, s, "kept", old, "text/plain")
	wantMissing(t, s, "fresh")
}

func testPresignPutWrongMethod(t *testing.T, h Harness, s blob.Store) {
	old := []byte("secret content")
	put(t, s, "kept", old, "video/mp4")
	u := presignPut(t, s, "kept", "video/mp4", 10, ttl)
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodDelete} {
		r := do(t, h, m, u, "", nil, 0)
		wantRefused(t, m+" with a PUT URL", r)
		if bytes.Contains(r.body, []byte("secret")) {
			t.Fatalf("%s with a PUT URL leaked the object", m)
		}
	}
	wantRefused(t, "POST with a PUT URL", do(t, h, http.MethodPost, u, "video/mp4", []byte("0123456789"), 10))
	wantObject(t, s, "kept", old, "video/mp4")
}

func testPresignPutTampered(t *testing.T, h Harness, s blob.Store) {
	put(t, s, "kept", []byte("kept content"), "text/plain")
	put(t, s, "other", []byte("other content"), "text/plain")
	raw := presignPut(t, s, "kept", "video/mp4", 10, ttl)
	for what, u := range tampered(t, raw, "kept", "other") {
		r := do(t, h, http.MethodPut, u, "video/mp4", []byte("0123456789"), 10)
		if what == "key swapped" {
			wantStatus(t, "PUT with the "+what, r, http.StatusForbidden)
		}
		wantRefused(t, "PUT with the "+what, r)
	}
	wantObject(t, s, "kept", []byte("kept content"), "text/plain")
	wantObject(t, s, "other", []byte("other content"), "text/plain")
}

func testPresignPutUnpinned(t *testing.T, h Harness, s blob.Store) {
	small, large := []byte("abc"), randomBytes(12, 200_000)
	u := presignPut(t, s, "a", "audio/wav", blob.UnpinnedLength, ttl)
	wantStatus(t, "unpinned PUT", do(t, h, http.MethodPut, u, "audio/wav", small, 3), http.StatusOK)
	wantObject(t, s, "a", small, "audio/wav")
	u2 := presignPut(t, s, "b", "audio/wav", blob.UnpinnedLength, ttl)
	wantStatus(t, "unpinned PUT", do(t, h, http.MethodPut, u2, "audio/wav", large, int64(len(large))), http.StatusOK)
	wantObject(t, s, "b", large, "audio/wav")

	wantRefused(t, "unpinned PUT with another type", do(t, h, http.MethodPut, u, "audio/mpeg", large, int64(len(large))))
	// S3 wants a Content-Length on every plain PUT.
	wantStatus(t, "unpinned chunked PUT", do(t, h, http.MethodPut, u, "audio/wav", large, -1), http.StatusLengthRequired)
	wantObject(t, s, "a", small, "audio/wav")
}

// testPresignWithAuthorization: a presigned URL is one way to
// authenticate and an Authorization header another; S3 refuses a request
// carrying both ("Only one auth mechanism allowed"), so a client that
// sends its API key along with the upload URL learns it at once, not
// first on AWS.
func testPresignWithAuthorization(t *testing.T, h Harness, s blob.Store) {
	old := []byte("kept content")
	put(t, s, "kept", old, "video/mp4")
	body := []byte("0123456789")
	for _, auth := range []string{"Bearer mcat_partnerkey",
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"} {
		for _, key := range []string{"kept", "fresh"} {
			u := presignPut(t, s, key, "video/mp4", int64(len(body)), ttl)
			r := do(t, h, http.MethodPut, u, "video/mp4", body, int64(len(body)), "Authorization", auth)
			if h.LaxAuthorization && r.status == http.StatusOK {
				wantObject(t, s, key, body, "video/mp4")
				put(t, s, key, old, "video/mp4")
				continue
			}
			wantRefused(t, "presigned PUT of "+key+" with Authorization: "+auth, r)
		}
		r := do(t, h, http.MethodGet, presignGet(t, s, "kept", ttl, ""), "", nil, 0, "Authorization", auth)
		if h.LaxAuthorization && r.status == http.StatusOK {
			continue
		}
		wantRefused(t, "presigned GET with Authorization: "+auth, r)
		if bytes.Contains(r.body, old) {
			t.Fatal("presigned GET with an Authorization header served the object")
		}
	}
	if h.LaxAuthorization {
		return
	}
	wantObject(t, s, "kept", old, "video/mp4")
	wantMissing(t, s, "fresh")
}

// testExpiry waits once for all its short-lived URLs, to keep a real-clock
// run short.
func testExpiry(t *testing.T, h Harness, s blob.Store) {
	old := []byte("old")
	put(t, s, "kept", old, "text/plain")
	get := presignGet(t, s, "kept", time.Second, "")
	putKept := presignPut(t, s, "kept", "text/plain", 3, time.Second)
	putFresh := presignPut(t, s, "fresh", "text/plain", 3, time.Second)
	longer := presignGet(t, s, "kept", time.Minute, "")

	h.Elapse(2 * time.Second)

	wantStatus(t, "expired GET", do(t, h, http.MethodGet, get, "", nil, 0), http.StatusForbidden)
	wantStatus(t, "expired PUT", do(t, h, http.MethodPut, putKept, "text/plain", []byte("new"), 3), http.StatusForbidden)
	wantStatus(t, "expired PUT", do(t, h, http.MethodPut, putFresh, "text/plain", []byte("new"), 3), http.StatusForbidden)
	wantObject(t, s, "kept", old, "text/plain")
	wantMissing(t, s, "fresh")
	r := do(t, h, http.MethodGet, longer, "", nil, 0)
	wantStatus(t, "GET before expiry", r, http.StatusOK)
	if !bytes.Equal(r.body, old) {
		t.Fatalf("GET before expiry: %q", r.body)
	}
}
