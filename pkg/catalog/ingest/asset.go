package ingest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/dsp"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/waveform"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// noAnalysis is the analyzer version of audio that is only measured:
// stems and sound effects.
const noAnalysis = "none"

// Transcoding batches: ffmpeg takes a good fraction of a second just to
// start where it is linked against hundreds of shared libraries, so a
// worker hands it several files at once, up to these bounds (in seconds of
// audio, and files).
const (
	batchSeconds = 240
	batchFiles   = 16
)

// facts is what is known about one audio file, cached under its SHA-256
// and the analyzer version.
type facts struct {
	Seconds  float64   `json:"seconds"`
	Analysis *Analysis `json:"analysis,omitempty"`
}

// worker processes records with its own fingerprinter (they are not safe
// for concurrent use) and scratch directory.
type worker struct {
	r       *run
	fp      *fingerprint.Fingerprinter
	stemFP  *fingerprint.Fingerprinter // stemOptions
	tmp     string
	pending []*record // measured, waiting for their renditions
	outputs int       // names scratch files uniquely
}

// record is one manifest asset in flight.
type record struct {
	idx   int // in the manifest's assets
	asset manifest.Asset
	files []*file // the asset's audio, then its stems'
	out   *processed
}

// file is one audio file in flight.
type file struct {
	id, field string
	track     bool // analyzed and fingerprinted
	stem      bool // fingerprinted sparser, indexed under its track
	path      string
	cleanup   func()
	res       audioOut
	mp3, wav  string // scratch outputs when it needs transcoding
}

// processed is the outcome of one manifest asset.
type processed struct {
	line     int // of the manifest record
	track    *catalog.Track
	sfx      *catalog.SoundFX
	seconds  float64 // audio duration of the asset and its stems
	decoded  int     // audio files decoded (0 when everything was reused)
	warnings []manifest.Problem
	problem  *manifest.Problem // the asset failed and is skipped
}

// audioOut is what is known of one audio file once measured.
type audioOut struct {
	ref      catalog.AudioRef
	waveform string
	seconds  float64
	analysis *Analysis
	decoded  bool
	warning  string
}

// add measures a record's audio and queues what needs transcoding; the
// queue is flushed when it holds enough audio.
func (w *worker) add(ctx context.Context, idx int, a manifest.Asset) error {
	rec := &record{idx: idx, asset: a, out: &processed{line: a.Line}}
	rec.files = append(rec.files, &file{id: a.ID(), field: "audio", track: a.Track != nil})
	srcs := []manifest.Source{a.Audio}
	if a.Track != nil {
		for i, s := range a.Track.Stems {
			rec.files = append(rec.files, &file{id: s.ID, field: fmt.Sprintf("stems[%d].audio", i), stem: true})
			srcs = append(srcs, a.Stems[i])
		}
	}
	for i, f := range rec.files {
		if err := w.measure(ctx, f, srcs[i]); err != nil {
			rec.cleanup()
			if rec.fail(f.field, err) {
				w.r.progress.finished(0, describe(a, rec.out))
				w.r.results[idx] = rec.out
				return nil
			}
			return err
		}
	}
	w.pending = append(w.pending, rec)
	secs, files := 0.0, 0
	for _, p := range w.pending {
		for _, f := range p.files {
			if f.mp3 != "" {
				secs += f.res.seconds
				files++
			}
		}
	}
	if secs >= batchSeconds || files >= batchFiles {
		return w.flush(ctx)
	}
	return nil
}

// fail records an input failure of the record; false when err is not the
// input's fault (the run must stop).
func (rec *record) fail(field string, err error) bool {
	var in inputError
	if !errors.As(err, &in) {
		return false
	}
	rec.out.problem = &manifest.Problem{Line: rec.asset.Line, Field: field, Message: in.Error()}
	return true
}

func (rec *record) cleanup() {
	for _, f := range rec.files {
		if f.cleanup != nil {
			f.cleanup()
			f.cleanup = nil
		}
	}
}

// flush transcodes what the pending records need, stores the renditions
// and completes the records.
func (w *worker) flush(ctx context.Context) error {
	recs := w.pending
	w.pending = nil
	defer func() {
		for _, rec := range recs {
			rec.cleanup()
		}
	}()
	var todo []*file
	owner := map[*file]*record{}
	for _, rec := range recs {
		for _, f := range rec.files {
			if f.mp3 != "" {
				todo = append(todo, f)
				owner[f] = rec
			}
		}
	}
	err := transcode(ctx, w.r.ffmpeg, todo)
	if err != nil && len(todo) > 1 && errors.As(err, new(inputError)) {
		// Find the culprits: one file at a time.
		for _, f := range todo {
			if err := transcode(ctx, w.r.ffmpeg, []*file{f}); err != nil && !owner[f].fail(f.field, err) {
				return err
			}
		}
	} else if err != nil && !owner[todo[0]].fail(todo[0].field, err) {
		return err
	}
	for _, f := range todo {
		if owner[f].out.problem != nil {
			continue
		}
		if err := w.r.putFile(ctx, f.res.ref.MP3Key, f.mp3, "audio/mpeg"); err != nil {
			return err
		}
		if err := w.r.putFile(ctx, f.res.ref.WAVKey, f.wav, "audio/wav"); err != nil {
			return err
		}
	}
	for _, rec := range recs {
		if rec.out.problem == nil {
			rec.complete()
		}
		w.r.progress.finished(rec.out.seconds, describe(rec.asset, rec.out))
		w.r.results[rec.idx] = rec.out
	}
	return nil
}

