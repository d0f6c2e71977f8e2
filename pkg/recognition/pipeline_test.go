package recognition_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/infra/statemachines"
	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/outside/acrcloud/acrfake"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/workflow/localworkflow"
)

const musicDir = "/usr/share/games/wesnoth/1.16/data/core/music"

func requireTools(t testing.TB) {
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

const rate = audio.DefaultSampleRate

func load(t testing.TB, name string, start, seconds float64) audio.PCM {
	t.Helper()
	pcm, err := decode.Decoder{}.DecodeWindow(context.Background(), filepath.Join(musicDir, name), start, seconds)
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

// world is a catalog, an outside service and a video whose ground truth
// is known.
type world struct {
	cat      *catalog.Catalog
	scaler   features.Scaler
	blob     *fileblob.Store
	acr      *httptest.Server
	video    []byte
	ids      map[string]string // track name -> id
	expected []expectedSegment
}

type expectedSegment struct {
	startMs, endMs int64
	id             string // catalog id, "" for outside/unidentified
	title          string // outside title, "" for unidentified
}

type catalogEntry struct {
	name, file string
	tier       catalog.AccessTier
	restricted bool
	seconds    float64 // of the recording used
}

// The catalog: the first two appear in the video; a free plan covers
// only the free, unrestricted ones.
var entries = []catalogEntry{
	{"Knolls", "knolls.ogg", catalog.TierFree, false, 60},
	{"Wanderer", "wanderer.ogg", catalog.TierSubscriber, false, 55},
	{"Elf Land", "elf-land.ogg", catalog.TierFree, false, 30},
	{"Loyalists", "loyalists.ogg", catalog.TierFree, true, 30},
	{"Northerners", "northerners.ogg", catalog.TierFree, false, 30},
	{"Vengeful", "vengeful.ogg", catalog.TierEnterprise, false, 30},
}

var (
	worldOnce sync.Once
	shared    *world
	worldErr  error
)

// buildWorld makes the catalog, the outside service's references and the
// video (AAC in MP4):
//
//	 0– 6 s  speech
//	 6–36 s  Knolls (catalog, free tier) under pink noise at 10 dB SNR
//	36–39 s  quiet
//	39–59 s  The City Falls (outside, known to the outside service)
//	59–62 s  speech
//	62–92 s  Wanderer (catalog, subscriber tier) with speech over it
//	92–106 s Battle (music neither tier knows)
//	106–110 s quiet
func buildWorld(t testing.TB) *world {
	t.Helper()
	worldOnce.Do(func() { shared, worldErr = makeWorld(t) })
	if worldErr != nil {
		t.Fatal(worldErr)
	}
	return shared
}

func makeWorld(t testing.TB) (*world, error) {
	ctx := context.Background()
	w := &world{ids: map[string]string{}}
	var err error
	if w.blob, err = fileblob.New(filepath.Join(os.TempDir(), fmt.Sprintf("recognition-test-%d", os.Getpid())), "http://127.0.0.1:1", []byte("0123456789abcdef0123")); err != nil {
		return nil, err
	}
	// Catalog tracks: the start of each recording keeps the test quick;
	// features come from 20 s of it.
	var tracks []*catalog.Track
	var vectors [][]float32
	pcms := map[string]audio.PCM{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Go(func() {
			pcm := load(t, e.file, 0, e.seconds)
			mu.Lock()
			pcms[e.name] = pcm
			mu.Unlock()
		})
	}
	wg.Wait()
	b := fingerprint.NewBuilder()
	fp := fingerprint.New(fingerprint.IndexOptions)
	for _, e := range entries {
		pcm := pcms[e.name]
		f, err := features.Analyze(pcm.Window(0, 20))
		if err != nil {
			return nil, err
		}
		id := ids.NameUUID("recognition-test", e.name)
		w.ids[e.name] = id
		tracks = append(tracks, &catalog.Track{ID: id, Name: e.name, Artist: catalog.Artist{Name: "Wesnoth " + e.name, Slug: "wesnoth-" + strings.ToLower(strings.ReplaceAll(e.name, " ", "-"))},
			ISRC: "XX" + strings.ToUpper(e.name[:3]) + "0000001", Cover: "https://img.example/" + id + ".jpg",
			AccessTier: e.tier, Restricted: e.restricted, Length: int(pcm.Seconds()),
			// The WAV rendition ingest stores: Match reads it by range to
			// place the edges (guided edges).
			Audio: catalog.AudioRef{WAVKey: "catalog/audio/" + id + ".wav"}})
		if err := w.blob.Put(ctx, "catalog/audio/"+id+".wav", bytes.NewReader(decode.WAVBytes(pcm)), decode.WAVSize(len(pcm.Samples)), "audio/wav"); err != nil {
			return nil, err
		}
		vectors = append(vectors, f.Vector)
		if err := b.Add(id, pcm.Seconds(), fp.Fingerprint(pcm)); err != nil {
			return nil, err
		}
	}
	if w.scaler, err = features.FitScaler(vectors); err != nil {
		return nil, err
	}
	for i, tr := range tracks {
		tr.Features = w.scaler.Apply(vectors[i])
	}
	ixBytes, err := b.Build().MarshalBinary()
	if err != nil {
		return nil, err
	}
	segKey := "catalog/test/fingerprints-0001.bin"
	if err := w.blob.Put(ctx, segKey, bytes.NewReader(ixBytes), int64(len(ixBytes)), "application/octet-stream"); err != nil {
		return nil, err
	}
	trackIDs := make([]string, len(tracks))
	for i, tr := range tracks {
		trackIDs[i] = tr.ID
	}
	if w.cat, err = catalog.New(catalog.Contents{Tracks: tracks, Segments: []catalog.Segment{{Key: segKey, TrackIDs: trackIDs}}}); err != nil {
		return nil, err
	}

	outsideSong := load(t, "the_city_falls.ogg", 0, 60)
	fake, err := acrfake.New([]acrfake.Track{{Title: "The City Falls", Artist: "Outside Band", Label: "Epidemic Sound", ISRC: "GBOUT0000001", Audio: outsideSong}}, "key", "secret")
	if err != nil {
		return nil, err
	}
	w.acr = httptest.NewServer(fake)

	noisy := func(p audio.PCM, seed uint64) audio.PCM {
		return audiotest.MixSNR(p, audiotest.PinkNoise(rate, p.Seconds(), 0.1, seed), 10)
	}
	quiet := func(s float64) audio.PCM { return audiotest.PinkNoise(rate, s, 0.001, 9) }
	wanderer := pcms["Wanderer"].Window(20, 30)
	speechOver := audiotest.MixSNR(wanderer, audiotest.Babble(rate, 30, 4), 5)
	parts := []audio.PCM{
		audiotest.Babble(rate, 6, 1),
		noisy(pcms["Knolls"].Window(27, 30), 2),
		quiet(3),
		outsideSong.Window(20, 20),
		audiotest.Babble(rate, 3, 3),
		speechOver,
		load(t, "battle.ogg", 9, 14),
		quiet(4),
	}
	w.expected = []expectedSegment{
		{6000, 36000, w.ids["Knolls"], ""},
		{39000, 59000, "", "The City Falls"},
		{62000, 92000, w.ids["Wanderer"], ""},
		{92000, 106000, "", ""},
	}
	w.video, err = encodeVideo(audiotest.Concat(parts...))
	return w, err
}

// encodeVideo muxes pcm as AAC with a tiny H.264 picture into MP4.
func encodeVideo(pcm audio.PCM) ([]byte, error) {
	dir, err := os.MkdirTemp("", "recognition-video")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var wav bytes.Buffer
	decode.WriteWAV(&wav, pcm)
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.mp4")
	if err := os.WriteFile(in, wav.Bytes(), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command("ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=black:s=64x64:r=5", "-i", in,
		"-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-ar", "44100", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ffmpeg: %v: %s", err, msg)
	}
	return os.ReadFile(out)
}

// vectorizer puts audio in the test catalog's feature space.
type vectorizer struct{ scaler features.Scaler }

func (v vectorizer) Vector(_ context.Context, _ *catalog.Catalog, pcm audio.PCM) ([]float32, error) {
	f, err := features.Analyze(pcm)
	if err != nil {
		return nil, err
	}
	return v.scaler.Apply(f.Vector), nil
}

// pipeline is a Service on the local runner, recording the tasks it runs.
type pipeline struct {
	st     *boltstore.Store
	svc    *recognition.Service
	runner *localworkflow.Runner
	mu     sync.Mutex
	calls  []string
}

func newPipeline(t testing.TB, w *world, dbPath string, hold func(fn string) bool) *pipeline {
	t.Helper()
	st, err := boltstore.Open(dbPath, boltstore.WithSweepInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	acr, err := acrcloud.New(w.acr.URL, "key", "secret")
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline{st: st, runner: localworkflow.New()}
	t.Cleanup(p.runner.Close)
	p.svc, err = recognition.New(recognition.Config{Store: st, Blob: w.blob, Catalog: staticCatalog{w.cat}, Workflow: p.runner,
		Clock: clock.Real{}, Outside: acr, Vectorizer: vectorizer{w.scaler}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.runner.Register(recognition.Machine, statemachines.Recognition, recognition.Substitutions); err != nil {
		t.Fatal(err)
	}
	for _, fn := range recognition.TaskFunctions {
		p.runner.Handle(fn, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
			p.mu.Lock()
			p.calls = append(p.calls, fn)
			p.mu.Unlock()
			if hold != nil && hold(fn) {
				<-ctx.Done() // the process "crashes" here
				return nil, ctx.Err()
			}
			return p.svc.HandleTask(ctx, fn, in)
		})
	}
	return p
}

func (w *world) upload(t testing.TB, name string) recognition.SourceRef {
	return upload(t, w.blob, w.video, name)
}

func upload(t testing.TB, bs blob.Store, video []byte, name string) recognition.SourceRef {
	t.Helper()
	key := recognition.UploadPrefix + "c1/" + ids.NewUUID() + "/" + name
	if err := bs.Put(context.Background(), key, bytes.NewReader(video), int64(len(video)), "video/mp4"); err != nil {
		t.Fatal(err)
	}
	a, err := bs.Head(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return recognition.SourceRef{Key: key, ETag: a.ETag, Size: a.Size, Filename: name}
}

func waitDone(t testing.TB, svc *recognition.Service, jobID string) recognition.Job {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		job, err := svc.Get(context.Background(), "c1", jobID)
		if err != nil {
			t.Fatal(err)
		}
		if job.Status == recognition.StatusCompleted || job.Status == recognition.StatusFailed {
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s/%v", job.Status, job.Progress)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkSegments compares a completed job with the world's ground truth.
func checkSegments(t *testing.T, w *world, job recognition.Job) {
	t.Helper()
	if job.Status != recognition.StatusCompleted {
		t.Fatalf("job %s: %s %s", job.Status, job.ErrorCode, job.Detail)
	}
	out, _ := json.MarshalIndent(job.Segments, "", " ")
	if len(job.Segments) != len(w.expected) {
		t.Fatalf("got %d segments, want %d:\n%s", len(job.Segments), len(w.expected), out)
	}
	for i, want := range w.expected {
		s := job.Segments[i]
		if abs(s.StartMs-want.startMs) > 1000 || abs(s.EndMs-want.endMs) > 1000 {
			t.Errorf("segment %d at %d–%d ms, want %d–%d ±1 s", i, s.StartMs, s.EndMs, want.startMs, want.endMs)
		}
		switch {
		case want.id != "":
			if s.ID == nil || *s.ID != want.id || !*s.Internal || s.Score == nil || s.Cover == nil {
				t.Errorf("segment %d: want catalog track %s:\n%s", i, want.id, out)
			}
		case want.title != "":
			if s.ID != nil || *s.Internal || *s.Title != want.title || *s.Cleared || s.Cover != nil ||
				s.ExternalLabel == nil || *s.ExternalLabel != "Epidemic Sound" || *s.ISRC != "GBOUT0000001" {
				t.Errorf("segment %d: want outside match %s:\n%s", i, want.title, out)
			}
		default:
			if s.Identified || s.Cleared != nil || s.Title != nil || s.Internal != nil {
				t.Errorf("segment %d: want unidentified:\n%s", i, out)
			}
		}
	}
	// A free plan covers Knolls (free), not Wanderer (subscriber) nor the
	// outside song; suggestions are covered tracks only, never the match.
	covered := map[string]bool{w.ids["Knolls"]: true, w.ids["Elf Land"]: true, w.ids["Northerners"]: true}
	for i, wantCleared := range []bool{true, false, false} {
		s := job.Segments[i]
		if *s.Cleared != wantCleared {
			t.Errorf("segment %d cleared = %v", i, *s.Cleared)
		}
		if wantCleared != (s.Suggestions == nil) {
			t.Errorf("segment %d: suggestions %v with cleared %v", i, s.Suggestions, *s.Cleared)
		}
		if !wantCleared && len(s.Suggestions) == 0 {
			t.Errorf("segment %d: no suggestions", i)
		}
		for _, sg := range s.Suggestions {
			if !covered[sg.ID] || (s.ID != nil && sg.ID == *s.ID) || sg.Artist.Path == "" {
				t.Errorf("segment %d: suggestion %+v is not a covered alternative", i, sg)
			}
		}
	}
	// The track repeats the longest identified segment (Knolls and
	// Wanderer are both 30 s: the earlier wins ties), without timing.
	if job.Track == nil || job.Track.ID == nil || (*job.Track.ID != w.ids["Knolls"] && *job.Track.ID != w.ids["Wanderer"]) || job.Track.EndMs != 0 {
		t.Errorf("track = %+v", job.Track)
	}
}

func abs(x int64) int64 { return max(x, -x) }

func TestPipelineEndToEnd(t *testing.T) {
	requireTools(t)
	w := buildWorld(t)
	p := newPipeline(t, w, filepath.Join(t.TempDir(), "s.db"), nil)
	ctx := context.Background()
	src := w.upload(t, "clip.mp4")

	// The upload trigger prepares the work; the job must reuse it.
	if err := p.svc.Prepare(ctx, src.Key, `"`+src.ETag+`"`); err != nil {
		t.Fatal(err)
	}
	prepared := listWork(t, w.blob)

	start := time.Now()
	job, err := p.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	if err != nil {
		t.Fatal(err)
	}
	done := waitDone(t, p.svc, job.ID)
	t.Logf("job completed in %v (%.0f s of video)", time.Since(start).Round(time.Millisecond), 110.0)
	checkSegments(t, w, done)
	if after := listWork(t, w.blob); !slices.Equal(after, prepared) {
		t.Errorf("prepared work rewritten:\n%v\n%v", prepared, after)
	}

	// The runner ran the tasks in the order of the deployed definition.
	if want := aslTaskOrder(t); !slices.Equal(p.calls, want) || !slices.Equal(want, recognition.TaskFunctions) {
		t.Errorf("tasks ran %v; the definition says %v", p.calls, want)
	}
	b, _ := json.Marshal(done.Segments)
	t.Logf("segments: %s", b)
}

// listWork lists the prepared-work objects with their ETag and time.
func listWork(t *testing.T, bs blob.Store) []string {
	t.Helper()
	as, err := bs.List(context.Background(), "recognition-work/")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprintf("%s %s %d", a.Key, a.ETag, a.ModTime.UnixNano()))
	}
	return out
}

// aslTaskOrder follows the deployed definition from StartAt along Next,
// mapping each Task's ARN placeholder to its function.
func aslTaskOrder(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../infra/statemachines/recognition.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		StartAt string
		States  map[string]struct {
			Type, Resource, Next string
			End                  bool
		}
	}
	if err := json.Unmarshal(data, &def); err != nil {
		t.Fatal(err)
	}
	var out []string
	for name := def.StartAt; name != ""; {
		st, ok := def.States[name]
		if !ok {
			t.Fatalf("state %q does not exist", name)
		}
		if st.Type == "Task" {
			placeholder := strings.TrimSuffix(strings.TrimPrefix(st.Resource, "${"), "}")
			out = append(out, recognition.Substitutions[placeholder])
		}
		if st.End || len(out) > 10 {
			break
		}
		name = st.Next
	}
	return out
}

// TestCrashMidJobIsRecovered stops the process in the middle of Match and
// starts a new one: Recover resumes the job, which completes with the
// same result, reusing the extracted work.
func TestCrashMidJobIsRecovered(t *testing.T) {
	requireTools(t)
	w := buildWorld(t)
	db := filepath.Join(t.TempDir(), "s.db")
	ctx := context.Background()
	src := w.upload(t, "crash.mp4")

	inMatch := make(chan struct{}, 1)
	crashed := newPipeline(t, w, db, func(fn string) bool {
		if fn != recognition.FnMatch {
			return false
		}
		inMatch <- struct{}{}
		return true
	})
	job, err := crashed.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-inMatch:
	case <-time.After(60 * time.Second):
		t.Fatal("the job never reached Match")
	}
	crashed.runner.Close()
	crashed.st.Close() // the "new process" needs bbolt's file lock

	restarted := newPipeline(t, w, db, nil)
	if got, _ := restarted.svc.Get(ctx, "c1", job.ID); got.Status != recognition.StatusProcessing {
		t.Fatalf("after the crash: %+v", got)
	}
	if err := restarted.svc.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	checkSegments(t, w, waitDone(t, restarted.svc, job.ID))
}
