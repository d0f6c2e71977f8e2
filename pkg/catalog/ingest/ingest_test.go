package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/waveform"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/ingest"
	"musiccatalog/pkg/catalog/manifest"
)

// needFFmpeg skips without ffmpeg, except under CI where it must be there.
func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ffmpeg is required under CI=true")
		}
		t.Skip("ffmpeg not installed")
	}
}

func run(t *testing.T, opts ingest.Options, path string) ingest.Report {
	t.Helper()
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	rep, err := ingest.Run(t.Context(), opts, path)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, rep)
	}
	return rep
}

func current(t *testing.T, bs blob.Store) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Load(t.Context(), bs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func readBlob(t *testing.T, bs blob.Store, key string) []byte {
	t.Helper()
	rc, _, err := bs.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeWAV(t *testing.T, path string, p audio.PCM) {
	t.Helper()
	var buf bytes.Buffer
	if err := decode.WriteWAV(&buf, p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeManifest(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// segmentIndex merges the catalog's fingerprint segments.
func segmentIndex(t *testing.T, bs blob.Store, c *catalog.Catalog) *fingerprint.Index {
	t.Helper()
	var ixs []*fingerprint.Index
	for _, k := range c.FingerprintSegments() {
		ix, err := fingerprint.ReadIndex(bytes.NewReader(readBlob(t, bs, k)))
		if err != nil {
			t.Fatalf("segment %s: %v", k, err)
		}
		ixs = append(ixs, ix)
	}
	ix, err := fingerprint.Merge(ixs...)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// matchClip checks that a clip of the track's stored wav is recognised as
// the track by the catalog's fingerprint index.
func matchClip(t *testing.T, bs blob.Store, ix *fingerprint.Index, tr *catalog.Track, start, length float64) {
	t.Helper()
	pcm, err := decode.Decoder{}.Decode(t.Context(), bytes.NewReader(readBlob(t, bs, tr.Audio.WAVKey)))
	if err != nil {
		t.Fatal(err)
	}
	q := fingerprint.New(fingerprint.QueryOptions).Fingerprint(pcm.Window(start, length))
	got := ix.Match(q, fingerprint.MatchOptions{})
	if len(got) == 0 || got[0].TrackID != tr.ID {
		t.Fatalf("a clip of %q at %.0f s matched %+v, want %s", tr.Name, start, got, tr.ID)
	}
}

func TestIngestDemoCatalog(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	path, err := demo.Generate(t.Context(), dir, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	bs := catalogtest.NewStore(t)
	var progress bytes.Buffer
	rep := run(t, ingest.Options{Blob: bs, Progress: &progress}, path)
	if !rep.Published || rep.Tracks != 4 || rep.SoundFX != demo.SoundFXCount(4) || rep.Stems == 0 || rep.Added != 4+demo.SoundFXCount(4) ||
		len(rep.Errors) != 0 || rep.Segments != 1 || rep.Segment == "" || rep.Previous != "" {
		t.Fatalf("first ingest:\n%s", rep)
	}
	if n := strings.Count(progress.String(), "\n"); n != rep.Tracks+rep.SoundFX || !strings.Contains(progress.String(), "ETA") {
		t.Fatalf("progress (want a line per asset):\n%s", progress.String())
	}
	c := current(t, bs)
	if c.Version() != rep.Version {
		t.Fatalf("current %s, report %s", c.Version(), rep.Version)
	}
	recs, _ := demo.Records(4, 3)
	for i, tr := range c.Tracks() {
		want := recs[i]
		if tr.Name != want.Name || *tr.Tempo != *want.Tempo || tr.Length < 18 || tr.Length > 42 {
			t.Errorf("track %d: %q %v BPM %d s; manifest says %q %v BPM", i, tr.Name, *tr.Tempo, tr.Length, want.Name, *want.Tempo)
		}
		// The Basic Pitch embedding, through the snapshot's 8 bits.
		var norm float64
		for _, v := range tr.AudioEmbedding {
			norm += float64(v) * float64(v)
		}
		if len(tr.AudioEmbedding) != 32 || math.Abs(norm-1) > 0.02 {
			t.Errorf("track %d: embedding of %d values, norm² %.3f", i, len(tr.AudioEmbedding), norm)
		}
		for _, a := range append([]catalog.AudioRef{tr.Audio}, stemAudio(tr)...) {
			if _, err := bs.Head(t.Context(), a.MP3Key); err != nil {
				t.Errorf("mp3 of %s: %v", tr.Name, err)
			}
			wav, err := decode.ReadWAV(bytes.NewReader(readBlob(t, bs, a.WAVKey)))
			if err != nil || wav.Rate != demo.SampleRate || math.Abs(wav.Seconds()-float64(tr.Length)) > 1 {
				t.Errorf("wav of %s: %v, %d Hz, %.1f s for length %d", tr.Name, err, wav.Rate, wav.Seconds(), tr.Length)
			}
		}
		var peaks waveform.Peaks
		if err := json.Unmarshal(readBlob(t, bs, tr.WaveformKey), &peaks); err != nil || peaks.Version != waveform.Version ||
			peaks.Length != len(peaks.Data)/2 || math.Abs(float64(peaks.Length*peaks.SamplesPerPixel)/float64(peaks.SampleRate)-float64(tr.Length)) > 1 {
			t.Errorf("waveform of %s: %v %+v", tr.Name, err, peaks.Length)
		}
	}
	ix := segmentIndex(t, bs, c)
	if ix.Len() == 0 || len(ix.Tracks()) != 4 {
		t.Fatalf("index: %d postings, %d tracks", ix.Len(), len(ix.Tracks()))
	}
	matchClip(t, bs, ix, c.Tracks()[2], 8, 6)

	// The same manifest again changes nothing and decodes nothing.
	again := run(t, ingest.Options{Blob: bs}, path)
	if again.Published || again.Version != rep.Version || again.Decoded != 0 || again.Unchanged != rep.Added || again.Updated+again.Added != 0 {
		t.Fatalf("re-ingest:\n%s", again)
	}

	// Metadata only: a new version, no audio work, the segment kept.
	lines := strings.Split(strings.TrimSpace(string(must(os.ReadFile(path)))), "\n")
	lines[1] = strings.Replace(lines[1], `"description":"`, `"description":"Edited. `, 1)
	writeManifest(t, path, lines...)
	edited := run(t, ingest.Options{Blob: bs}, path)
	if !edited.Published || edited.Updated != 1 || edited.Decoded != 0 || edited.Segment != "" || edited.Segments != 1 {
		t.Fatalf("metadata edit:\n%s", edited)
	}

	// Stems are indexed under their track: a clip of a stem alone is found
	// as the track. New audio for a stem re-indexes its track.
	withStem := slices.IndexFunc(recs, func(r manifest.Track) bool { return len(r.Stems) > 0 })
	if withStem < 0 {
		t.Fatal("the demo catalog has no stems")
	}
	stemClip := func(c *catalog.Catalog) {
		t.Helper()
		tr := *c.Tracks()[withStem]
		tr.Audio = tr.Stems[0].Audio // matchClip reads this audio and wants tr.ID
		matchClip(t, bs, segmentIndex(t, bs, c), &tr, 4, 8)
	}
	stemClip(current(t, bs))
	writeWAV(t, filepath.Join(dir, recs[withStem].Stems[0].Audio), audiotest.KeyPiece(demo.SampleRate, 20, 7, true, 11))
	restemmed := run(t, ingest.Options{Blob: bs}, path)
	if !restemmed.Published || restemmed.Updated != 1 || restemmed.Decoded != 1 || restemmed.Segment == "" || restemmed.Segments != 1 {
		t.Fatalf("stem audio change:\n%s", restemmed)
	}
	stemClip(current(t, bs))

	// New audio for track 1: decoded and indexed again; the old segment
	// held it, so all tracks go into the new one.
	tr1 := current(t, bs).Tracks()[1]
	writeWAV(t, filepath.Join(dir, recs[1].Audio), audiotest.KeyPiece(demo.SampleRate, 12, 2, false, 5))
	changed := run(t, ingest.Options{Blob: bs}, path)
	c = current(t, bs)
	if !changed.Published || changed.Updated != 1 || changed.Decoded != 1 || changed.Segment == "" || changed.Segments != 1 ||
		c.Tracks()[1].Audio.SHA256 == tr1.Audio.SHA256 || c.Tracks()[1].Length != 12 {
		t.Fatalf("audio change:\n%s", changed)
	}
	ix = segmentIndex(t, bs, c)
	matchClip(t, bs, ix, c.Tracks()[1], 2, 8)

	// A second manifest adds a track in a delta segment, keeping the first.
	extra := filepath.Join(dir, "extra.jsonl")
	writeWAV(t, filepath.Join(dir, "extra.wav"), audiotest.KeyPiece(demo.SampleRate, 10, 9, true, 6))
	writeManifest(t, extra, `{"kind":"track","name":"Extra","artist":{"name":"Someone"},"audio":"extra.wav"}`)
	added := run(t, ingest.Options{Blob: bs}, extra)
	c = current(t, bs)
	if x := c.Tracks()[4]; added.Added != 1 || added.Tracks != 5 || added.Segments != 2 || x.Name != "Extra" || x.Tempo == nil || x.Key == nil || len(x.Features) == 0 {
		t.Fatalf("delta:\n%s", added)
	}
	matchClip(t, bs, segmentIndex(t, bs, c), c.Tracks()[4], 1, 8)

	comp, err := ingest.Compact(t.Context(), bs)
	if err != nil || !comp.Published || comp.Segments != 2 {
		t.Fatalf("compact: %+v %v", comp, err)
	}
	c = current(t, bs)
	indexed := 0 // tracks and the stems indexed under them
	for _, tr := range c.Tracks() {
		indexed += 1 + len(tr.Stems)
	}
	if len(c.FingerprintSegments()) != 1 || len(c.Tracks()) != 5 || len(c.Segments()[0].TrackIDs) != indexed {
		t.Fatalf("after compaction: %v", c.Segments())
	}
	matchClip(t, bs, segmentIndex(t, bs, c), c.Tracks()[0], 4, 8)

	// Replace: the manifest becomes the whole catalog.
	replaced := run(t, ingest.Options{Blob: bs, Replace: true}, extra)
	c = current(t, bs)
	if replaced.Removed != 4+demo.SoundFXCount(4) || len(c.Tracks()) != 1 || len(c.SoundFXs()) != 0 || replaced.Decoded != 0 {
		t.Fatalf("replace:\n%s", replaced)
	}
}

func stemAudio(t *catalog.Track) []catalog.AudioRef {
	var out []catalog.AudioRef
	for _, s := range t.Stems {
		out = append(out, s.Audio)
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestBadRecordsAreReportedAndSkipped(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	writeWAV(t, filepath.Join(dir, "ok.wav"), audiotest.Tone(demo.SampleRate, 2, 440, 0.5))
	if err := os.WriteFile(filepath.Join(dir, "corrupt.mp3"), bytes.Repeat([]byte("not audio "), 500), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "m.jsonl")
	writeManifest(t, path,
		`{"kind":"soundfx","name":"Beep","genre_name":"UI","audio":"ok.wav"}`,
		`{"kind":"soundfx","name":"Gone","audio":"missing.wav"}`,
		`{"kind":"soundfx","name":"Broken","audio":"corrupt.mp3"}`,
		`{"kind":"track","name":"Bad Stem","artist":{"name":"x"},"audio":"ok.wav","stems":[{"name":"Drums","audio":"corrupt.mp3"}]}`,
		`{"kind":"track","name":"","audio":"ok.wav"}`,
		`{"kind":"soundfx","name":"Beep 2","genre_name":"UI","audio":"ok.wav","volume":3}`,
	)
	bs := catalogtest.NewStore(t)
	rep := run(t, ingest.Options{Blob: bs}, path)
	var lines []int
	for _, e := range rep.Errors {
		lines = append(lines, e.Line)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if !slices.Equal(lines, []int{2, 3, 4, 5}) || rep.SoundFX != 2 || rep.Tracks != 0 || len(rep.Warnings) != 1 || rep.Warnings[0].Line != 6 {
		t.Fatalf("report:\n%s", rep)
	}
	for _, e := range rep.Errors {
		if e.Line == 4 && e.Field != "stems[0].audio" {
			t.Errorf("stem failure reported on %q", e.Field)
		}
	}
	c := current(t, bs)
	a, b := c.SoundFXs()[0], c.SoundFXs()[1]
	// Same audio: shared waveform, own renditions.
	if a.Length != 2 || a.WaveformKey != b.WaveformKey || a.Audio.MP3Key == b.Audio.MP3Key || a.Audio.SHA256 != b.Audio.SHA256 {
		t.Fatalf("sound effects %+v %+v", a, b)
	}
}

func TestReplaceRefusesAnEmptyCatalog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	writeManifest(t, path, `{"kind":"nothing"}`)
	bs := catalogtest.NewStore(t)
	if _, err := ingest.Run(t.Context(), ingest.Options{Blob: bs, Replace: true}, path); err == nil {
		t.Fatal("a manifest without a valid record replaced the catalog")
	}
}

func TestMissingFFmpegStopsTheRun(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, filepath.Join(dir, "ok.wav"), audiotest.Tone(8000, 1, 440, 0.5))
	path := filepath.Join(dir, "m.jsonl")
	writeManifest(t, path, `{"kind":"soundfx","name":"Beep","audio":"ok.wav"}`)
	bs := catalogtest.NewStore(t)
	_, err := ingest.Run(t.Context(), ingest.Options{Blob: bs, FFmpegPath: filepath.Join(dir, "no-ffmpeg")}, path)
	if err == nil {
		t.Fatal("ingest without ffmpeg succeeded")
	}
	if _, err := catalog.Load(t.Context(), bs); !errors.Is(err, catalog.ErrNoCatalog) {
		t.Fatalf("something was published: %v", err)
	}
}

// fakeAnalyzer stands in for the audio engine.
type fakeAnalyzer struct {
	version string
	calls   atomic.Int32
	fail    bool
}

func (f *fakeAnalyzer) Version() string { return f.version }

func (f *fakeAnalyzer) Analyze(_ context.Context, pcm audio.PCM) (ingest.Analysis, error) {
	f.calls.Add(1)
	if f.fail {
		return ingest.Analysis{}, errors.New("no beat found")
	}
	return ingest.Analysis{Tempo: 101, Key: "a min", Vector: []float32{1, 2, float32(pcm.Seconds())}, Energy: 0.4,
		Highlights: []catalog.Region{{Offset: 1, Duration: pcm.Seconds() / 2}}}, nil
}

func TestAnalyzerPlugsInAndManifestWins(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	writeWAV(t, filepath.Join(dir, "a.wav"), audiotest.KeyPiece(demo.SampleRate, 4, 0, false, 1))
	writeWAV(t, filepath.Join(dir, "b.wav"), audiotest.KeyPiece(demo.SampleRate, 4, 7, false, 2))
	path := filepath.Join(dir, "m.jsonl")
	writeManifest(t, path,
		`{"kind":"track","name":"Analyzed","artist":{"name":"x"},"audio":"a.wav","stems":[{"name":"Keys","audio":"b.wav"}]}`,
		`{"kind":"track","name":"Given","artist":{"name":"x"},"audio":"b.wav","tempo":90,"key":"G major"}`)
	bs := catalogtest.NewStore(t)
	an := &fakeAnalyzer{version: "v1"}
	run(t, ingest.Options{Blob: bs, Analyzer: an}, path)
	c := current(t, bs)
	a, g := c.Tracks()[0], c.Tracks()[1]
	if *a.Tempo != 101 || *a.Key != "A minor" || len(a.Features) != 3 || a.Energy != 0.4 || a.Highlights[0].Duration != 2 {
		t.Fatalf("analyzed track %+v", a)
	}
	if *g.Tempo != 90 || *g.Key != "G major" || len(g.Features) != 3 {
		t.Fatalf("manifest tempo and key must win: %+v", g)
	}
	if n := an.calls.Load(); n != 2 {
		t.Fatalf("%d analyses, want one per track (not stems)", n)
	}
	// Cached: the same analyzer version analyzes nothing again.
	run(t, ingest.Options{Blob: bs, Analyzer: an}, path)
	if n := an.calls.Load(); n != 2 {
		t.Fatalf("%d analyses after a re-ingest", n)
	}
	// A new version re-analyzes, without transcoding again.
	an2 := &fakeAnalyzer{version: "v2", fail: true}
	rep := run(t, ingest.Options{Blob: bs, Analyzer: an2}, path)
	if an2.calls.Load() != 2 || len(rep.Warnings) != 2 || rep.Tracks != 2 || len(rep.Errors) != 0 {
		t.Fatalf("failed analysis must warn and keep the tracks:\n%s", rep)
	}
	if c := current(t, bs); c.Tracks()[0].Tempo != nil || c.Tracks()[0].Features != nil {
		t.Fatalf("stale analysis kept: %+v", c.Tracks()[0])
	}
}

func TestRunBlobResolvesKeysNextToTheManifest(t *testing.T) {
	needFFmpeg(t)
	bs := catalogtest.NewStore(t)
	ctx := t.Context()
	put := func(key string, b []byte) {
		if err := bs.Put(ctx, key, bytes.NewReader(b), int64(len(b)), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	var wav bytes.Buffer
	if err := decode.WriteWAV(&wav, audiotest.Tone(16000, 1.5, 300, 0.4)); err != nil {
		t.Fatal(err)
	}
	put("catalog-manifests/batch1/sfx/hum.wav", wav.Bytes())
	put("catalog-manifests/shared/beep.wav", wav.Bytes())
	put("video-recognition/c1/j1/clip.wav", wav.Bytes()) // a partner's upload
	put("catalog-manifests/batch1/catalog.jsonl", []byte(
		`{"kind":"soundfx","name":"Hum","audio":"sfx/hum.wav"}`+"\n"+
			`{"kind":"soundfx","name":"Beep","audio":"blob:catalog-manifests/shared/beep.wav"}`+"\n"+
			`{"kind":"soundfx","name":"Local","audio":"/etc/hostname"}`+"\n"+
			`{"kind":"soundfx","name":"Theirs","audio":"blob:video-recognition/c1/j1/clip.wav"}`+"\n"+
			`{"kind":"soundfx","name":"Theirs too","audio":"../../video-recognition/c1/j1/clip.wav"}`+"\n"))
	rep, err := ingest.RunBlob(ctx, ingest.Options{Blob: bs, Workers: 1}, "catalog-manifests/batch1/catalog.jsonl")
	if err != nil || rep.SoundFX != 2 || len(rep.Errors) != 3 || rep.Errors[0].Line != 3 || rep.Errors[1].Line != 4 || rep.Errors[2].Line != 5 {
		t.Fatalf("%v\n%s", err, rep)
	}
	if _, err := ingest.RunBlob(ctx, ingest.Options{Blob: bs}, "catalog-manifests/none.jsonl"); err == nil {
		t.Fatal("a missing manifest key was accepted")
	}
}

// wesnothManifest is the hand-written manifest over installed wesnoth music.
const wesnothManifest = "testdata/wesnoth.jsonl"

func TestIngestWesnoth(t *testing.T) {
	needFFmpeg(t)
	if _, err := os.Stat("/usr/share/games/wesnoth/1.16/data/core/music/victory.ogg"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the wesnoth-1.16-music package is required under CI=true")
		}
		t.Skip("wesnoth-1.16-music is not installed")
	}
	bs := catalogtest.NewStore(t)
	rep := run(t, ingest.Options{Blob: bs}, wesnothManifest)
	if rep.Tracks != 3 || rep.Stems != 1 || rep.SoundFX != 1 || len(rep.Errors) != 1 || rep.Errors[0].Line != 5 ||
		len(rep.Warnings) != 1 || rep.Warnings[0].Field != "composer" {
		t.Fatalf("report:\n%s", rep)
	}
	c := current(t, bs)
	byName := map[string]*catalog.Track{}
	for _, tr := range c.Tracks() {
		byName[tr.Name] = tr
	}
	victory, defeat, victory2 := byName["Victory"], byName["Defeat"], byName["Victory II"]
	if victory == nil || defeat == nil || victory2 == nil {
		t.Fatalf("tracks %v", c.Tracks())
	}
	// Lengths measured from the files (ffprobe: 5.46, 8.49, 21.16 and 14.17 s).
	if victory.Length != 5 || defeat.Length != 8 || victory2.Length != 21 || defeat.Stems[0].Length != 14 {
		t.Fatalf("lengths %d %d %d %d", victory.Length, defeat.Length, victory2.Length, defeat.Stems[0].Length)
	}
	if victory.ID != "6f1d3c52-8a4e-4c1b-9a57-2f0e5b8d1a01" || defeat.ID != manifest.TrackID("Wesnoth", "Battle for Wesnoth", "Defeat", "") {
		t.Fatalf("ids %s %s", victory.ID, defeat.ID)
	}
	// Tempo and key from the manifest where given, from the engine otherwise.
	if *defeat.Tempo != 72 || *defeat.Key != "D minor" || victory.Tempo == nil || victory.Key == nil || defeat.AccessTier != catalog.TierSubscriber ||
		!victory2.Restricted || victory2.AccessTier != catalog.TierEnterprise || victory2.Variant != "Extended" {
		t.Fatalf("metadata lost: %+v %+v", defeat, victory2)
	}
	for _, tr := range c.Tracks() {
		if len(tr.Features) != len(c.FeatureScaler().Mean) || len(tr.Features) == 0 || len(tr.Highlights) == 0 || tr.Energy <= 0 {
			t.Errorf("%s: no analysis: %d features, highlights %v, energy %g", tr.Name, len(tr.Features), tr.Highlights, tr.Energy)
		}
	}
	if fx := c.SoundFXs()[0]; fx.Length != 10 || fx.Genre != "Ambience" {
		t.Fatalf("sound effect %+v", fx)
	}
	// The renditions keep the source's 44.1 kHz stereo.
	wav := readBlob(t, bs, victory2.Audio.WAVKey)
	if len(wav) < 44 || string(wav[:4]) != "RIFF" || wav[22] != 2 {
		t.Fatalf("wav rendition header % x", wav[:min(len(wav), 44)])
	}
	ix := segmentIndex(t, bs, c)
	matchClip(t, bs, ix, victory2, 6, 10)
	matchClip(t, bs, ix, defeat, 1, 6)
	if f := c.AllTrackFilters(); len(f.Genres) != 1 || f.Genres[0].Count != 3 || f.Duration != [2]float64{5, 21} {
		t.Fatalf("filters %+v", f)
	}
	again := run(t, ingest.Options{Blob: bs}, wesnothManifest)
	if again.Published || again.Decoded != 0 {
		t.Fatalf("re-ingest:\n%s", again)
	}
}

// TestOlderManifestRunAgainLeavesNewerAssets: S3 delivers an event at least
// once and Lambda retries a failed ingest, so an older manifest can run
// after a newer one was published. The assets the newer one set stay as it
// set them; the older manifest's other assets still apply; a re-upload of
// the older manifest (written later) is the newest and wins.
func TestOlderManifestRunAgainLeavesNewerAssets(t *testing.T) {
	needFFmpeg(t)
	bs := catalogtest.NewStore(t)
	ctx := t.Context()
	put := func(key string, b []byte) {
		t.Helper()
		if err := bs.Put(ctx, key, bytes.NewReader(b), int64(len(b)), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	pcm, _ := audiotest.Song(22050, 6, 3)
	var wav bytes.Buffer
	if err := decode.WriteWAV(&wav, pcm); err != nil {
		t.Fatal(err)
	}
	put("catalog-manifests/song.wav", wav.Bytes())
	wav.Reset()
	if err := decode.WriteWAV(&wav, audiotest.Tone(16000, 1.5, 300, 0.4)); err != nil {
		t.Fatal(err)
	}
	put("catalog-manifests/hum.wav", wav.Bytes())
	const id = "5b0b6f5e-2a55-4a8e-9a51-0a3f4f1c2d7e"
	track := func(name string, restricted bool) string {
		return fmt.Sprintf(`{"kind":"track","id":%q,"name":%q,"artist":{"name":"Drop"},"genre_name":"Pop","restricted":%v,"audio":"song.wav"}`, id, name, restricted)
	}
	// The older manifest sorts after the newer one by key: only the times
	// can order them (S3's Last-Modified has whole seconds).
	older, newer := "catalog-manifests/z-older.jsonl", "catalog-manifests/a-newer.jsonl"
	put(older, []byte(track("Old Name", false)+"\n"+`{"kind":"soundfx","name":"Hum","audio":"hum.wav"}`+"\n"))
	time.Sleep(1100 * time.Millisecond)
	put(newer, []byte(track("New Name", true)+"\n"))
	runBlob := func(key string) ingest.Report {
		t.Helper()
		rep, err := ingest.RunBlob(ctx, ingest.Options{Blob: bs, Workers: 1}, key)
		if err != nil {
			t.Fatalf("%s: %v\n%s", key, err, rep)
		}
		return rep
	}
	check := func(name string, restricted bool, sfx int) {
		t.Helper()
		c := current(t, bs)
		tr, _ := c.Track(id)
		if tr == nil || tr.Name != name || tr.Restricted != restricted || len(c.SoundFXs()) != sfx {
			t.Fatalf("track %+v, %d sound effects; want %q restricted %v, %d sound effects", tr, len(c.SoundFXs()), name, restricted, sfx)
		}
	}
	runBlob(newer)
	check("New Name", true, 0)
	rep := runBlob(older) // the older upload's event, retried
	check("New Name", true, 1)
	if rep.Superseded != 1 || rep.Added != 1 || !strings.Contains(fmt.Sprint(rep.Warnings), newer) {
		t.Fatalf("older manifest's report: %s", rep)
	}
	if rep := runBlob(older); rep.Published || rep.Superseded != 1 {
		t.Fatalf("the same older manifest again: %s", rep)
	}
	if rep := runBlob(newer); rep.Published {
		t.Fatalf("the newer manifest again: %s", rep)
	}
	check("New Name", true, 1)
	time.Sleep(1100 * time.Millisecond)
	put(older, []byte(track("Old Name", false)+"\n")) // uploaded again: now the newest
	if rep := runBlob(older); !rep.Published || rep.Superseded != 0 {
		t.Fatalf("the re-uploaded manifest: %s", rep)
	}
	check("Old Name", false, 1)
}
