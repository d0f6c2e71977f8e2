package acrcloud_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/outside/acrcloud/acrfake"
)

const musicDir = "/usr/share/games/wesnoth/1.16/data/core/music"

// requireTools skips (or fails under CI) when ffmpeg or the real music is
// missing.
func requireTools(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("ffmpeg")
	_, statErr := os.Stat(filepath.Join(musicDir, "knolls.ogg"))
	if err == nil && statErr == nil {
		return
	}
	msg := "needs ffmpeg and the wesnoth-1.16-music package"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func load(t *testing.T, name string, start, seconds float64) audio.PCM {
	t.Helper()
	pcm, err := decode.Decoder{}.DecodeWindow(context.Background(), filepath.Join(musicDir, name), start, seconds)
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

func TestSignature(t *testing.T) {
	// Computed independently: base64(HMAC-SHA1("sec", "POST\n/v1/identify\nkey1\naudio\n1\n1700000000")).
	if got := acrcloud.Signature("sec", "key1", "audio", "1", "1700000000"); got != "aLcNSJr9g3L2jYuVXPcaJSLPMmk=" {
		t.Errorf("Signature = %s", got)
	}
}

func TestRequestCarriesTheProtocolFields(t *testing.T) {
	var got *http.Request
	var sample []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseMultipartForm(1 << 20)
		got = r
		f, _, _ := r.FormFile("sample")
		sample, _ = io.ReadAll(f)
		io.WriteString(w, `{"status":{"code":1001,"msg":"No result"}}`)
	}))
	defer srv.Close()
	c, err := acrcloud.New(srv.URL+"/", "key1", "sec", acrcloud.WithClock(func() time.Time { return time.Unix(1700000000, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Identify(context.Background(), []byte("RIFF-sample"))
	if m != nil || err != nil {
		t.Fatalf("Identify = %v, %v; want no result", m, err)
	}
	want := map[string]string{
		"access_key": "key1", "sample_bytes": "11", "timestamp": "1700000000",
		"signature": "aLcNSJr9g3L2jYuVXPcaJSLPMmk=", "data_type": "audio", "signature_version": "1",
	}
	if got.Method != http.MethodPost || got.URL.Path != "/v1/identify" {
		t.Errorf("request %s %s", got.Method, got.URL.Path)
	}
	for k, v := range want {
		if got.FormValue(k) != v {
			t.Errorf("%s = %q, want %q", k, got.FormValue(k), v)
		}
	}
	if string(sample) != "RIFF-sample" {
		t.Errorf("sample = %q", sample)
	}
}

func TestStatusCodes(t *testing.T) {
	cases := []struct {
		body   string
		status int
		want   error
	}{
		{`{"status":{"code":3001,"msg":"invalid access key"}}`, 200, outside.ErrRejected},
		{`{"status":{"code":3014,"msg":"invalid signature"}}`, 200, outside.ErrRejected},
		{`{"status":{"code":3016,"msg":"too big"}}`, 200, outside.ErrRejected},
		{`{"status":{"code":3003,"msg":"limit exceeded"}}`, 200, outside.ErrTransient},
		{`{"status":{"code":3015,"msg":"qps limit"}}`, 200, outside.ErrTransient},
		{`bad gateway`, 502, outside.ErrTransient},
		{`{"status":`, 200, outside.ErrTransient},
	}
	for _, tc := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		}))
		c, _ := acrcloud.New(srv.URL, "k", "s")
		if _, err := c.Identify(context.Background(), []byte("x")); !errors.Is(err, tc.want) {
			t.Errorf("%d %s: err = %v, want %v", tc.status, tc.body, err, tc.want)
		}
		srv.Close()
	}
}

