package app

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
)

// TestRecognitionStemNamesParentTrack (issue 16, stems): a catalog track
// is the mix of two real recordings, a "Melody" stem and an "Accompaniment"
// stem 10 dB below it in the mix, both delivered as stems. A video that
// uses only the accompaniment is recognised, through the API, as the
// parent track: its id, bounds within a second, cleared by the track's
// access tier for each plan.
func TestRecognitionStemNamesParentTrack(t *testing.T) {
	requireWesnoth(t)
	ctx := context.Background()
	d, creds := newTestDeps(t)
	dir := t.TempDir()
	load := func(name string, start, seconds float64) audio.PCM {
		pcm, err := decode.Decoder{}.DecodeWindow(ctx, filepath.Join(wesnothMusic, name), start, seconds)
		if err != nil {
			t.Fatal(err)
		}
		return pcm
	}
	melody, accomp := load("the_deep_path.ogg", 0, 90), load("frantic.ogg", 30, 90)
	mix := audio.PCM{Rate: melody.Rate, Samples: make([]float32, len(melody.Samples))}
	for i := range mix.Samples {
		mix.Samples[i] = 0.7*melody.Samples[i] + 0.22*accomp.Samples[min(i, len(accomp.Samples)-1)]
	}
	writeWAV := func(name string, p audio.PCM) string {
		var b bytes.Buffer
		if err := decode.WriteWAV(&b, p); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const parentID = "5b0e7f1c-2d3a-4e5f-8a9b-0c1d2e3f4a5b"
	var manifest strings.Builder
	fmt.Fprintf(&manifest, `{"kind":"track","id":%q,"name":"Deep Frantic","artist":{"name":"Wesnoth","slug":"wesnoth"},"genre_name":"Orchestral","access_tier":"subscriber","isrc":"QZTST2400042","audio":%q,"stems":[{"name":"Melody","audio":%q},{"name":"Accompaniment","audio":%q}]}`+"\n",
		parentID, writeWAV("mix.wav", mix), writeWAV("melody.wav", melody), writeWAV("accomp.wav", accomp))
	for i, f := range []string{"battle.ogg", "knolls.ogg", "northerners.ogg"} {
		fmt.Fprintf(&manifest, `{"kind":"track","name":"Other %d","artist":{"name":"Wesnoth","slug":"wesnoth"},"genre_name":"Orchestral","access_tier":"free","audio":%q}`+"\n",
			i, filepath.Join(wesnothMusic, f))
	}
	mpath := filepath.Join(dir, "manifest.jsonl")
	os.WriteFile(mpath, []byte(manifest.String()), 0o644)
	rep, err := ingest.Run(ctx, ingest.Options{Blob: d.Blob, Decoder: decode.Decoder{FFmpegPath: "ffmpeg"}, FFmpegPath: "ffmpeg"}, mpath)
	if err != nil || len(rep.Errors) > 0 || rep.Stems != 2 {
		t.Fatalf("ingest: %v %v\n%s", err, rep.Errors, rep)
	}

	// 6 s of quiet, 25 s of the accompaniment alone (track time 20–45 s)
	// with a little noise, 6 s of quiet.
	quiet := func(s float64, seed uint64) audio.PCM { return audiotest.PinkNoise(accomp.Rate, s, 0.001, seed) }
	stemPart := accomp.Window(20, 25)
	stemPart = audiotest.MixSNR(stemPart, audiotest.PinkNoise(accomp.Rate, stemPart.Seconds(), 0.1, 3), 20)
	wav := writeWAV("video.wav", audiotest.Concat(quiet(6, 1), stemPart, quiet(6, 2)))
	video := filepath.Join(dir, "stem.mp4")
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", wav, "-f", "lavfi", "-t", "37", "-i", "color=c=black:s=160x120:r=10",
		"-map", "0:a", "-map", "1:v", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", "-b:a", "128k", video)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	raw, _ := os.ReadFile(video)

	_, freeKey, err := d.Identity.CreateClient(ctx, identity.NewClient{Name: "Free", Plan: identity.PlanFree, Scopes: []string{identity.ScopeComplianceCheck}})
	if err != nil {
		t.Fatal(err)
	}
	c := apitest.New(t, d.LocalHandler())
	for _, tc := range []struct {
		plan, key string
		cleared   bool
	}{{"enterprise", creds.Partner.Key, true}, {"free", freeKey, false}} {
		c.Token = tc.key
		ct, body := multipartFile(t, "stem.mp4", raw, nil)
		r := c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body, Header: map[string]string{"Content-Type": ct}})
		if r.Status != 201 {
			t.Fatalf("submit: %d %s", r.Status, r.Body)
		}
		job := pollJob(t, c, r.Map(t)["job_id"].(string), 120*time.Second)
		segs, _ := job["segments"].([]any)
		var found map[string]any
		for _, s := range segs {
			if m := s.(map[string]any); m["identified"] == true {
				if found != nil {
					t.Errorf("%s: more than one identified segment: %v", tc.plan, segs)
				}
				found = m
			}
		}
		if found == nil || found["id"] != parentID || found["title"] != "Deep Frantic" || found["internal"] != true || found["cleared"] != tc.cleared {
			t.Fatalf("%s plan: want the parent track, cleared %v; segments %v", tc.plan, tc.cleared, segs)
		}
		start, end := found["start_ms"].(float64), found["end_ms"].(float64)
		if math.Abs(start-6000) > 1000 || math.Abs(end-31000) > 1000 {
			t.Errorf("%s plan: segment %v–%v ms, want 6000–31000 ± 1000", tc.plan, start, end)
		}
	}
}
