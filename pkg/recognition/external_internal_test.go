package recognition

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/outside/acrcloud"
	"musiccatalog/pkg/outside/acrcloud/acrfake"
)

const wesnothMusic = "/usr/share/games/wesnoth/1.16/data/core/music"

// outsideWorld is an outside service (acrfake over two wesnoth songs)
// behind a handler that counts requests and fails those fail picks.
type outsideWorld struct {
	city, north audio.PCM // the references, from their starts
	srv         *httptest.Server
	requests    atomic.Int64
	mu          sync.Mutex
	fail        func(n int64) bool // request number (from 1) → answer HTTP 503
}

var (
	outsideOnce sync.Once
	outsideW    *outsideWorld
	outsideErr  error
)

func newOutsideWorld(t *testing.T) *outsideWorld {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("needs ffmpeg")
	}
	if _, err := os.Stat(filepath.Join(wesnothMusic, "the_city_falls.ogg")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs the wesnoth-1.16-music package")
		}
		t.Skip("needs the wesnoth-1.16-music package")
	}
	outsideOnce.Do(func() {
		w := &outsideWorld{}
		load := func(name string, seconds float64) audio.PCM {
			pcm, err := decode.Decoder{}.DecodeWindow(context.Background(), filepath.Join(wesnothMusic, name), 0, seconds)
			if err != nil {
				outsideErr = err
			}
			return pcm
		}
		w.city, w.north = load("the_city_falls.ogg", 150), load("northerners.ogg", 90)
		if outsideErr != nil {
			return
		}
		fake, err := acrfake.New([]acrfake.Track{
			{Title: "The City Falls", Artist: "Outside Band", Label: "Epidemic Sound", ISRC: "GBOUT0000001", Audio: w.city},
			{Title: "Northerners", Artist: "Other Band", Label: "Artlist", ISRC: "GBOUT0000002", Audio: w.north},
		}, "key", "secret")
		if err != nil {
			outsideErr = err
			return
		}
		w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			n := w.requests.Add(1)
			w.mu.Lock()
			fail := w.fail
			w.mu.Unlock()
			if fail != nil && fail(n) {
				http.Error(rw, "unavailable", http.StatusServiceUnavailable)
				return
			}
			fake.ServeHTTP(rw, r)
		}))
		outsideW = w
	})
	if outsideErr != nil {
		t.Fatal(outsideErr)
	}
	return outsideW
}

// identify runs the outside tier of a job whose whole audio is one
// unexplained stretch, with budget samples at most; it returns the parts
// and the requests sent.
func (w *outsideWorld) identify(t *testing.T, pcm audio.PCM, budget int, fail func(n int64) bool) ([]externalResult, int64) {
	t.Helper()
	parts, requests, err := w.run(t, pcm, budget, fail)
	if err != nil {
		t.Fatal(err)
	}
	return parts, requests
}

func (w *outsideWorld) run(t *testing.T, pcm audio.PCM, budget int, fail func(n int64) bool) ([]externalResult, int64, error) {
	t.Helper()
	ctx := context.Background()
	defer func(b time.Duration) { outsideBackoff = b }(outsideBackoff)
	outsideBackoff = time.Millisecond
	w.mu.Lock()
	w.fail = fail
	w.requests.Store(0)
	w.mu.Unlock()
	bs, err := fileblob.New(t.TempDir(), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	src := SourceRef{Key: UploadPrefix + "c1/v.mp4", ETag: "e1"}
	var b bytes.Buffer
	decode.WriteWAV(&b, pcm)
	if err := bs.Put(ctx, workDir(src.Key, src.ETag)+audioFile, &b, int64(b.Len()), "audio/wav"); err != nil {
		t.Fatal(err)
	}
	acr, err := acrcloud.New(w.srv.URL, "key", "secret")
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{blob: bs, outside: acr, log: slog.New(slog.DiscardHandler), outsideSamples: budget}
	r := &jobRecord{Job: Job{ID: "j1", Source: src},
		timeline: []fingerprint.Stretch{{StartMs: 0, EndMs: int64(pcm.Seconds() * 1000)}}}
	parts, err := s.identifyOutside(ctx, r, nil)
	return parts, w.requests.Load(), err
}

func noisy(p audio.PCM) audio.PCM {
	return audiotest.MixSNR(p, audiotest.PinkNoise(p.Rate, p.Seconds(), 0.1, 7), 10)
}

func title(p externalResult) string {
	if p.Hit == nil {
		return "(unidentified)"
	}
	return p.Hit.Title
}

// wantOneSong checks parts is one part of title spanning [0, endMs).
func wantOneSong(t *testing.T, parts []externalResult, song string, endMs int64) {
	t.Helper()
	if len(parts) != 1 || parts[0].Hit == nil || parts[0].Hit.Title != song || parts[0].StartMs != 0 || parts[0].EndMs != endMs {
		t.Fatalf("want one part %q over [0, %d), got %s", song, endMs, describeParts(parts))
	}
}

func describeParts(parts []externalResult) string {
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString("\n  ")
		b.WriteString(title(p))
		b.WriteString(" ")
		b.WriteString(time.Duration(p.StartMs * int64(time.Millisecond)).String())
		b.WriteString("–")
		b.WriteString(time.Duration(p.EndMs * int64(time.Millisecond)).String())
	}
	return b.String()
}

