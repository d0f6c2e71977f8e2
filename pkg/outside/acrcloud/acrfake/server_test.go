package acrfake_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/outside/acrcloud/acrfake"
)

const rate = audio.DefaultSampleRate

// post sends an identify form; fields override the correct ones ("" drops one).
func post(t *testing.T, h http.Handler, sample []byte, fields map[string]string) acrcloud.Response {
	t.Helper()
	ts := "1700000000"
	form := map[string]string{
		"access_key": "key", "sample_bytes": strconv.Itoa(len(sample)), "timestamp": ts,
		"signature": acrcloud.Signature("secret", "key", "audio", "1", ts), "data_type": "audio", "signature_version": "1",
	}
	for k, v := range fields {
		form[k] = v
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range form {
		if v != "" {
			w.WriteField(k, v)
		}
	}
	if sample != nil {
		part, _ := w.CreateFormFile("sample", "s.wav")
		part.Write(sample)
	}
	w.Close()
	req := httptest.NewRequest(http.MethodPost, acrcloud.IdentifyPath, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var resp acrcloud.Response
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("response %d %q: %v", rec.Code, rec.Body, err)
	}
	return resp
}

func wav(p audio.PCM) []byte {
	var b bytes.Buffer
	decode.WriteWAV(&b, p)
	return b.Bytes()
}

func TestProtocolChecks(t *testing.T) {
	song, _ := audiotest.Song(rate, 8, 1)
	srv, err := acrfake.New([]acrfake.Track{{Title: "Song", Artist: "Synth", Label: "L", ISRC: "XX1", Audio: song}}, "key", "secret")
	if err != nil {
		t.Fatal(err)
	}
	sample := wav(song.Window(10, 10))
	cases := []struct {
		name   string
		sample []byte
		fields map[string]string
		code   int
	}{
		{"match", sample, nil, acrcloud.CodeSuccess},
		{"bad key", sample, map[string]string{"access_key": "other"}, acrcloud.CodeInvalidAccessKey},
		{"bad signature", sample, map[string]string{"signature": acrcloud.Signature("wrong", "key", "audio", "1", "1700000000")}, acrcloud.CodeInvalidSignature},
		{"signed other timestamp", sample, map[string]string{"timestamp": "1700000001"}, acrcloud.CodeInvalidSignature},
		{"missing field", sample, map[string]string{"data_type": ""}, acrcloud.CodeInvalidArguments},
		{"no sample", nil, map[string]string{"sample_bytes": "0"}, acrcloud.CodeInvalidArguments},
		{"wrong sample_bytes", sample, map[string]string{"sample_bytes": "12"}, acrcloud.CodeInvalidArguments},
		{"too large", make([]byte, acrfake.MaxSampleBytes+1), nil, acrcloud.CodeSampleTooLarge},
		{"silence", wav(audiotest.Silence(rate, 10)), nil, acrcloud.CodeNoResult},
	}
	for _, tc := range cases {
		resp := post(t, srv, tc.sample, tc.fields)
		if resp.Status.Code != tc.code {
			t.Errorf("%s: code %d (%s), want %d", tc.name, resp.Status.Code, resp.Status.Msg, tc.code)
		}
		if tc.code == acrcloud.CodeSuccess {
			m := resp.Metadata.Music[0]
			if m.Title != "Song" || m.Artists[0].Name != "Synth" || m.Label != "L" || m.ExternalIDs.ISRC[0] != "XX1" || *m.Score < 70 || *m.Score > 100 {
				t.Errorf("match = %+v", m)
			}
		}
	}
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodGet, acrcloud.IdentifyPath, nil),
		httptest.NewRequest(http.MethodPost, "/v2/identify", nil),
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		if rec.Code != http.StatusMethodNotAllowed && rec.Code != http.StatusNotFound {
			t.Errorf("%s %s: %d", r.Method, r.URL.Path, rec.Code)
		}
	}
}
