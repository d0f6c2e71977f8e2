package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/fetch"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/store"
)

const (
	soundtrackPath = "/api/v4/soundtrack/video/"
	byVideoPath    = "/api/v4/search/ai/by-video/"
	byURLPath      = "/api/v4/search/ai/by-url/"
)

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

// needFFmpeg skips without ffmpeg (fails under CI, which must have it).
func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg missing")
		}
		t.Skip("needs ffmpeg")
	}
}

// stFFmpeg runs ffmpeg with args, failing the test on error.
func stFFmpeg(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("ffmpeg", append([]string{"-nostdin", "-v", "error", "-y"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v %s", args, err, out)
	}
}

// stVideo encodes an MP4 of the audio in wav (a file path) under a
// generated picture (an ffmpeg lavfi source such as "testsrc2").
func stVideo(t *testing.T, dir, name, wav, picture string, seconds float64) []byte {
	t.Helper()
	out := filepath.Join(dir, name)
	secs := fmt.Sprint(seconds)
	sep := "="
	if strings.Contains(picture, "=") {
		sep = ":"
	}
	stFFmpeg(t, "-i", wav, "-f", "lavfi", "-t", secs, "-i", picture+sep+"s=320x240:r=25",
		"-map", "0:a", "-map", "1:v", "-t", secs, "-c:v", "mpeg4", "-q:v", "8", "-c:a", "aac", "-b:a", "96k", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stWAV writes p as a WAV file in dir.
// songVideo is a testsrc2 video of the given length whose sound is an
// audiotest.Song (4 s sections) of the given seed.
func songVideo(t *testing.T, seed uint64, seconds float64) []byte {
	dir := t.TempDir()
	song, _ := audiotest.Song(audio.DefaultSampleRate, 4, seed)
	return stVideo(t, dir, "v.mp4", stWAV(t, dir, "song.wav", song), "testsrc2", seconds)
}

func stWAV(t *testing.T, dir, name string, p audio.PCM) string {
	t.Helper()
	path := filepath.Join(dir, name)
	writeWAVFile(t, path, p)
	return path
}

func postFile(c *apitest.Client, name string, content []byte, fields map[string]string, t *testing.T) *apitest.Response {
	t.Helper()
	ct, body := multipartFile(t, name, content, fields)
	return c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, Body: body, Header: map[string]string{"Content-Type": ct}})
}

func TestSoundtrackCreateRejectsBadInputAndStoresNothing(t *testing.T) {
	needFFmpeg(t)
	d, creds, c := partnerClient(t)
	dir := t.TempDir()
	song, _ := audiotest.Song(audio.DefaultSampleRate, 4, 1)
	wav := stWAV(t, dir, "song.wav", song)
	good := stVideo(t, dir, "good.mp4", wav, "testsrc2", 8)

	if r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{}, Header: map[string]string{"Authorization": ""}}); r.Status != 401 {
		t.Errorf("no token: %d %s", r.Status, r.Body)
	}
	detail := func(r *apitest.Response, status int, want string) {
		t.Helper()
		if r.Status != status || r.Map(t)["detail"] != want {
			t.Errorf("got %d %s; want %d %q", r.Status, r.Body, status, want)
		}
	}
	detail(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{}}), 400, soundtrack.MsgNeither)
	detail(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"url": "  "}}), 400, soundtrack.MsgNeither)
	for _, u := range []string{"not a url", "https://vimeo.com/76979871", "https://www.youtube.com/@GoogleDevelopers",
		"https://evil.example/watch?v=dQw4w9WgXcQ", "https://www.youtube.com:8443/watch?v=dQw4w9WgXcQ", "ftp://youtube.com/watch?v=dQw4w9WgXcQ"} {
		detail(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"url": u}}), 400, soundtrack.MsgBadURL)
	}
	detail(postFile(c, "clip.mp4", good, map[string]string{"url": "https://youtu.be/dQw4w9WgXcQ"}, t), 400, soundtrack.MsgBoth)
	detail(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath,
		JSON: map[string]any{"url": "https://youtu.be/dQw4w9WgXcQ", "storage_key": "soundtrack/uploads/x/y/z.mp4"}}), 400, soundtrack.MsgBoth)
	detail(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"url": "https://youtu.be/dQw4w9WgXcQ", "file": "x"}}), 400, soundtrack.MsgBoth)
	field := func(r *apitest.Response, name string) {
		t.Helper()
		if r.Status != 400 || r.Map(t)[name] == nil {
			t.Errorf("want 400 on %s, got %d %s", name, r.Status, r.Body)
		}
	}
	field(postFile(c, "clip.mkv", good, nil, t), "file")
	field(postFile(c, "clip.mp4", nil, nil, t), "file")
	field(postFile(c, "clip.mp4", good, map[string]string{"is_public": "maybe"}, t), "is_public")
	field(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"storage_key": "video-recognition/x/y/z.mp4"}}), "storage_key")
	field(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"storage_key": "soundtrack/uploads/someone-else/y/z.mp4"}}), "storage_key")
	field(c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"storage_key": "soundtrack/uploads/" + creds.Partner.ClientID + "/none/z.mp4"}}), "storage_key")

	// Videos that cannot be analyzed: 422 {detail, error_code}.
	silentPicture := filepath.Join(dir, "silent.mp4")
	stFFmpeg(t, "-f", "lavfi", "-t", "5", "-i", "testsrc2=s=160x120:r=25", "-c:v", "mpeg4", silentPicture)
	noAudio, _ := os.ReadFile(silentPicture)
	short := stVideo(t, dir, "short.mp4", wav, "testsrc2", 1)
	for name, tc := range map[string]struct {
		body []byte
		code string
	}{
		"garbage":   {[]byte("this is not a video at all, just some bytes"), "corrupt_media"},
		"no audio":  {noAudio, "no_audio_stream"},
		"too short": {short, "too_short"},
	} {
		r := postFile(c, "clip.mp4", tc.body, nil, t)
		if m := r.Map(t); r.Status != 422 || m["error_code"] != tc.code || m["detail"] == "" {
			t.Errorf("%s: %d %s; want 422 %s", name, r.Status, r.Body, tc.code)
		}
	}
	// Links need a fetcher; none is configured here.
	if r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"}}); r.Status != 501 {
		t.Errorf("link without a fetcher: %d %s", r.Status, r.Body)
	}
	if objs, err := d.Blob.List(context.Background(), soundtrack.UploadPrefix); err != nil || len(objs) != 0 {
		t.Errorf("rejected uploads left %d objects (%v)", len(objs), err)
	}

	// Over the direct-upload limit of the environment (Lambda's body
	// size): 413 naming the upload-url flow.
	d2, creds2 := newTestDeps(t, func(c *Config) { c.SoundtrackDirectUploadMax = 50_000 })
	c2 := apitest.New(t, d2.LocalHandler())
	c2.Token = creds2.Partner.Key
	r := postFile(c2, "clip.mp4", bytes.Repeat([]byte{1}, 60_000), nil, t)
	if r.Status != 413 || !strings.Contains(r.Map(t)["detail"].(string), "/api/v4/soundtrack/video/upload-url/") {
		t.Errorf("oversize body: %d %s", r.Status, r.Body)
	}
}

