package integration

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/infra/local/lambdastub"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
)

// fakeSES stands in for the SES v2 SendEmail API (raw content): it keeps
// every message it is sent.
type fakeSES struct {
	mu   sync.Mutex
	sent []sentMail
}

type sentMail struct {
	From string
	To   []string
	Raw  []byte
}

func (f *fakeSES) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v2/email/outbound-emails" {
		http.Error(w, `{"message":"unknown operation"}`, http.StatusNotFound)
		return
	}
	var in struct {
		FromEmailAddress string
		Destination      struct{ ToAddresses []string }
		Content          struct{ Raw struct{ Data string } }
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, `{"message":"bad body"}`, http.StatusBadRequest)
		return
	}
	raw, err := base64.StdEncoding.DecodeString(in.Content.Raw.Data)
	if err != nil || len(raw) == 0 {
		http.Error(w, `{"message":"no raw content"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.sent = append(f.sent, sentMail{From: in.FromEmailAddress, To: in.Destination.ToAddresses, Raw: raw})
	n := len(f.sent)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"MessageId":"local-%d"}`, n)
}

func (f *fakeSES) messages() []sentMail {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentMail(nil), f.sent...)
}

// TestRenderThroughTheBinaries: a user uploads a video through the
// api-soundtrack binary and asks for a render with send_email; the real
// render.asl.json runs the build-render binary on aws-local-stepfunctions;
// the render is served by a presigned S3 URL and probes as long as the
// video with one video and one audio stream; build-render queues one mail
// on fauxqs, which the mailer binary sends once through SES (a stand-in of
// the SES API) from the MailSender parameter, however often the request
// is repeated.
func TestRenderThroughTheBinaries(t *testing.T) {
	ses := &fakeSES{}
	sesSrv := httptest.NewServer(ses)
	defer sesSrv.Close()
	s := newStack(t, map[string]string{"MailSender": "renders@music.example"}, func(st *lambdastub.Stack) {
		st.Function("MailerFunction").Env["AWS_ENDPOINT_URL_SESV2"] = sesSrv.URL
	})

	// A one-track catalog, published by the catalog-ingest binary.
	const trackID = "00000000-0000-4000-8000-0000000000a1"
	pcm, _ := audiotest.Song(22050, 8, 21)
	var wav bytes.Buffer
	if err := decode.WriteWAV(&wav, pcm); err != nil {
		t.Fatal(err)
	}
	ingestThroughBinary(t, s, "catalog-manifests/render/", map[string][]byte{"drive.wav": wav.Bytes()},
		`{"kind":"track","id":"`+trackID+`","name":"Night Drive","artist":{"name":"Neon Coast"},"genre_name":"Pop","audio":"drive.wav"}`+"\n")

	// A signed-in user whose username is their address.
	client := s.admin("clients", "create", "--name", "Render Partner", "--plan", "enterprise")
	user := s.admin("users", "create", "--client", client["client_id"], "--username", "ana@example.com", "--name", "Ana")
	auth := map[string]string{"authorization": "Bearer " + user["token"]}

	// Upload an 8-s video (H.264 + AAC) through the api-soundtrack binary.
	dir := t.TempDir()
	song, _ := audiotest.Song(44100, 4, 5)
	songPath := filepath.Join(dir, "song.wav")
	var sw bytes.Buffer
	decode.WriteWAV(&sw, song)
	os.WriteFile(songPath, sw.Bytes(), 0o644)
	videoPath := filepath.Join(dir, "clip.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=8", "-i", songPath,
		"-map", "0:v", "-map", "1:a", "-t", "8", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", videoPath).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	video, _ := os.ReadFile(videoPath)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "Road Trip.mp4")
	fw.Write(video)
	mw.Close()
	r := s.call("ApiSoundtrackFunction", "POST", "/api/v4/soundtrack/video/", "",
		map[string]string{"authorization": auth["authorization"], "content-type": mw.FormDataContentType()}, body.Bytes())
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	videoID := r.JSON(t)["id"].(string)
	s.StartEventSources() // the mailer consumes the mail queue from here on

	// Render: 202 until the state machine's build is done, then 200 {url}.
	renderBody, _ := json.Marshal(map[string]any{"track_id": trackID, "video_volume": 0.6, "track_volume": 0.9, "track_start": 1.5, "send_email": true})
	post := func() apiResponse {
		return s.call("ApiSoundtrackFunction", "POST", "/api/v4/soundtrack/video/"+videoID+"/download/", "",
			map[string]string{"authorization": auth["authorization"], "content-type": "application/json"}, renderBody)
	}
	t0 := time.Now()
	r = post()
	if r.Status != http.StatusAccepted || r.JSON(t)["send_email"] != true {
		t.Fatalf("first render request: %d %s", r.Status, r.Body)
	}
	for r.Status == http.StatusAccepted && time.Since(t0) < 3*time.Minute {
		time.Sleep(300 * time.Millisecond)
		r = post()
	}
	if r.Status != http.StatusOK {
		t.Fatalf("render: %d %s\n%s", r.Status, r.Body, tail(s.Logs(s.Function("BuildRenderFunction")), 3000))
	}
	record(t, "render of an 8-s video through the binaries and render.asl.json: %.1f s to 200", time.Since(t0).Seconds())

	// The url is the render's own link (the same for the same parameters,
	// §4.1), which redirects to a presigned URL; the render fetched from
	// there probes as the video does.
	renderURL := r.JSON(t)["url"].(string)
	u, err := url.Parse(renderURL)
	if err != nil {
		t.Fatal(err)
	}
	redirect := s.call("ApiSoundtrackFunction", "GET", u.Path, "", nil, nil)
	if redirect.Status != http.StatusFound || redirect.Header.Get("Location") == "" {
		t.Fatalf("render link %s: %d %s", renderURL, redirect.Status, redirect.Body)
	}
	resp, err := http.Get(redirect.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	mp4, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET render: %d %s", resp.StatusCode, mp4)
	}
	outPath := filepath.Join(dir, "render.mp4")
	os.WriteFile(outPath, mp4, 0o644)
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_type", "-of", "json", outPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Format  struct{ Duration string }
		Streams []struct {
			CodecType string `json:"codec_type"`
		}
	}
	json.Unmarshal(out, &probe)
	secs, _ := strconv.ParseFloat(probe.Format.Duration, 64)
	if secs < 7.9 || secs > 8.1 || len(probe.Streams) != 2 {
		t.Errorf("render probes %.3f s with %d streams: %s", secs, len(probe.Streams), out)
	}

	// Repeats change nothing: one email, sent by the mailer binary.
	for range 3 {
		if r := post(); r.Status != http.StatusOK || r.JSON(t)["url"] != renderURL {
			t.Errorf("repeat: %d %s", r.Status, r.Body)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(ses.messages()) == 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // a duplicate would arrive by now
	msgs := ses.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d emails sent; want 1\n%s", len(msgs), tail(s.Logs(s.Function("MailerFunction")), 3000))
	}
	m := msgs[0]
	if m.From != "renders@music.example" || len(m.To) != 1 || m.To[0] != "ana@example.com" {
		t.Errorf("sent from %q to %v", m.From, m.To)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(m.Raw))
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	mr := multipart.NewReader(msg.Body, params["boundary"])
	parts := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts[ct] = string(b)
	}
	link := "/api/v4/soundtrack/video/" + videoID + "/download/"
	for _, ct := range []string{"text/plain", "text/html"} {
		for _, want := range []string{link, "Night Drive", "Road Trip.mp4"} {
			if !strings.Contains(parts[ct], want) {
				t.Errorf("%s part lacks %q: %q", ct, want, parts[ct])
			}
		}
	}
}
