package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/store"
)

// renderFixture: a catalog whose track 0 has a real wav rendition (a
// 1 kHz tone), track 2 is enterprise-only, a user whose username is an
// email address and a private video of theirs.
type renderFixture struct {
	d       *Deps
	c       *apitest.Client
	tracks  []*catalog.Track
	creds   DemoCredentials
	user    string // token of ana@example.com
	videoID string
	title   string
}

func newRenderFixture(t *testing.T) *renderFixture {
	t.Helper()
	needFFmpeg(t)
	d, creds := newTestDeps(t)
	ctx := context.Background()
	cc := catalogtest.Contents(3, 0)
	cc.Tracks[0].Name, cc.Tracks[0].Artist.Name = "Night Drive", "Neon Coast"
	cc.Tracks[2].AccessTier = catalog.TierEnterprise
	wav := decode.WAVBytes(audiotest.Tone(audio.DefaultSampleRate, float64(cc.Tracks[0].Length), 1000, 0.3))
	if err := d.Blob.Put(ctx, cc.Tracks[0].Audio.WAVKey, bytes.NewReader(wav), int64(len(wav)), "audio/wav"); err != nil {
		t.Fatal(err)
	}
	cat := catalogtest.Publish(t, d.Blob, cc)
	f := &renderFixture{d: d, c: apitest.New(t, d.LocalHandler()), tracks: cat.Tracks(), creds: creds, title: "Holiday Clip.mp4"}
	client, err := d.Identity.Authenticate(ctx, creds.Partner.Key)
	if err != nil {
		t.Fatal(err)
	}
	_, f.user, err = d.Identity.CreateUser(ctx, client.Client.ID, "ana@example.com", "Ana")
	if err != nil {
		t.Fatal(err)
	}
	f.c.Token = f.user
	r := postFile(f.c, f.title, songVideo(t, 3, 8), nil, t)
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	f.videoID = r.Map(t)["id"].(string)
	return f
}

func (f *renderFixture) post(videoID, token string, body any) *apitest.Response {
	return f.c.Do(apitest.Request{Method: "POST", Path: soundtrackPath + videoID + "/download/", JSON: body,
		Header: map[string]string{"Authorization": token}})
}

// await repeats the request until it is no longer 202.
func (f *renderFixture) await(t *testing.T, videoID string, body any) *apitest.Response {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := f.post(videoID, "Bearer "+f.user, body)
		if r.Status != 202 || time.Now().After(deadline) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fetch GETs a local signed URL through the test server.
func (f *renderFixture) fetch(t *testing.T, raw string) (*http.Response, []byte) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := url.Parse(f.c.Server.URL)
	u.Scheme, u.Host = srv.Scheme, srv.Host
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (f *renderFixture) outbox(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(f.d.OutboxDir(), "*.eml"))
	return files
}