func TestSoundtrackUploadAndRetrieve(t *testing.T) {
	needFFmpeg(t)
	d, creds, c := partnerClient(t)
	ctx := context.Background()
	video := songVideo(t, 7, 10)

	r := postFile(c, "Holiday Clip.mp4", video, nil, t)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	first := r.Map(t)
	hash, _ := first["source_value"].(string)
	if first["source_type"] != "file" || !hex32.MatchString(hash) || first["source_title"] != "Holiday Clip.mp4" || first["is_public"] != false {
		t.Fatalf("created %v", first)
	}
	// `file` is a signed URL of the stored bytes.
	fileURL, _ := url.Parse(first["file"].(string))
	srv, _ := url.Parse(c.Server.URL)
	fileURL.Host = srv.Host
	resp, err := http.Get(fileURL.String())
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	got.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got.Bytes(), video) {
		t.Errorf("file URL: %d, %d bytes of %d", resp.StatusCode, got.Len(), len(video))
	}

	// The same file gives the same value (and a new video).
	r = postFile(c, "copy.mp4", video, map[string]string{"is_public": "true"}, t)
	second := r.Map(t)
	if r.Status != 201 || second["source_value"] != hash || second["id"] == first["id"] || second["is_public"] != true {
		t.Errorf("second upload: %d %v", r.Status, second)
	}

	// The presigned flow for large files: upload-url, PUT, create by key.
	r = c.Do(apitest.Request{Method: "POST", Path: soundtrackPath + "upload-url/", JSON: map[string]any{"filename": "Mein Vidéo (1).mp4", "content_length": len(video)}})
	if r.Status != 201 {
		t.Fatalf("upload-url: %d %s", r.Status, r.Body)
	}
	up := r.Map(t)
	key := up["storage_key"].(string)
	putURL, _ := url.Parse(up["upload_url"].(string))
	putURL.Host = srv.Host
	req, _ := http.NewRequest("PUT", putURL.String(), bytes.NewReader(video))
	req.Header.Set("Content-Type", up["content_type"].(string))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT: %v %v", resp, err)
	}
	r = c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"storage_key": key}})
	if m := r.Map(t); r.Status != 201 || m["source_value"] != hash || m["source_type"] != "file" || m["source_title"] != "Mein Vidéo (1).mp4" {
		t.Errorf("create by storage_key: %d %s", r.Status, r.Body)
	}
	// A second PUT to the same upload URL does not change the video made
	// from it: its media is kept under its content hash.
	req, _ = http.NewRequest("PUT", putURL.String(), bytes.NewReader(bytes.Repeat([]byte{0}, len(video))))
	req.Header.Set("Content-Type", up["content_type"].(string))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("second PUT: %v %v", resp, err)
	}
	if m := r.Map(t); m["file"] != nil {
		fileURL, _ := url.Parse(m["file"].(string))
		fileURL.Host = srv.Host
		resp, err := http.Get(fileURL.String())
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(got, video) {
			t.Errorf("the video's file changed with the upload key (%d bytes, status %d)", len(got), resp.StatusCode)
		}
	}
	if r := c.Do(apitest.Request{Method: "POST", Path: soundtrackPath + "upload-url/", JSON: map[string]any{"filename": "big.mp4", "content_length": 60_000_001}}); r.Status != 400 || r.Map(t)["content_length"] == nil {
		t.Errorf("upload-url over 60 MB: %d %s", r.Status, r.Body)
	}

	// Retrieve: private videos for their creator only, public ones for anyone.
	get := func(id, token string) *apitest.Response {
		return c.Do(apitest.Request{Method: "GET", Path: soundtrackPath + id + "/", Header: map[string]string{"Authorization": token}})
	}
	id := first["id"].(string)
	if r := get(id, "Bearer "+creds.Partner.Key); r.Status != 200 || r.Map(t)["source_value"] != hash || r.Map(t)["file"] == nil {
		t.Errorf("creator: %d %s", r.Status, r.Body)
	}
	if r := get(id, ""); r.Status != 403 {
		t.Errorf("anonymous on a private video: %d", r.Status)
	}
	_, otherKey, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: "Other", Plan: identity.PlanCommercial})
	if err != nil {
		t.Fatal(err)
	}
	if r := get(id, "Bearer "+otherKey); r.Status != 403 {
		t.Errorf("another client on a private video: %d", r.Status)
	}
	if r := get(id, "Bearer "+creds.User.Token); r.Status != 403 {
		t.Errorf("a user who did not create it: %d", r.Status)
	}
	if r := get(second["id"].(string), ""); r.Status != 200 || r.Map(t)["is_public"] != true {
		t.Errorf("anonymous on a public video: %d %s", r.Status, r.Body)
	}
	for _, bad := range []string{"00000000-0000-4000-8000-000000000000", "not-a-uuid"} {
		if r := get(bad, "Bearer "+creds.Partner.Key); r.Status != 404 {
			t.Errorf("GET %s: %d", bad, r.Status)
		}
	}
	// Records and analyses expire with the item store's TTL.
	it, err := d.Store.Get(ctx, store.Jobs, store.Key{PK: "SOUNDTRACK#" + id, SK: "VIDEO"})
	if err != nil || it.ExpiresAt.IsZero() {
		t.Errorf("video record expiry: %v %v", it.ExpiresAt, err)
	}
}