// A 90-s stretch of one outside song is sampled three times (one sample
// per 30 s) and reported as one part spanning the stretch.
func TestOutsideSongIsOnePart(t *testing.T) {
	w := newOutsideWorld(t)
	video := noisy(w.city.Window(30, 90))
	parts, requests := w.identify(t, video, DefaultOutsideSamples, nil)
	if requests != 3 {
		t.Errorf("sent %d requests, want 3 (one per 30 s)", requests)
	}
	wantOneSong(t, parts, "The City Falls", 90000)
}

// The middle sample fails (HTTP 503 on every attempt): the song the other
// two named still covers the whole stretch.
func TestOutsideFailedSampleDoesNotSplit(t *testing.T) {
	w := newOutsideWorld(t)
	video := noisy(w.city.Window(30, 90))
	// Request 1 is the first sample; 2–4 the middle one's attempts.
	parts, requests := w.identify(t, video, DefaultOutsideSamples, func(n int64) bool { return n >= 2 && n <= 1+outsideAttempts })
	if requests != 2+outsideAttempts {
		t.Errorf("sent %d requests, want %d", requests, 2+outsideAttempts)
	}
	wantOneSong(t, parts, "The City Falls", 90000)
}

// Every sample failing is not "unidentified": the task fails so that the
// workflow retries it. A service that is down is not asked for the whole
// budget: sending stops after maxFailedInRow failed samples.
func TestOutsideAllSamplesFailedIsAnError(t *testing.T) {
	w := newOutsideWorld(t)
	down := func(int64) bool { return true }
	if parts, _, err := w.run(t, noisy(w.city.Window(30, 20)), DefaultOutsideSamples, down); err == nil {
		t.Fatalf("want an error, got %s", describeParts(parts))
	}
	parts, requests, err := w.run(t, noisy(w.city.Window(0, 150)), DefaultOutsideSamples, down)
	if err == nil || requests != maxFailedInRow*outsideAttempts {
		t.Fatalf("5 samples planned, service down: %d requests, err %v (want %d and an error) %s", requests, err, maxFailedInRow*outsideAttempts, describeParts(parts))
	}
}

// Two outside songs back to back in one stretch are two parts, meeting
// within a second of the cut (the later song's play offset places it).
func TestOutsideTwoSongsAreTwoParts(t *testing.T) {
	w := newOutsideWorld(t)
	video := noisy(audiotest.Concat(w.city.Window(40, 60), w.north.Window(0, 60)))
	parts, requests := w.identify(t, video, DefaultOutsideSamples, nil)
	if requests != 4 {
		t.Errorf("sent %d requests, want 4", requests)
	}
	if len(parts) != 2 || title(parts[0]) != "The City Falls" || title(parts[1]) != "Northerners" ||
		parts[0].StartMs != 0 || parts[1].EndMs != 120000 || parts[0].EndMs != parts[1].StartMs {
		t.Fatalf("want The City Falls then Northerners over [0, 120 s), got %s", describeParts(parts))
	}
	if cut := parts[1].StartMs; cut < 59000 || cut > 61000 {
		t.Errorf("boundary at %d ms, want 60000 ± 1000", cut)
	}
}

// The budget caps the requests: a 90-s stretch with a budget of 2 is
// sampled twice, and the song still spans it.
func TestOutsideSampleBudget(t *testing.T) {
	w := newOutsideWorld(t)
	video := noisy(w.city.Window(30, 90))
	parts, requests := w.identify(t, video, 2, nil)
	if requests != 2 {
		t.Errorf("sent %d requests, want the budget of 2", requests)
	}
	wantOneSong(t, parts, "The City Falls", 90000)
}

func TestPlanSamples(t *testing.T) {
	st := func(seconds int64) fingerprint.Stretch { return fingerprint.Stretch{EndMs: seconds * 1000} }
	stretches := []fingerprint.Stretch{st(300), st(25), st(61), st(10)}
	for _, c := range []struct {
		budget int
		want   []int
	}{
		{100, []int{10, 1, 3, 1}}, // one per started 30 s
		{20, []int{10, 1, 3, 1}},
		{6, []int{3, 1, 1, 1}},  // one each, the rest to the sparsest
		{8, []int{5, 1, 1, 1}},  // 300/4 = 75 s apart is sparser than 61 s
		{12, []int{8, 1, 2, 1}}, // 300/5 = 60 s is denser than 61 s
		{2, []int{1, 0, 1, 0}},  // longest first
		{0, []int{0, 0, 0, 0}},
	} {
		got := planSamples(stretches, c.budget)
		total := 0
		for _, n := range got {
			total += n
		}
		if total > c.budget || !equalInts(got, c.want) {
			t.Errorf("budget %d: %v, want %v", c.budget, got, c.want)
		}
	}
}