// TestRenderErrorRows: every 4xx row of §7.2 for the render, each of
// which starts nothing.
func TestRenderErrorRows(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	track := f.tracks[0].ID
	ok := map[string]any{"track_id": track}
	detail := func(r *apitest.Response, status int) {
		t.Helper()
		if r.Status != status || r.Map(t)["detail"] == nil {
			t.Errorf("got %d %s; want %d {detail}", r.Status, r.Body, status)
		}
	}
	detail(f.post(f.videoID, "", ok), 401)
	detail(f.post(f.videoID, "Bearer "+f.creds.Partner.Key, ok), 401) // a partner key is not a signed-in user
	detail(f.post(f.videoID, "Bearer "+f.creds.User.Token, ok), 403)  // another user, private video
	detail(f.post("00000000-0000-4000-8000-000000000000", "Bearer "+f.user, ok), 404)
	detail(f.post(f.videoID, "Bearer "+f.user, map[string]any{"track_id": "00000000-0000-4000-8000-00000000ffff"}), 404)

	// Every bad field is named at once.
	r := f.post(f.videoID, "Bearer "+f.user, map[string]any{"track_id": "nope", "video_volume": 1.5, "track_volume": "loud", "track_start": -1, "send_email": "yes"})
	m := r.Map(t)
	for _, field := range []string{"track_id", "video_volume", "track_volume", "track_start", "send_email"} {
		if m[field] == nil {
			t.Errorf("bad %s not named: %d %s", field, r.Status, r.Body)
		}
	}
	if r.Status != 400 {
		t.Errorf("bad fields: %d", r.Status)
	}
	if r := f.post(f.videoID, "Bearer "+f.user, map[string]any{}); r.Status != 400 || r.Map(t)["track_id"] == nil {
		t.Errorf("no track_id: %d %s", r.Status, r.Body)
	}
	// track_start must lie inside the track (30 s long).
	if r := f.post(f.videoID, "Bearer "+f.user, map[string]any{"track_id": track, "track_start": 30}); r.Status != 400 || r.Map(t)["track_start"] == nil {
		t.Errorf("start past the end: %d %s", r.Status, r.Body)
	}
	// send_email for a user without an address (the demo user's username is "demo").
	demo := apitest.New(t, f.d.LocalHandler())
	demo.Token = f.creds.User.Token
	pub := postFile(demo, "pub.mp4", songVideo(t, 4, 8), map[string]string{"is_public": "true"}, t)
	if pub.Status != 201 {
		t.Fatalf("public upload: %d %s", pub.Status, pub.Body)
	}
	if r := f.post(pub.Map(t)["id"].(string), "Bearer "+f.creds.User.Token, map[string]any{"track_id": track, "send_email": true}); r.Status != 400 || r.Map(t)["send_email"] == nil {
		t.Errorf("send_email without an address: %d %s", r.Status, r.Body)
	}
	// A video from a link (stored as the link flow stores it) cannot be rendered.
	u, _ := f.d.Identity.Authenticate(ctx, f.user)
	linkID := "11111111-2222-4333-8444-555555555555"
	if err := f.d.Store.Put(ctx, store.Jobs, store.Item{Key: store.Key{PK: "SOUNDTRACK#" + linkID, SK: "VIDEO"},
		ExpiresAt: time.Now().Add(time.Hour), Attrs: map[string]any{"source_type": "youtube_url",
			"source_value": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "source_title": "A link", "created_by": u.ID(), "client_id": u.Client.ID}}, nil); err != nil {
		t.Fatal(err)
	}
	detail(f.post(linkID, "Bearer "+f.user, ok), 400)
	// Nothing of the above started a render.
	for _, vid := range []string{f.videoID, linkID} {
		key := render.Key(vid, render.Params{TrackID: track, VideoVolume: 1, TrackVolume: 1})
		if _, err := f.d.Store.Get(ctx, store.Jobs, store.Key{PK: "RENDER#" + key, SK: "BUILD"}); err == nil {
			t.Errorf("a rejected request of video %s left a render record", vid)
		}
	}
	if len(f.outbox(t)) != 0 {
		t.Error("mail was sent")
	}
}