func TestParsesIsrcInBothForms(t *testing.T) {
	for _, isrc := range []string{`"GBAYE0000001"`, `["GBAYE0000001","X"]`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"status":{"code":0,"msg":"Success"},"metadata":{"music":[{"title":"T","artists":[{"name":"A"},{"name":"B"}],
				"album":{"name":"Al"},"label":"Epidemic Sound","external_ids":{"isrc":`+isrc+`},"score":88,"play_offset_ms":4200,"duration_ms":185000}]}}`)
		}))
		c, _ := acrcloud.New(srv.URL, "k", "s")
		m, err := c.Identify(context.Background(), []byte("x"))
		srv.Close()
		if err != nil || m == nil || m.ISRC != "GBAYE0000001" || m.Artist != "A, B" || m.Album != "Al" ||
			m.Label != "Epidemic Sound" || m.Score == nil || *m.Score != 88 || m.PlayOffsetMs != 4200 || m.DurationMs != 185000 {
			t.Errorf("isrc %s: %+v, %v", isrc, m, err)
		}
	}
}

// TestAgainstFake runs the adapter against the local server over real
// recordings: a noisy excerpt is found with its metadata and position,
// music that is not a reference is no result, and bad credentials are
// refused with the protocol's codes.
func TestAgainstFake(t *testing.T) {
	requireTools(t)
	refs := []acrfake.Track{
		{Title: "Knolls", Artist: "Wesnoth", Album: "OST", Label: "Epidemic Sound", ISRC: "GBAYE0000001", Audio: load(t, "knolls.ogg", 0, 60)},
		{Title: "Wanderer", Artist: "Wesnoth", Label: "Other Label", ISRC: "GBAYE0000002", Audio: load(t, "wanderer.ogg", 0, 60)},
	}
	fake, err := acrfake.New(refs, "key1", "secret1")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, _ := acrcloud.New(srv.URL, "key1", "secret1")
	ctx := context.Background()

	excerpt := refs[1].Audio.Window(30, 10)
	noisy := audiotest.MixSNR(excerpt, audiotest.PinkNoise(excerpt.Rate, 10, 0.1, 7), 5)
	m, err := c.Identify(ctx, decode.WAVBytes(noisy))
	if err != nil || m == nil {
		t.Fatalf("hit: %v, %v", m, err)
	}
	if m.Title != "Wanderer" || m.Artist != "Wesnoth" || m.Label != "Other Label" || m.ISRC != "GBAYE0000002" ||
		m.Score == nil || *m.Score < 70 || *m.Score > 100 || math.Abs(float64(m.PlayOffsetMs)-40000) > 1000 {
		t.Errorf("hit = %+v (score %v)", m, m.Score)
	}

	// An MP3 sample goes through ffmpeg on the server.
	cmd := exec.Command("ffmpeg", "-loglevel", "error", "-f", "wav", "-i", "pipe:0", "-f", "mp3", "pipe:1")
	cmd.Stdin = bytes.NewReader(decode.WAVBytes(refs[0].Audio.Window(12, 8)))
	mp3, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if m, err := c.Identify(ctx, mp3); err != nil || m == nil || m.Title != "Knolls" {
		t.Errorf("mp3 hit = %+v, %v", m, err)
	}

	other := load(t, "sad.ogg", 20, 10)
	if m, err := c.Identify(ctx, decode.WAVBytes(other)); m != nil || err != nil {
		t.Errorf("miss = %+v, %v", m, err)
	}

	badKey, _ := acrcloud.New(srv.URL, "nope", "secret1")
	if _, err := badKey.Identify(ctx, decode.WAVBytes(excerpt)); !errors.Is(err, outside.ErrRejected) || !strings.Contains(err.Error(), "3001") {
		t.Errorf("bad key: %v", err)
	}
	badSecret, _ := acrcloud.New(srv.URL, "key1", "wrong")
	if _, err := badSecret.Identify(ctx, decode.WAVBytes(excerpt)); !errors.Is(err, outside.ErrRejected) || !strings.Contains(err.Error(), "3014") {
		t.Errorf("bad signature: %v", err)
	}
}