// stCatalog ingests excerpts of wesnoth tracks (the real music of the
// tests) and returns their ids by file, or skips without the package.
func stCatalog(t *testing.T, d *Deps, dir string, files []string) map[string]string {
	t.Helper()
	requireWesnoth(t)
	var manifest strings.Builder
	for i, f := range files {
		excerpt := filepath.Join(dir, strings.TrimSuffix(f, ".ogg")+".wav")
		stFFmpeg(t, "-ss", "20", "-t", "45", "-i", filepath.Join(wesnothMusic, f), "-ac", "1", "-ar", "22050", excerpt)
		fmt.Fprintf(&manifest, `{"kind":"track","id":"%s","name":"Track %d","artist":{"name":"Wesnoth","slug":"wesnoth"},"genre_name":"Orchestral","access_tier":"free","audio":%q}`+"\n",
			fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), i, excerpt)
	}
	mpath := filepath.Join(dir, "manifest.jsonl")
	os.WriteFile(mpath, []byte(manifest.String()), 0o644)
	rep, err := ingest.Run(context.Background(), ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, FFmpegPath: "ffmpeg", Workers: 2}, mpath)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, rep.Errors)
	}
	ids := map[string]string{}
	for i, f := range files {
		ids[f] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1)
	}
	return ids
}