// TestRenderBuildsOnceAndEmailsOnce: 202 then 200 with a URL of an MP4
// (the render's own link, which redirects to a signed URL); equal
// parameters (0.5 and 0.50) are the same render and the same URL, to the
// byte (§4.1); one email with
// both parts, the link, the track and the video name, however often the
// request is repeated or the task retried; the email's link redirects to
// the render; an expired upload is 404 although its render is cached.
func TestRenderBuildsOnceAndEmailsOnce(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	body := map[string]any{"track_id": f.tracks[0].ID, "video_volume": 0.5, "track_volume": 0.8, "track_start": 2, "send_email": true}
	r := f.post(f.videoID, "Bearer "+f.user, body)
	if r.Status != 202 || r.Map(t)["send_email"] != true || r.Map(t)["detail"] != render.MsgPreparing {
		t.Fatalf("first: %d %s", r.Status, r.Body)
	}
	r = f.await(t, f.videoID, body)
	if r.Status != 200 {
		t.Fatalf("built: %d %s", r.Status, r.Body)
	}
	first := r.Map(t)["url"].(string)
	resp, _ := f.fetch(t, first)
	if resp.StatusCode != 302 {
		t.Fatalf("render url: %d", resp.StatusCode)
	}
	signed := resp.Header.Get("Location")
	resp, mp4 := f.fetch(t, signed)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != render.OutputType || !bytes.Contains(mp4[:64], []byte("ftyp")) {
		t.Fatalf("render download: %d %s %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(mp4))
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, "Holiday Clip-soundtrack.mp4") {
		t.Errorf("Content-Disposition %q", cd)
	}
	// Equal numbers written differently, and the defaults left out, are the same render.
	same := map[string]any{"track_id": strings.ToUpper(f.tracks[0].ID), "video_volume": 0.50, "track_volume": 0.8000001, "track_start": 2.0, "send_email": true}
	for range 3 {
		r := f.post(f.videoID, "Bearer "+f.user, same)
		if r.Status != 200 || r.Map(t)["url"] != first {
			t.Fatalf("same parameters: %d %s", r.Status, r.Body)
		}
	}
	if r := f.post(f.videoID, "Bearer "+f.user, map[string]any{"track_id": f.tracks[0].ID, "video_volume": 0.4}); r.Status != 202 || r.Map(t)["send_email"] != false {
		t.Errorf("other parameters: %d %s", r.Status, r.Body)
	} else if r := f.await(t, f.videoID, map[string]any{"track_id": f.tracks[0].ID, "video_volume": 0.4}); r.Status != 200 || pathOf(r.Map(t)["url"].(string)) == pathOf(first) {
		t.Errorf("other parameters, built: %d %s", r.Status, r.Body)
	}

	// The task run again (a Step Functions retry) sends no second email.
	key := render.Key(f.videoID, render.Params{TrackID: f.tracks[0].ID, VideoVolume: 0.5, TrackVolume: 0.8, TrackStart: 2})
	it, err := f.d.Store.Get(ctx, store.Jobs, store.Key{PK: "RENDER#" + key, SK: "BUILD"})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(render.TaskInput{Key: key, BuildID: it.Str("build_id")})
	if _, err := f.d.Render.HandleTask(ctx, in); err != nil {
		t.Fatal(err)
	}
	// Mail is delivered in the background: wait for it, then for quiet.
	var files []string
	for deadline := time.Now().Add(10 * time.Second); len(files) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		files = f.outbox(t)
	}
	time.Sleep(300 * time.Millisecond)
	if files = f.outbox(t); len(files) != 1 {
		t.Fatalf("%d emails; want exactly 1", len(files))
	}
	text, html, msg := readEML(t, files[0])
	if to := msg.Header.Get("To"); to != "ana@example.com" {
		t.Errorf("To %q", to)
	}
	link := f.d.Config.PublicBaseURL + "/api/v4/soundtrack/video/" + f.videoID + "/download/" + key + "/"
	if link != first {
		t.Errorf("email link %q, answer's url %q", link, first)
	}
	for name, part := range map[string]string{"text": text, "html": html} {
		for _, want := range []string{link, "Night Drive", "Neon Coast", f.title} {
			if !strings.Contains(part, want) {
				t.Errorf("%s part lacks %q:\n%s", name, want, part)
			}
		}
	}
	// The link redirects to the render.
	resp, _ = f.fetch(t, link)
	if resp.StatusCode != 302 || pathOf(resp.Header.Get("Location")) != pathOf(signed) {
		t.Errorf("email link: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	upper := f.d.Config.PublicBaseURL + "/api/v4/soundtrack/video/" + strings.ToUpper(f.videoID) + "/download/" + strings.ToUpper(key) + "/"
	if resp, _ = f.fetch(t, upper); resp.StatusCode != 302 || pathOf(resp.Header.Get("Location")) != pathOf(signed) {
		t.Errorf("email link in capitals: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	// The upload expires (3-day retention): 404 although the render is cached.
	past := time.Now().Add(-time.Second)
	if _, err := f.d.Store.Update(ctx, store.Jobs, store.Key{PK: "SOUNDTRACK#" + f.videoID, SK: "VIDEO"}, store.Update{ExpiresAt: &past}, nil); err != nil {
		t.Fatal(err)
	}
	if r := f.post(f.videoID, "Bearer "+f.user, body); r.Status != 404 || r.Map(t)["detail"] == nil {
		t.Errorf("expired upload: %d %s", r.Status, r.Body)
	}
	if resp, _ := f.fetch(t, link); resp.StatusCode != 404 {
		t.Errorf("email link of an expired upload: %d", resp.StatusCode)
	}
}

// TestRenderFailureIsNotForever: a build that fails ends failed; the next
// request answers 500 with the reason once, the one after builds afresh.
func TestRenderFailureIsNotForever(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	v, err := f.d.Soundtrack.Get(ctx, f.videoID)
	if err != nil {
		t.Fatal(err)
	}
	good, _, err := f.d.Blob.Get(ctx, v.FileKey)
	if err != nil {
		t.Fatal(err)
	}
	media, _ := io.ReadAll(good)
	good.Close()
	junk := bytes.Repeat([]byte("not a video "), 100)
	if err := f.d.Blob.Put(ctx, v.FileKey, bytes.NewReader(junk), int64(len(junk)), "video/mp4"); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"track_id": f.tracks[0].ID}
	if r := f.post(f.videoID, "Bearer "+f.user, body); r.Status != 202 {
		t.Fatalf("first: %d %s", r.Status, r.Body)
	}
	r := f.await(t, f.videoID, body)
	if r.Status != 500 || r.Map(t)["error_code"] != render.CodeCorrupt || !strings.Contains(r.Map(t)["detail"].(string), "cannot be read") {
		t.Fatalf("failed build: %d %s", r.Status, r.Body)
	}
	if err := f.d.Blob.Put(ctx, v.FileKey, bytes.NewReader(media), int64(len(media)), "video/mp4"); err != nil {
		t.Fatal(err)
	}
	if r := f.post(f.videoID, "Bearer "+f.user, body); r.Status != 202 {
		t.Fatalf("after the failure: %d %s", r.Status, r.Body)
	}
	if r := f.await(t, f.videoID, body); r.Status != 200 {
		t.Fatalf("rebuilt: %d %s", r.Status, r.Body)
	}
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

// readEML parses an .eml file: its text and HTML parts and the message.
func readEML(t *testing.T, path string) (text, html string, msg *mail.Message) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msg, err = mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("content type %q: %v", msg.Header.Get("Content-Type"), err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			text = string(b)
		case "text/html":
			html = string(b)
		}
	}
	if text == "" || html == "" {
		t.Fatalf("parts: text %d bytes, html %d bytes", len(text), len(html))
	}
	return text, html, msg
}

// countingStarter counts workflow starts and starts nothing.
type countingStarter struct{ n atomic.Int32 }

func (c *countingStarter) Start(context.Context, string, string, any) error { c.n.Add(1); return nil }

// TestRenderOneBuildPerKey: 30 concurrent identical first requests create
// one build record and start one execution; all answer 202.
func TestRenderOneBuildPerKey(t *testing.T) {
	f := newRenderFixture(t)
	ctx := context.Background()
	starts := &countingStarter{}
	svc, err := render.New(render.Config{Store: f.d.Store, Blob: f.d.Blob, Catalog: f.d.CatalogSource(), Videos: f.d.Soundtrack, Workflow: starts})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.d.Identity.Authenticate(ctx, f.user)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var accepted atomic.Int32
	for range 30 {
		wg.Go(func() {
			res, err := svc.Render(ctx, &p, f.videoID, render.Request{Params: render.Params{TrackID: f.tracks[0].ID, VideoVolume: 1, TrackVolume: 0.25}, SendEmail: true}, "http://x")
			if err != nil {
				t.Error(err)
				return
			}
			if !res.Ready && res.SendEmail {
				accepted.Add(1)
			}
		})
	}
	wg.Wait()
	if starts.n.Load() != 1 || accepted.Load() != 30 {
		t.Errorf("%d starts, %d answered 202 with send_email; want 1 and 30", starts.n.Load(), accepted.Load())
	}
}
