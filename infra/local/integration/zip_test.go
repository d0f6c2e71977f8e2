package integration

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

// zipDeadline bounds one ZIP build through the binaries.
const zipDeadline = 3 * time.Minute

// TestZIPDownloadThroughTheBinaries carries ZIP downloads through the
// real bootstrap binaries: a catalog with stems ingested by catalog-ingest,
// a request to api-downloads that writes the build record on DynamoDB Local
// and starts zip.asl.json on aws-local-stepfunctions, whose Build state
// invokes build-zip, which streams the renditions from versitygw into the
// archive by multipart upload. Repeats answer 202 until 200; the signed
// URL serves an archive whose entries equal the single-format downloads.
// Then a build whose source is gone ends failed through the Catch →
// MarkFailed path: 500 once, then a fresh build.
func TestZIPDownloadThroughTheBinaries(t *testing.T) {
	s := newStack(t, nil, nil)
	files := map[string][]byte{}
	for i, name := range []string{"tide.wav", "tide-drums.wav", "tide-bass.wav"} {
		pcm, _ := audiotest.Song(22050, 6, uint64(31+i))
		var wav bytes.Buffer
		if err := decode.WriteWAV(&wav, pcm); err != nil {
			t.Fatal(err)
		}
		files[name] = wav.Bytes()
	}
	manifest := `{"kind":"track","name":"Tide Line","artist":{"name":"Harbor Unit"},"genre_name":"Pop","audio":"tide.wav","stems":[{"name":"Drums","audio":"tide-drums.wav"},{"name":"Bass","audio":"tide-bass.wav"}]}` + "\n"
	ingestThroughBinary(t, s, "catalog-manifests/zip/", files, manifest)
	r := s.call("ApiSearchFunction", "GET", "/api/v4/search/ai/by-text/", "text="+url.QueryEscape("tide line")+"&limit=1", nil, nil)
	results, _ := r.JSON(t)["results"].([]any)
	if r.Status != http.StatusOK || len(results) != 1 {
		t.Fatalf("by-text: %d %s", r.Status, r.Body)
	}
	trackID, _ := results[0].(map[string]any)["id"].(string)
	path := "/api/v4/download/audio/" + trackID + "/"
	post := func(body string) apiResponse {
		return s.call("ApiDownloadsFunction", "POST", path, "", map[string]string{"content-type": "application/json"}, []byte(body))
	}
	// Single-format downloads: the bytes every entry must equal.
	single := map[string][]byte{}
	keys := map[string]string{}
	for _, f := range []string{"mp3", "wav"} {
		r := post(`{"type":"track","format":["` + f + `"]}`)
		if r.Status != 200 {
			t.Fatalf("%s download: %d %s", f, r.Status, r.Body)
		}
		u := r.JSON(t)["url"].(string)
		single[f] = fetchURL(t, u)
		pu, _ := url.Parse(u)
		keys[f] = strings.TrimPrefix(pu.Path, "/"+s.bucket+"/")
	}

	t0 := time.Now()
	both := `{"type":"track","format":["wav","mp3"],"include_stems":true}`
	first := post(both)
	if first.Status != 202 || first.JSON(t)["detail"] != "Download is being prepared. Please try again in a few moments." {
		t.Fatalf("first ZIP request: %d %s", first.Status, first.Body)
	}
	built := pollZIP(t, func() apiResponse { return post(both) }, 200)
	record(t, "ZIP of a track with 2 stems (6 renditions) through api-downloads, zip.asl.json and build-zip: 200 after %.1f s", time.Since(t0).Seconds())
	g := s.call("ApiDownloadsFunction", "GET", path, "type=track&include_stems=true&fmt=mp3&fmt=wav", nil, nil)
	if g.Status != 302 {
		t.Fatalf("GET of the built ZIP: %d %s", g.Status, g.Body)
	}
	archive := fetchURL(t, built.JSON(t)["url"].(string))
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, zf := range zr.File {
		names = append(names, zf.Name)
		rc, _ := zf.Open()
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || (zf.Name != "LICENSE.txt" && zf.Method != zip.Store) {
			t.Errorf("%s: method %d, %v", zf.Name, zf.Method, err)
		}
		for f, want := range single {
			if zf.Name == "Harbor Unit - Tide Line."+f && !bytes.Equal(data, want) {
				t.Errorf("%s differs from the %s download", zf.Name, f)
			}
		}
		if zf.Name == "LICENSE.txt" && !strings.Contains(string(data), "Tide Line") {
			t.Errorf("LICENSE.txt: %s", data)
		}
	}
	want := "Harbor Unit - Tide Line.mp3,Harbor Unit - Tide Line.wav,Stems/Harbor Unit - Tide Line - Drums.mp3,Stems/Harbor Unit - Tide Line - Drums.wav," +
		"Stems/Harbor Unit - Tide Line - Bass.mp3,Stems/Harbor Unit - Tide Line - Bass.wav,LICENSE.txt"
	if strings.Join(names, ",") != want {
		t.Errorf("entries %v\nwant %s", names, want)
	}

	// A source gone: the build ends failed (BuildError, caught, MarkFailed).
	if _, err := s.S3().DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(keys["wav"])}); err != nil {
		t.Fatal(err)
	}
	wavOnly := `{"type":"track","format":["mp3","wav"]}`
	if r := post(wavOnly); r.Status != 202 {
		t.Fatalf("second ZIP: %d %s", r.Status, r.Body)
	}
	failed := pollZIP(t, func() apiResponse { return post(wavOnly) }, 500)
	if d, _ := failed.JSON(t)["detail"].(string); !strings.Contains(d, "missing") {
		t.Errorf("500 detail %q", d)
	}
	if r := post(wavOnly); r.Status != 202 {
		t.Errorf("after the 500: %d %s, want 202 (a fresh build)", r.Status, r.Body)
	}
}

// pollZIP repeats a ZIP request while it answers 202 and returns the
// first other answer, which must have status want.
func pollZIP(t *testing.T, req func() apiResponse, want int) apiResponse {
	t.Helper()
	deadline := time.Now().Add(zipDeadline)
	for {
		r := req()
		if r.Status != 202 {
			if r.Status != want {
				t.Fatalf("ZIP request: %d %s, want %d", r.Status, r.Body, want)
			}
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("ZIP still 202 after %v", zipDeadline)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// fetchURL GETs a presigned URL of the bucket.
func fetchURL(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		var e any
		json.Unmarshal(body, &e)
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	return body
}