// complete fills in the catalog record from the measured audio.
func (rec *record) complete() {
	out, a := rec.out, rec.asset
	for _, f := range rec.files {
		out.seconds += f.res.seconds
		if f.res.decoded {
			out.decoded++
		}
		if f.res.warning != "" {
			out.warnings = append(out.warnings, manifest.Problem{Line: a.Line, Field: f.field, Message: f.res.warning})
		}
	}
	main := rec.files[0].res
	if a.SoundFX != nil {
		s := *a.SoundFX
		s.Length, s.Audio, s.WaveformKey = seconds(main.seconds), main.ref, main.waveform
		out.sfx = &s
		return
	}
	t := *a.Track
	t.Length, t.Audio, t.WaveformKey = seconds(main.seconds), main.ref, main.waveform
	if an := main.analysis; an != nil {
		if t.Tempo == nil && an.Tempo > 0 {
			v := an.Tempo
			t.Tempo = &v
		}
		if t.Key == nil && an.Key != "" {
			if k, ok := manifest.NormalizeKey(an.Key); ok {
				t.Key = &k
			}
		}
		t.Vector, t.Energy, t.Highlights = an.Vector, an.Energy, an.Highlights
		t.AudioEmbedding = catalog.QuantizeEmbedding(an.Embedding) // as its snapshot will have it
	}
	t.Stems = slices.Clone(t.Stems)
	for i := range t.Stems {
		so := rec.files[i+1].res
		t.Stems[i].Length, t.Stems[i].Audio, t.Stems[i].WaveformKey = seconds(so.seconds), so.ref, so.waveform
	}
	out.track = &t
}

// seconds is the whole-second length of the API: rounded, and at least 1
// for any audio at all.
func seconds(s float64) int {
	if s <= 0 {
		return 0
	}
	return max(1, int(math.Round(s)))
}

// measure makes sure everything derived from one audio file exists: facts
// (length, analysis), waveform peaks and, for tracks and stems,
// fingerprint hashes.
// It decodes only when one of them is missing, and queues a transcode only
// when the asset's renditions are not those of this audio already.
func (w *worker) measure(ctx context.Context, f *file, src manifest.Source) error {
	path, sha, cleanup, err := w.fetch(ctx, src)
	if err != nil {
		return err
	}
	f.path, f.cleanup = path, cleanup
	r := w.r
	out := audioOut{ref: catalog.AudioRef{MP3Key: mp3Key(f.id), WAVKey: wavKey(f.id), SHA256: sha}, waveform: WaveformKey(sha)}
	version := noAnalysis
	if f.track {
		version = r.opts.Analyzer.Version()
	}
	var fa facts
	haveFacts, err := r.getJSON(ctx, factsKey(sha, version), &fa)
	if err != nil {
		return err
	}
	haveWaveform, err := r.exists(ctx, out.waveform)
	if err != nil {
		return err
	}
	indexed := f.track || f.stem
	hkey := hashesKey(sha)
	if f.stem {
		hkey = stemHashesKey(sha)
	}
	haveHashes := !indexed
	if indexed {
		if haveHashes, err = r.exists(ctx, hkey); err != nil {
			return err
		}
	}
	if !haveFacts || !haveWaveform || !haveHashes {
		pcm, err := w.decode(ctx, path, indexed)
		if err != nil {
			return err
		}
		out.decoded = true
		if !haveFacts {
			fa = facts{Seconds: pcm.Seconds()}
			cache := true
			if version != noAnalysis {
				an, err := r.opts.Analyzer.Analyze(ctx, pcm)
				if err == nil {
					an.Embedding, err = w.embed(ctx, path, pcm)
				}
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					out.warning = "analysis failed, the track goes in without it: " + err.Error()
					cache = false // try again on the next ingest
				} else {
					fa.Analysis = &an
				}
			}
			if cache {
				if err := r.putJSON(ctx, factsKey(sha, version), fa); err != nil {
					return err
				}
			}
		}
		if !haveWaveform {
			// The same pixels per second at any rate.
			spp := max(1, waveform.DefaultSamplesPerPixel*pcm.Rate/audio.DefaultSampleRate)
			if err := r.putJSON(ctx, out.waveform, waveform.Compute(pcm, spp)); err != nil {
				return err
			}
		}
		if !haveHashes {
			fp := w.fp
			if f.stem {
				fp = w.stemFP
			}
			h := trackHashes{Seconds: pcm.Seconds(), Hashes: fp.Fingerprint(pcm)}
			if err := r.put(ctx, hkey, h.marshal(), "application/octet-stream"); err != nil {
				return err
			}
			r.remember(hkey, h)
		}
	}
	out.seconds, out.analysis = fa.Seconds, fa.Analysis
	f.res = out
	ok, err := r.renditionsOf(ctx, f.id, sha)
	if err != nil || ok {
		return err
	}
	w.outputs++
	f.mp3 = filepath.Join(w.tmp, fmt.Sprintf("out%d.mp3", w.outputs))
	f.wav = filepath.Join(w.tmp, fmt.Sprintf("out%d.wav", w.outputs))
	mp3, wav, prev := f.mp3, f.wav, f.cleanup
	f.cleanup = func() {
		prev()
		os.Remove(mp3)
		os.Remove(wav)
	}
	return nil
}

