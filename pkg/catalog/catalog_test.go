package catalog_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
)

func sample(t *testing.T) *catalog.Catalog {
	t.Helper()
	c := catalogtest.Contents(4, 3)
	c.Tracks[1].Tempo, c.Tracks[1].Key, c.Tracks[1].Translations, c.Tracks[1].Features = nil, nil, nil, nil
	c.Segments = []catalog.Segment{{Key: "catalog/fingerprints/segments/a.fpi", TrackIDs: []string{c.Tracks[0].ID, c.Tracks[2].ID}}}
	c.Scaler = catalog.FeatureScaler{Mean: []float32{1, 2, 3, 4}, Std: []float32{0.5, 1, 1, 2}}
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestSnapshotRoundTrip(t *testing.T) {
	cat := sample(t)
	var buf bytes.Buffer
	if err := catalog.Encode(&buf, cat); err != nil {
		t.Fatal(err)
	}
	got, err := catalog.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != cat.Version() || len(cat.Version()) != 24 {
		t.Fatalf("version %q after round trip, want %q", got.Version(), cat.Version())
	}
	if !reflect.DeepEqual(got.Contents(), cat.Contents()) {
		t.Fatalf("contents differ after round trip:\n got %+v\nwant %+v", got.Contents().Tracks[0], cat.Contents().Tracks[0])
	}
	// The indexes are rebuilt too.
	s, tr, ok := got.Stem(cat.Tracks()[0].Stems[0].ID)
	if !ok || s.Name != "Drums" || tr.ID != cat.Tracks()[0].ID {
		t.Fatalf("Stem lookup after decode: %v %v %v", s, tr, ok)
	}
	if fx, ok := got.SoundFX(cat.SoundFXs()[2].ID); !ok || fx.Name != "Effect 2" {
		t.Fatalf("SoundFX lookup: %v %v", fx, ok)
	}
	if sc := got.FeatureScaler(); len(sc.Mean) != 4 || sc.Std[3] != 2 {
		t.Fatalf("scaler %+v", sc)
	}
	if segs := got.FingerprintSegments(); len(segs) != 1 || segs[0] != "catalog/fingerprints/segments/a.fpi" {
		t.Fatalf("segments %v", segs)
	}
}

func TestVersionFollowsContents(t *testing.T) {
	a := sample(t)
	b := sample(t)
	if a.Version() != b.Version() {
		t.Fatalf("equal contents, versions %s and %s", a.Version(), b.Version())
	}
	c := a.Contents()
	changed := *c.Tracks[3]
	changed.Highlights = []catalog.Region{{Offset: 6, Duration: 10}}
	c.Tracks[3] = &changed
	d, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version() == a.Version() {
		t.Fatal("a changed highlight kept the version")
	}
}

// TestDecodeReadsGzipSnapshots: a snapshot published by a build before
// zstd (format 1: the same body, gzip-compressed) still loads, as the
// same catalog.
func TestDecodeReadsGzipSnapshots(t *testing.T) {
	cat := sample(t)
	var buf bytes.Buffer
	if err := catalog.Encode(&buf, cat); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	head := 7 + 1 + len(cat.Version()) // magic, format, uvarint length, version
	if string(b[:7]) != "MCSNAP\x02" {
		t.Fatalf("head %q, want format 2", b[:7])
	}
	zr, err := zstd.NewReader(bytes.NewReader(b[head:]))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var old bytes.Buffer
	old.WriteString("MCSNAP\x01")
	old.Write(b[7:head])
	zw := gzip.NewWriter(&old)
	zw.Write(body)
	zw.Close()
	got, err := catalog.Decode(&old)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != cat.Version() || !reflect.DeepEqual(got.Tracks(), cat.Tracks()) {
		t.Fatal("the gzip snapshot decodes to another catalog")
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	cat := sample(t)
	var buf bytes.Buffer
	if err := catalog.Encode(&buf, cat); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	for name, b := range map[string][]byte{
		"empty": nil, "not a snapshot": []byte("hello world, not a catalog"),
		"truncated": good[:len(good)-10], "flipped byte": flipped,
		"other format": append([]byte("MCSNAP\x09"), good[7:]...),
	} {
		if _, err := catalog.Decode(bytes.NewReader(b)); !errors.Is(err, catalog.ErrSnapshotFormat) {
			t.Errorf("%s: err %v, want ErrSnapshotFormat", name, err)
		}
	}
}

func TestNewRejectsBrokenInvariants(t *testing.T) {
	for name, mutate := range map[string]func(c *catalog.Contents){
		"duplicate track":    func(c *catalog.Contents) { c.Tracks[1].ID = c.Tracks[0].ID },
		"stem id of a track": func(c *catalog.Contents) { c.Tracks[0].Stems[0].ID = c.Tracks[1].ID },
		"sfx id of a track":  func(c *catalog.Contents) { c.SoundFX[0].ID = c.Tracks[1].ID },
		"empty id":           func(c *catalog.Contents) { c.SoundFX[1].ID = "" },
		"segment of unknown": func(c *catalog.Contents) { c.Segments = []catalog.Segment{{Key: "k", TrackIDs: []string{"nope"}}} },
		"track in two segments": func(c *catalog.Contents) {
			c.Segments = []catalog.Segment{{Key: "a", TrackIDs: []string{c.Tracks[0].ID}}, {Key: "b", TrackIDs: []string{c.Tracks[0].ID}}}
		},
		"stem without its track": func(c *catalog.Contents) {
			c.Segments = []catalog.Segment{{Key: "a", TrackIDs: []string{c.Tracks[0].ID}}, {Key: "b", TrackIDs: []string{c.Tracks[0].Stems[0].ID}}}
		},
		"stem twice": func(c *catalog.Contents) {
			st := c.Tracks[0].Stems[0].ID
			c.Segments = []catalog.Segment{{Key: "a", TrackIDs: []string{c.Tracks[0].ID, st, st}}}
		},
	} {
		c := catalogtest.Contents(3, 2)
		mutate(&c)
		if _, err := catalog.New(c); !errors.Is(err, catalog.ErrInvalidCatalog) {
			t.Errorf("%s: err %v, want ErrInvalidCatalog", name, err)
		}
	}
}

// A segment lists the stems indexed under a track next to it.
func TestSegmentListsStemsWithTheirTrack(t *testing.T) {
	c := catalogtest.Contents(3, 2)
	c.Segments = []catalog.Segment{{Key: "a", TrackIDs: []string{c.Tracks[0].ID, c.Tracks[0].Stems[0].ID, c.Tracks[1].ID}}}
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := catalog.Encode(&buf, cat); err != nil {
		t.Fatal(err)
	}
	got, err := catalog.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil || !slices.Equal(got.Segments()[0].TrackIDs, c.Segments[0].TrackIDs) {
		t.Fatalf("round trip: %v %v", got.Segments(), err)
	}
}

func TestTempoDescriptor(t *testing.T) {
	for bpm, want := range map[float64]string{0: "", -5: "", 40: "slow", 89.99: "slow", 90: "medium", 119.9: "medium", 120: "fast", 200: "fast"} {
		if got := catalog.TempoDescriptor(bpm); got != want {
			t.Errorf("TempoDescriptor(%g) = %q, want %q", bpm, got, want)
		}
	}
}

func TestFilterListings(t *testing.T) {
	c := catalogtest.Contents(6, 5) // tempos 60..110, genres Rock/Jazz/Electronic
	c.Tracks[0].SecondaryMood = "Dark"
	c.Tracks[1].SecondaryMood = "Happy" // same as its mood: counted once
	c.Tracks[2].Vocals = catalog.VocalsFemale
	c.Tracks[3].Vocals = catalog.VocalsUnknown
	c.Tracks[4].Tempo = nil
	c.Tracks[5].Length = 601
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	f := cat.AllTrackFilters()
	want := catalog.TrackFilters{
		Genres:    []catalog.ValueCount{{"Electronic", 2}, {"Jazz", 2}, {"Rock", 2}},
		Subgenres: []catalog.ValueCount{{"Electronic Sub", 2}, {"Jazz Sub", 2}, {"Rock Sub", 2}},
		Moods:     []catalog.ValueCount{{"Calm", 4}, {"Dark", 1}, {"Happy", 6}},
		Tempo:     []string{"slow", "medium"},
		Vocals:    []string{"instrumental", "female"},
		BPM:       [2]float64{60, 110},
		Duration:  [2]float64{30, 601},
	}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("track filters\n got %+v\nwant %+v", f, want)
	}
	sf := cat.SoundFXFilters()
	wantSFX := catalog.SoundFXFilters{
		Genres:          []catalog.ValueCount{{"Impacts", 3}, {"Nature", 2}},
		SecondaryGenres: []catalog.ValueCount{{"Hits", 2}, {"Rain", 1}, {"Wind", 2}},
		Duration:        [2]float64{1, 5},
	}
	if !reflect.DeepEqual(sf, wantSFX) {
		t.Fatalf("sound effect filters\n got %+v\nwant %+v", sf, wantSFX)
	}
	empty, _ := catalog.New(catalog.Contents{})
	if f := empty.AllTrackFilters(); f.BPM != [2]float64{} || len(f.Genres) != 0 || f.Tempo != nil {
		t.Fatalf("empty catalog filters %+v", f)
	}
}

func TestPublishAndLoad(t *testing.T) {
	bs := catalogtest.NewStore(t)
	ctx := t.Context()
	if _, err := catalog.Load(ctx, bs); !errors.Is(err, catalog.ErrNoCatalog) {
		t.Fatalf("Load of an empty store: %v", err)
	}
	cat := sample(t)
	if ok, err := catalog.Publish(ctx, bs, cat); err != nil || !ok {
		t.Fatalf("first Publish: %v %v", ok, err)
	}
	if ok, err := catalog.Publish(ctx, bs, cat); err != nil || ok {
		t.Fatalf("Publish of the current version: %v %v, want false", ok, err)
	}
	got, err := catalog.Load(ctx, bs)
	if err != nil || got.Version() != cat.Version() {
		t.Fatalf("Load: %v %v", got, err)
	}
	catalogtest.Publish(t, bs, catalogtest.Contents(1, 0))
	if err := catalog.SetCurrent(ctx, bs, cat.Version()); err != nil {
		t.Fatal(err)
	}
	if got, _ := catalog.Load(ctx, bs); got.Version() != cat.Version() {
		t.Fatalf("after SetCurrent: %s", got.Version())
	}
	if err := catalog.SetCurrent(ctx, bs, "000000000000000000000000"); err == nil {
		t.Fatal("SetCurrent to a version never published succeeded")
	}
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLoaderPicksUpNewVersionsAndSurvivesBrokenOnes(t *testing.T) {
	bs := catalogtest.NewStore(t)
	ctx := t.Context()
	clk := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := catalog.NewLoader(bs, catalog.WithCheckInterval(time.Minute), catalog.WithLoaderClock(clk.now))
	if _, err := l.Current(ctx); !errors.Is(err, catalog.ErrNoCatalog) {
		t.Fatalf("before any publish: %v", err)
	}
	v1 := catalogtest.Publish(t, bs, catalogtest.Contents(2, 1))
	got, err := l.Current(ctx)
	if err != nil || got.Version() != v1.Version() {
		t.Fatalf("first load: %v %v", got, err)
	}
	v2 := catalogtest.Publish(t, bs, catalogtest.Contents(3, 1))
	if got, _ := l.Current(ctx); got.Version() != v1.Version() {
		t.Fatal("the pointer was re-read before the check interval passed")
	}
	clk.advance(time.Minute)
	if got, _ := l.Current(ctx); got.Version() != v2.Version() || len(got.Tracks()) != 3 {
		t.Fatalf("after the interval: %s, want %s", got.Version(), v2.Version())
	}

	put := func(key, s string) {
		if err := bs.Put(ctx, key, strings.NewReader(s), int64(len(s)), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	broken := map[string]func(){
		"damaged snapshot": func() {
			put(catalog.SnapshotKey("badbadbadbadbadbadbadbad"), "MCSNAP\x01garbage")
			put(catalog.CurrentKey, `{"version":"badbadbadbadbadbadbadbad","snapshot":"`+catalog.SnapshotKey("badbadbadbadbadbadbadbad")+`"}`)
		},
		"missing snapshot": func() {
			put(catalog.CurrentKey, `{"version":"aaaaaaaaaaaaaaaaaaaaaaaa","snapshot":"catalog/snapshots/nope.snap"}`)
		},
		"snapshot of another version": func() {
			put(catalog.CurrentKey, `{"version":"aaaaaaaaaaaaaaaaaaaaaaaa","snapshot":"`+catalog.SnapshotKey(v1.Version())+`"}`)
		},
		"damaged pointer": func() { put(catalog.CurrentKey, `{"vers`) },
		"pointer deleted": func() {
			if err := bs.Delete(ctx, catalog.CurrentKey); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, breakIt := range broken {
		breakIt()
		clk.advance(time.Minute)
		got, err := l.Current(ctx)
		if err != nil || got.Version() != v2.Version() {
			t.Fatalf("%s: %v %v, want the previous version served", name, got, err)
		}
		// A fresh loader has nothing to fall back on.
		if _, err := catalog.NewLoader(bs).Current(ctx); err == nil {
			t.Fatalf("%s: a fresh loader served something", name)
		}
	}
	put(catalog.CurrentKey, `{"vers`) // publishing repairs a damaged pointer
	v3 := catalogtest.Publish(t, bs, catalogtest.Contents(4, 0))
	clk.advance(time.Minute)
	if got, _ := l.Current(ctx); got.Version() != v3.Version() {
		t.Fatal("a good version after broken ones was not picked up")
	}
}

func TestLoaderConcurrentCallers(t *testing.T) {
	bs := catalogtest.NewStore(t)
	catalogtest.Publish(t, bs, catalogtest.Contents(5, 2))
	l := catalog.NewLoader(bs, catalog.WithCheckInterval(0))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if c, err := l.Current(t.Context()); err != nil || len(c.Tracks()) != 5 {
					t.Errorf("Current: %v %v", c, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSnapshotKeepsAudioEmbeddings: tracks' embeddings survive a round trip
// at 8 bits a value (within half a step, at most 1/127 of the largest
// magnitude), the catalog keeps its version, tracks without one stay
// without, and a decoded embedding is its own quantization (so ingestion,
// which quantizes, sees no change on the next run); a catalog with none is
// written in format 2, as before embeddings.
func TestSnapshotKeepsAudioEmbeddings(t *testing.T) {
	c := catalogtest.Contents(3, 0)
	c.Tracks[0].AudioEmbedding = []float32{0.5, -0.25, 0.1, 0.8, -0.0001}
	c.Tracks[2].AudioEmbedding = []float32{0, 0, 0}
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := catalog.Encode(&buf, cat); err != nil {
		t.Fatal(err)
	}
	if b := buf.Bytes(); string(b[:7]) != "MCSNAP\x03" {
		t.Fatalf("head %q, want format 3", b[:7])
	}
	got, err := catalog.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != cat.Version() {
		t.Fatalf("version %s after the round trip, was %s", got.Version(), cat.Version())
	}
	for i, want := range c.Tracks {
		have := got.Tracks()[i].AudioEmbedding
		if len(have) != len(want.AudioEmbedding) {
			t.Fatalf("track %d: embedding %v, want %v", i, have, want.AudioEmbedding)
		}
		for k, w := range want.AudioEmbedding {
			if d := math.Abs(float64(have[k] - w)); d > 0.8/127+1e-7 {
				t.Errorf("track %d value %d: %g, want %g", i, k, have[k], w)
			}
		}
		if q := catalog.QuantizeEmbedding(have); !slices.Equal(q, have) {
			t.Errorf("track %d: decoded %v quantizes to %v", i, have, q)
		}
	}
	var plain bytes.Buffer
	if err := catalog.Encode(&plain, sample(t)); err != nil {
		t.Fatal(err)
	}
	if b := plain.Bytes(); string(b[:7]) != "MCSNAP\x02" {
		t.Fatalf("a catalog without embeddings: head %q, want format 2", b[:7])
	}
}