func resultIDs(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("search: %d %s", r.Status, r.Body)
	}
	var out []string
	for _, x := range r.Map(t)["results"].([]any) {
		out = append(out, x.(map[string]any)["id"].(string))
	}
	return out
}

// TestSoundtrackSearchByVideoAndURL: a video whose soundtrack is catalog
// track X (re-encoded, with speech over it) ranks X first, by its hash and
// by its link; by-url ranks the linked song's catalog track first; the
// same value gives the same list.
func TestSoundtrackSearchByVideoAndURL(t *testing.T) {
	needFFmpeg(t)
	d, creds := newTestDeps(t, func(c *Config) { c.SiteURL = "https://music.example" })
	dir := t.TempDir()
	files := []string{"battle.ogg", "knolls.ogg", "traveling_minstrels.ogg", "elvish-theme.ogg", "frantic.ogg",
		"northerners.ogg", "sad.ogg", "wanderer.ogg"}
	ids := stCatalog(t, d, dir, files)
	x := "traveling_minstrels.ogg"

	// 30 s of X's excerpt, speech-like babble over it, a moving picture.
	speech := audiotest.Babble(22050, 30, 3)
	audiotest.Scale(speech, 0.5)
	mixed := filepath.Join(dir, "mixed.wav")
	stFFmpeg(t, "-ss", "5", "-t", "30", "-i", filepath.Join(dir, strings.TrimSuffix(x, ".ogg")+".wav"),
		"-i", stWAV(t, dir, "speech.wav", speech), "-filter_complex", "[0:a][1:a]amix=inputs=2:duration=first:normalize=0[a]", "-map", "[a]", mixed)
	video := stVideo(t, dir, "x.mp4", mixed, "testsrc2", 30)

	c := apitest.New(t, d.LocalHandler())
	c.Token = creds.Partner.Key
	r := postFile(c, "x.mp4", video, nil, t)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	hash := r.Map(t)["source_value"].(string)
	anon := apitest.New(t, d.LocalHandler()) // search is public
	list := resultIDs(t, c.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + hash}))
	if len(list) == 0 || list[0] != ids[x] {
		t.Fatalf("by-video: %v; want %s first", list, ids[x])
	}
	if again := resultIDs(t, c.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + strings.ToUpper(hash)})); !slices.Equal(again, list) {
		t.Errorf("same value, another list: %v vs %v", again, list)
	}
	page := resultIDs(t, c.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + hash + "&limit=2&offset=1"}))
	if !slices.Equal(page, list[1:3]) {
		t.Errorf("page 2 %v of %v", page, list)
	}
	// The video is private: to anyone but its creator its hash reads
	// exactly as one nobody uploaded, so it tells nobody the file exists.
	_, otherKey, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "O", Plan: identity.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	other := apitest.New(t, d.LocalHandler())
	other.Token = otherKey
	unknown := anon.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=0123456789abcdef0123456789abcdef"})
	for name, cl := range map[string]*apitest.Client{"anonymous": anon, "another client": other} {
		if r := cl.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + hash}); r.Status != unknown.Status || string(r.Body) != string(unknown.Body) {
			t.Errorf("%s, another's private video: %d %s; want what an unknown hash gets: %d %s", name, r.Status, r.Body, unknown.Status, unknown.Body)
		}
	}
	// A public upload of the same file opens its hash to everybody.
	if r := postFile(c, "x.mp4", video, map[string]string{"is_public": "true"}, t); r.Status != 201 || r.Map(t)["source_value"] != hash {
		t.Fatalf("public create: %d %s", r.Status, r.Body)
	}
	if got := resultIDs(t, anon.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + hash})); !slices.Equal(got, list) {
		t.Errorf("public video, anonymous by-video: %v; want %v", got, list)
	}
	for q, status := range map[string]int{"": 400, "?value=0123456789abcdef0123456789abcdef": 404, "?value=hello": 400,
		"?value=" + hash + "&bpm__range=fast": 400} {
		if r := anon.Do(apitest.Request{Method: "GET", Path: byVideoPath + q}); r.Status != status {
			t.Errorf("by-video%s: %d %s; want %d", q, r.Status, r.Body, status)
		}
	}

	// by-url: a link to a catalog track's own page ranks it first.
	cat, err := d.Catalog.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"battle.ogg", "sad.ogg"} {
		tr, _ := cat.Track(ids[f])
		got := resultIDs(t, anon.Do(apitest.Request{Method: "GET", Path: byURLPath + "?link=" + url.QueryEscape("https://music.example/t/"+tr.ShortID)}))
		if got[0] != ids[f] {
			t.Errorf("by-url of %s's page: %v", f, got)
		}
	}
	for q, status := range map[string]int{"": 400, "?link=" + url.QueryEscape("https://music.example/t/nosuchtrack"): 400,
		"?link=" + url.QueryEscape("https://evil.example/song"): 400, "?link=" + hash: 400,
		"?link=" + url.QueryEscape("https://soundcloud.com/artist/song"): 501, // no fetcher configured
		"?link=x&bpm_range=500": 400} {
		if r := anon.Do(apitest.Request{Method: "GET", Path: byURLPath + q}); r.Status != status {
			t.Errorf("by-url%s: %d %s; want %d", q, r.Status, r.Body, status)
		}
	}

	// Links, through the direct fetcher: the platform host resolves to a
	// test server, which the address rule refuses unless told otherwise.
	var served []string
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served = append(served, r.URL.RequestURI())
		if r.URL.Query().Get("v") != "xxxxxxxxxxx" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		w.Header().Set("Content-Disposition", `attachment; filename="Minstrels at the fair.mp4"`)
		w.Write(video)
	}))
	defer media.Close()
	port := netip.MustParseAddrPort(strings.TrimPrefix(media.URL, "http://"))
	useFetcher := func(allow func(netip.Addr) bool) *apitest.Client {
		d.newSoundtrack(&fetch.Direct{Guard: &fetch.Guard{Allow: allow,
			Resolve: func(context.Context, string, string) ([]netip.AddrPort, error) { return []netip.AddrPort{port}, nil }}})
		cl := apitest.New(t, d.LocalHandler())
		cl.Token = creds.Partner.Key
		return cl
	}
	link := "http://www.youtube.com/watch?v=xxxxxxxxxxx"
	c = useFetcher(nil) // the real rule
	for _, p := range []string{byURLPath + "?link=" + url.QueryEscape(link), byVideoPath + "?value=" + url.QueryEscape(link)} {
		if r := c.Do(apitest.Request{Method: "GET", Path: p}); r.Status != 400 || r.Map(t)["error_code"] != fetch.CodePrivateAddress {
			t.Errorf("loopback behind a platform name: %d %s", r.Status, r.Body)
		}
	}
	if len(served) != 0 {
		t.Errorf("the refused fetch reached the server: %v", served)
	}
	c = useFetcher(func(a netip.Addr) bool { return a.IsLoopback() })
	r = c.Do(apitest.Request{Method: "POST", Path: soundtrackPath, JSON: map[string]any{"url": link, "is_public": true}})
	if m := r.Map(t); r.Status != 201 || m["source_type"] != "youtube_url" || m["source_value"] != link ||
		m["source_title"] != "Minstrels at the fair" || m["file"] != nil {
		t.Fatalf("create by link: %d %s", r.Status, r.Body)
	}
	fetches := len(served)
	byLink := resultIDs(t, c.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + url.QueryEscape(link)}))
	if byLink[0] != ids[x] {
		t.Errorf("by-video by link: %v", byLink)
	}
	if len(served) != fetches {
		t.Errorf("by-video fetched the link again instead of using its analysis (%d fetches)", len(served))
	}
	if got := resultIDs(t, c.Do(apitest.Request{Method: "GET", Path: byURLPath + "?link=" + url.QueryEscape("https://youtu.be/xxxxxxxxxxx")})); got[0] != ids[x] {
		t.Errorf("by-url of the video's link: %v", got)
	}
	if r := c.Do(apitest.Request{Method: "GET", Path: byURLPath + "?link=" + url.QueryEscape("http://www.youtube.com/watch?v=yyyyyyyyyyy")}); r.Status != 422 || r.Map(t)["error_code"] != fetch.CodeVideoUnavailable {
		t.Errorf("a removed video: %d %s", r.Status, r.Body)
	}
}