func TestNoSlivers(t *testing.T) {
	x, y := &outsideHit{Title: "X"}, &outsideHit{Title: "Y"}
	got := noSlivers([]externalResult{{0, 20000, x}, {20000, 22000, nil}, {22000, 50000, x}, {50000, 51000, y}, {51000, 80000, nil}})
	want := []externalResult{{0, 51000, x}, {51000, 80000, nil}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %s", describeParts(got))
	}
	got = noSlivers([]externalResult{{0, 2000, nil}, {2000, 30000, y}})
	if len(got) != 1 || got[0] != (externalResult{0, 30000, y}) {
		t.Errorf("a leading sliver: got %s", describeParts(got))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// resolveStretch's rules on answers given directly.
func TestResolveStretch(t *testing.T) {
	x := &outsideHit{Title: "X", Artist: "A", ISRC: "I1"}
	xOther := &outsideHit{Title: "x ", Artist: "a", ISRC: "I9"} // another release of X
	y := &outsideHit{Title: "Y", Artist: "B"}
	at := func(fromS int64, hit *outsideHit) sample {
		return sample{FromMs: fromS * 1000, ToMs: fromS*1000 + sampleMs, Hit: hit}
	}
	timed := func(s sample, songStartS, durS int64) sample {
		s.Timed, s.SongStartMs = true, songStartS*1000
		if durS > 0 {
			s.HasEnd, s.SongEndMs = true, (songStartS+durS)*1000
		}
		return s
	}
	failed := func(s sample) sample { s.Failed = true; return s }
	type part struct {
		from, to int64 // seconds
		title    string
	}
	for _, c := range []struct {
		name    string
		end     int64 // seconds; the stretch starts at 0
		samples []sample
		want    []part
	}{
		{"one song", 90, []sample{at(9, x), at(39, x), at(69, xOther)}, []part{{0, 90, "X"}}},
		{"lone miss inside", 90, []sample{at(9, x), at(39, nil), at(69, x)}, []part{{0, 90, "X"}}},
		{"lone miss at the edge", 90, []sample{at(9, nil), at(39, x), at(69, x)}, []part{{0, 90, "X"}}},
		{"failed sample", 90, []sample{at(9, x), failed(at(39, nil)), at(69, x)}, []part{{0, 90, "X"}}},
		{"two misses stay", 120, []sample{at(9, x), at(39, nil), at(69, nil), at(99, x)},
			[]part{{0, 30, "X"}, {30, 90, ""}, {90, 120, "X"}}},
		{"nothing named", 60, []sample{at(9, nil), failed(at(39, nil))}, []part{{0, 60, ""}}},
		{"two songs, midpoint", 120, []sample{at(9, x), at(39, x), at(69, y), at(99, y)},
			[]part{{0, 60, "X"}, {60, 120, "Y"}}},
		{"two songs, play offset", 120, []sample{at(9, x), at(39, x), timed(at(69, y), 52, 0), at(99, y)},
			[]part{{0, 52, "X"}, {52, 120, "Y"}}},
		{"two songs, end of the first", 120, []sample{at(9, x), timed(at(39, x), -20, 75), at(69, y), at(99, y)},
			[]part{{0, 55, "X"}, {55, 120, "Y"}}},
		{"song starts late", 90, []sample{timed(at(39, x), 20, 0), at(69, x)}, []part{{0, 20, ""}, {20, 90, "X"}}},
		{"song ends early", 90, []sample{timed(at(9, x), -100, 150)}, []part{{0, 50, "X"}, {50, 90, ""}}},
		{"start within 3 s is no sliver", 90, []sample{timed(at(39, x), 2, 0)}, []part{{0, 90, "X"}}},
		{"the later song's start, between the samples", 60, []sample{at(9, x), timed(at(39, y), 29, 0)},
			[]part{{0, 29, "X"}, {29, 60, "Y"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := resolveStretch(0, c.end*1000, c.samples)
			ok := len(got) == len(c.want)
			for i := 0; ok && i < len(got); i++ {
				w := c.want[i]
				title := ""
				if got[i].Hit != nil {
					title = got[i].Hit.Title
				}
				ok = got[i].StartMs == w.from*1000 && got[i].EndMs == w.to*1000 && title == w.title
			}
			if !ok {
				t.Errorf("got %s\nwant %v", describeParts(got), c.want)
			}
			for _, p := range got {
				if p.EndMs-p.StartMs < minSegmentMs {
					t.Errorf("sliver %s", describeParts([]externalResult{p}))
				}
			}
		})
	}
}