// decode returns the audio. PCM WAV files are read in Go, which spares an
// ffmpeg start per file, and resampled to the decoder's rate only for
// analysis and fingerprints (tracks and stems): a waveform needs no
// particular rate. Anything else, and WAV flavours ReadWAV does not know,
// goes through the Decoder.
func (w *worker) decode(ctx context.Context, path string, analyze bool) (audio.PCM, error) {
	rate := 0 // a WAV's own
	if analyze {
		rate = w.r.opts.Decoder.SampleRate
		if rate <= 0 {
			rate = audio.DefaultSampleRate
		}
	}
	return w.decodeAt(ctx, path, rate, w.r.opts.Decoder)
}

// decodeAt decodes the audio at path at rate (0: a WAV's own rate, else
// the decoder's), reading WAVs in Go and the rest with ffmpeg.
func (w *worker) decodeAt(ctx context.Context, path string, rate int, d decode.Decoder) (audio.PCM, error) {
	if strings.EqualFold(filepath.Ext(path), ".wav") {
		if pcm, err := readWAV(path); err == nil && len(pcm.Samples) > 0 {
			if rate <= 0 {
				return pcm, nil
			}
			return dsp.Resample(pcm, rate), nil
		}
	}
	if rate > 0 {
		d.SampleRate = rate
	}
	pcm, err := d.DecodeFile(ctx, path)
	if err != nil && decode.Code(err) != "" {
		return pcm, inputError{err}
	}
	return pcm, err
}

// embed returns the analyzer's embedding of a track (Embedder), nil when
// it has none. A model with its own sample rate gets the audio decoded
// again at that rate (pcm, at the analysis rate, would have lost the
// octave above it).
func (w *worker) embed(ctx context.Context, path string, pcm audio.PCM) ([]float32, error) {
	e, ok := w.r.opts.Analyzer.(Embedder)
	if !ok {
		return nil, nil
	}
	if rate := e.EmbeddingRate(); rate != pcm.Rate {
		var err error
		if pcm, err = w.decodeAt(ctx, path, rate, w.r.opts.Decoder); err != nil {
			return nil, err
		}
	}
	return e.Embed(ctx, pcm)
}

func readWAV(path string) (audio.PCM, error) {
	f, err := os.Open(path)
	if err != nil {
		return audio.PCM{}, err
	}
	defer f.Close()
	return decode.ReadWAV(bufio.NewReaderSize(f, 256<<10))
}

// fetch returns a local path of the audio and its SHA-256. Blob sources
// are copied to the worker's scratch directory (ffmpeg needs a seekable
// file for some containers), hashing on the way.
func (w *worker) fetch(ctx context.Context, src manifest.Source) (string, string, func(), error) {
	h := sha256.New()
	if src.Key == "" {
		f, err := os.Open(src.Path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return "", "", nil, inputError{fmt.Errorf("cannot read %s", src.Path)}
		}
		if err != nil {
			return "", "", nil, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return "", "", nil, inputError{fmt.Errorf("%s is a directory", src.Path)}
		}
		if _, err := io.Copy(h, f); err != nil {
			return "", "", nil, err
		}
		return src.Path, hex.EncodeToString(h.Sum(nil)), func() {}, nil
	}
	rc, _, err := w.r.opts.Blob.Get(ctx, src.Key)
	if errors.Is(err, blob.ErrNotFound) {
		return "", "", nil, inputError{fmt.Errorf("no blob %s", src.Key)}
	}
	if err != nil {
		return "", "", nil, err
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(w.tmp, "src-*"+filepath.Ext(src.Key))
	if err != nil {
		return "", "", nil, err
	}
	cleanup := func() { os.Remove(tmp.Name()) }
	_, err = io.Copy(io.MultiWriter(tmp, h), rc)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("fetch %s: %w", src.Key, err)
	}
	return tmp.Name(), hex.EncodeToString(h.Sum(nil)), cleanup, nil
}