// TestSoundtrackByVideoFollowsThePicture: footage without music is
// matched by its pace: a fast-cut video gets more energetic tracks first
// than a still one.
func TestSoundtrackByVideoFollowsThePicture(t *testing.T) {
	needFFmpeg(t)
	d, creds := newTestDeps(t)
	dir := t.TempDir()
	files := []string{"battle.ogg", "knolls.ogg", "frantic.ogg", "sad.ogg", "elf-land.ogg", "wanderer.ogg"}
	ids := stCatalog(t, d, dir, files)
	c := apitest.New(t, d.LocalHandler())
	c.Token = creds.Partner.Key
	speech := stWAV(t, dir, "speech.wav", audiotest.Babble(22050, 20, 9))

	still := stVideo(t, dir, "still.mp4", speech, "color=c=navy", 20)
	// Twenty shots of one second, each a different source: hard cuts.
	cuts := filepath.Join(dir, "cuts.mp4")
	var args []string
	var graph strings.Builder
	sources := []string{"testsrc", "smptebars", "rgbtestsrc", "color=c=red", "testsrc2", "color=c=white", "smptehdbars", "color=c=green"}
	for i := range 20 {
		src := sources[i%len(sources)]
		sep := "="
		if strings.Contains(src, "=") {
			sep = ":"
		}
		args = append(args, "-f", "lavfi", "-i", src+sep+"s=320x240:r=25:d=1")
		fmt.Fprintf(&graph, "[%d:v]setsar=1,format=yuv420p[v%d];", i, i)
	}
	for i := range 20 {
		fmt.Fprintf(&graph, "[v%d]", i)
	}
	graph.WriteString("concat=n=20:v=1:a=0[v]")
	args = append(args, "-i", speech, "-filter_complex", graph.String(), "-map", "[v]", "-map", "20:a", "-c:v", "mpeg4", "-c:a", "aac", "-shortest", cuts)
	stFFmpeg(t, args...)
	busy, _ := os.ReadFile(cuts)

	cat, _ := d.Catalog.Current(context.Background())
	energy := map[string]float64{}
	for _, f := range files {
		tr, _ := cat.Track(ids[f])
		energy[tr.ID] = tr.Energy
	}
	top := func(video []byte) string {
		r := postFile(c, "v.mp4", video, nil, t)
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		return resultIDs(t, c.Do(apitest.Request{Method: "GET", Path: byVideoPath + "?value=" + r.Map(t)["source_value"].(string)}))[0]
	}
	calm, fast := top(still), top(busy)
	if energy[fast] <= energy[calm] {
		t.Errorf("fast cuts ranked %s (energy %.2f) first, a still picture %s (energy %.2f)", fast, energy[fast], calm, energy[calm])
	}
}
