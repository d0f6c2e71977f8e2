package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/manifest"
)

// Options configure a run.
type Options struct {
	Blob blob.Store // where the catalog lives (required)
	// Decoder decodes audio for analysis; its FFmpegPath also transcodes
	// unless FFmpegPath is set.
	Decoder    decode.Decoder
	FFmpegPath string
	// Analyzer finds tempo, key, the similarity vector and highlights
	// (default Engine, the audio engine).
	Analyzer Analyzer
	// Progress receives a progress bar (terminal) or one line per asset.
	Progress io.Writer
	// Workers process assets in parallel (default: the number of CPUs).
	Workers int
	// Replace makes the manifest the whole catalog: assets of the current
	// catalog that it does not list are removed. By default a manifest
	// adds and updates assets by id and leaves the others alone.
	Replace bool
	// TempDir holds fetched sources and transcoder output (default os.TempDir()).
	TempDir string
	// Now is the clock of the progress display (default time.Now).
	Now func() time.Time
	// Artifacts are built and stored with the published version
	// (search.TextIndexArtifact), so functions load them at cold start.
	Artifacts []catalog.Artifact
	// Source is the manifest the run applies (see LedgerKey): RunBlob and
	// Run set it; with a zero Modified the ledger is not used.
	Source Source
}

// Report says what a run did.
type Report struct {
	Version   string // the catalog version now current
	Previous  string // the version before the run ("" when there was none)
	Published bool   // false when the contents equal the current version's

	Tracks, Stems, SoundFX int // in the catalog now

	// Of the manifest's valid assets (tracks and sound effects):
	Added, Updated, Unchanged int
	Removed                   int // Replace only
	Superseded                int // left alone: a newer manifest set them (LedgerKey)
	Decoded                   int // audio files decoded (0 when all were known)

	AudioSeconds float64       // duration of the manifest's audio, stems included
	Elapsed      time.Duration // wall time of the run
	Segment      string        // new fingerprint segment, "" when none was needed
	Segments     int           // fingerprint segments of the catalog now

	Errors   []manifest.Problem // records skipped: invalid, or their audio failed
	Warnings []manifest.Problem // accepted anyway (unknown fields, failed analysis)
}

// RealTime is the ingestion speed as audio duration per wall time.
func (r Report) RealTime() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return r.AudioSeconds / r.Elapsed.Seconds()
}

func (r Report) String() string {
	var b strings.Builder
	state := "published"
	if !r.Published {
		state = "unchanged, still"
	}
	fmt.Fprintf(&b, "catalog %s %s (was %s): %d tracks, %d stems, %d sound effects, %d fingerprint segments\n",
		state, r.Version, or(r.Previous, "none"), r.Tracks, r.Stems, r.SoundFX, r.Segments)
	fmt.Fprintf(&b, "assets: %d added, %d updated, %d unchanged, %d removed, %d skipped, %d left to a newer manifest; %d audio files decoded\n",
		r.Added, r.Updated, r.Unchanged, r.Removed, skipped(r.Errors), r.Superseded, r.Decoded)
	fmt.Fprintf(&b, "%.0f s of audio in %s (%.1f× real time)\n", r.AudioSeconds, r.Elapsed.Round(time.Millisecond), r.RealTime())
	for _, p := range r.Errors {
		fmt.Fprintf(&b, "error: %v (record skipped)\n", p)
	}
	for _, p := range r.Warnings {
		fmt.Fprintf(&b, "warning: %v\n", p)
	}
	return b.String()
}

// skipped counts the records the errors are about.
func skipped(ps []manifest.Problem) int {
	lines := map[int]bool{}
	for _, p := range ps {
		lines[p.Line] = true
	}
	return len(lines)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Run ingests the manifest file at path; relative audio paths are relative
// to its directory.
func Run(ctx context.Context, opts Options, path string) (Report, error) {
	m, err := manifest.ParseFile(path)
	if err != nil {
		return Report{}, fmt.Errorf("ingest: %w", err)
	}
	if opts.Source.Modified.IsZero() {
		// An operator running a file means it now: it supersedes every
		// manifest uploaded before.
		// Whole seconds, as S3's Last-Modified: an upload in the same
		// second is ordered by key, not taken for older.
		opts.Source = Source{Key: "file:" + path, Modified: time.Now().UTC().Truncate(time.Second)}
	}
	return RunManifest(ctx, opts, m)
}

// RunBlob ingests the manifest stored at key (the catalog-ingest function's
// S3 trigger); relative audio references are keys relative to its prefix.
func RunBlob(ctx context.Context, opts Options, key string) (Report, error) {
	if opts.Blob == nil {
		return Report{}, errors.New("ingest: no blob store")
	}
	rc, attrs, err := opts.Blob.Get(ctx, key)
	if err != nil {
		return Report{}, fmt.Errorf("ingest: read manifest %s: %w", key, err)
	}
	defer rc.Close()
	m, err := manifest.Parse(rc, manifest.BlobBase(key))
	if err != nil {
		return Report{}, fmt.Errorf("ingest: %w", err)
	}
	if opts.Source.Modified.IsZero() && !attrs.ModTime.IsZero() {
		opts.Source = Source{Key: key, Modified: attrs.ModTime.UTC()}
	}
	return RunManifest(ctx, opts, m)
}

// run is the state one ingestion shares among its workers.
type run struct {
	opts      Options
	ffmpeg    string
	prev      *catalog.Catalog
	prevAudio map[string]catalog.AudioRef // asset or stem id → renditions

	mu    sync.Mutex
	fresh map[string]trackHashes // computed in this run, by hashes key

	// superseded are the manifest's assets a newer manifest has set (see
	// LedgerKey): left as the current catalog has them, even by Replace.
	superseded map[string]bool

	results  []*processed // by manifest asset, filled in by the workers
	progress *progress
}

func (r *run) remember(key string, h trackHashes) {
	r.mu.Lock()
	r.fresh[key] = h
	r.mu.Unlock()
}

// RunManifest ingests a parsed manifest: processes its assets, merges them
// into the current catalog, indexes the tracks no segment covers yet, and
// publishes the result unless it equals the current version. Bad records
// and audio that fails to decode are reported and skipped; an error means
// the run could not complete (storage, ffmpeg missing, cancelled) and
// nothing was published.
func RunManifest(ctx context.Context, opts Options, m *manifest.Manifest) (Report, error) {
	start := time.Now()
	if opts.Blob == nil {
		return Report{}, errors.New("ingest: no blob store")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.Analyzer == nil {
		opts.Analyzer = Engine{}
	}
	rep := Report{Errors: append([]manifest.Problem(nil), m.Errors...), Warnings: append([]manifest.Problem(nil), m.Warnings...)}
	if opts.Replace && len(m.Assets) == 0 {
		return rep, errors.New("ingest: the manifest has no valid record; refusing to replace the catalog with an empty one")
	}
	r := &run{opts: opts, ffmpeg: or(opts.FFmpegPath, or(opts.Decoder.FFmpegPath, "ffmpeg")),
		prevAudio: map[string]catalog.AudioRef{}, fresh: map[string]trackHashes{}, superseded: map[string]bool{}}
	assets := m.Assets
	var led *ledger
	if !opts.Source.Modified.IsZero() {
		var err error
		if led, err = loadLedger(ctx, opts.Blob); err != nil {
			return rep, err
		}
		kept := assets[:0:0]
		for _, a := range assets {
			if by, ok := led.supersededBy(a.ID(), opts.Source); ok {
				r.superseded[a.ID()] = true
				rep.Superseded++
				rep.Warnings = append(rep.Warnings, manifest.Problem{Line: a.Line, Field: "id",
					Message: fmt.Sprintf("left as it is: %s, written %s, set asset %s later than this manifest (written %s)",
						by.Key, by.Modified.Format(time.RFC3339), a.ID(), opts.Source.Modified.Format(time.RFC3339))})
				continue
			}
			kept = append(kept, a)
		}
		assets = kept
	}
	prev, err := catalog.Load(ctx, opts.Blob)
	switch {
	case errors.Is(err, catalog.ErrNoCatalog):
	case err != nil:
		return rep, fmt.Errorf("ingest: current catalog: %w", err)
	default:
		r.prev, rep.Previous = prev, prev.Version()
		for _, t := range prev.Tracks() {
			r.prevAudio[t.ID] = t.Audio
			for _, s := range t.Stems {
				r.prevAudio[s.ID] = s.Audio
			}
		}
		for _, s := range prev.SoundFXs() {
			r.prevAudio[s.ID] = s.Audio
		}
	}
	results, err := r.process(ctx, assets)
	if err != nil {
		return rep, err
	}
	for _, p := range results {
		rep.AudioSeconds += p.seconds
		rep.Decoded += p.decoded
		rep.Warnings = append(rep.Warnings, p.warnings...)
		if p.problem != nil {
			rep.Errors = append(rep.Errors, *p.problem)
		}
	}
	contents := r.merge(results, &rep)
	if err := standardize(&contents); err != nil {
		return rep, fmt.Errorf("ingest: %w", err)
	}
	kept, todo := planSegments(r.prev, contents.Tracks)
	contents.Segments = kept
	if len(todo) > 0 {
		seg, err := buildSegment(ctx, opts.Blob, todo, r.hashesOf(ctx))
		if err != nil {
			return rep, err
		}
		contents.Segments = append(contents.Segments, seg)
		rep.Segment = seg.Key
	}
	next, err := catalog.New(contents)
	if err != nil {
		return rep, fmt.Errorf("ingest: %w", err)
	}
	if rep.Published, err = catalog.Publish(ctx, opts.Blob, next, opts.Artifacts...); err != nil {
		return rep, err
	}
	if led != nil {
		var applied []string
		for _, p := range results {
			switch {
			case p.track != nil:
				applied = append(applied, p.track.ID)
			case p.sfx != nil:
				applied = append(applied, p.sfx.ID)
			}
		}
		inCatalog := map[string]bool{}
		for _, t := range contents.Tracks {
			inCatalog[t.ID] = true
		}
		for _, x := range contents.SoundFX {
			inCatalog[x.ID] = true
		}
		led.record(opts.Source, applied, inCatalog)
		if err := led.save(ctx, opts.Blob); err != nil {
			return rep, err
		}
	}
	rep.Version, rep.Segments = next.Version(), len(contents.Segments)
	rep.Tracks, rep.SoundFX = len(contents.Tracks), len(contents.SoundFX)
	for _, t := range contents.Tracks {
		rep.Stems += len(t.Stems)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// process runs the assets through opts.Workers workers; the results are
// in manifest order.
func (r *run) process(ctx context.Context, assets []manifest.Asset) ([]*processed, error) {
	tmp, err := os.MkdirTemp(r.opts.TempDir, "ingest-*")
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.progress = newProgress(r.opts.Progress, len(assets), r.opts.Now)
	r.results = make([]*processed, len(assets))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for i := range min(r.opts.Workers, max(len(assets), 1)) {
		dir, err := os.MkdirTemp(tmp, fmt.Sprintf("w%d-", i))
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		w := &worker{r: r, fp: fingerprint.New(fingerprint.IndexOptions), stemFP: fingerprint.New(stemOptions), tmp: dir}
		wg.Go(func() {
			defer func() {
				for _, rec := range w.pending {
					rec.cleanup()
				}
			}()
			for i := range jobs {
				if ctx.Err() != nil {
					continue
				}
				if err := w.add(ctx, i, assets[i]); err != nil {
					cancel(fmt.Errorf("line %d: %w", assets[i].Line, err))
				}
			}
			if ctx.Err() == nil {
				if err := w.flush(ctx); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range assets {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	return r.results, nil
}

func describe(a manifest.Asset, p *processed) string {
	kind, name := "track", ""
	if a.Track != nil {
		name = a.Track.Name
	} else {
		kind, name = "sound effect", a.SoundFX.Name
	}
	switch {
	case p.problem != nil:
		return fmt.Sprintf("%s %q skipped: %v", kind, name, *p.problem)
	case p.decoded == 0:
		return fmt.Sprintf("%s %q unchanged audio", kind, name)
	}
	return fmt.Sprintf("%s %q %s", kind, name, clock(time.Duration(p.seconds*float64(time.Second))))
}

// merge puts the processed assets into the current catalog's order: an
// asset keeps its place when updated, new ones follow in manifest order.
func (r *run) merge(results []*processed, rep *Report) catalog.Contents {
	var prevTracks []*catalog.Track
	var prevSFX []*catalog.SoundFX
	if r.prev != nil {
		prevTracks, prevSFX = r.prev.Tracks(), r.prev.SoundFXs()
	}
	newTracks := map[string]*catalog.Track{}
	newSFX := map[string]*catalog.SoundFX{}
	for _, p := range results {
		if p.track != nil {
			newTracks[p.track.ID] = p.track
		} else if p.sfx != nil {
			newSFX[p.sfx.ID] = p.sfx
		}
	}
	// Ids the kept assets of the current catalog hold; a new asset may not
	// take one of them (a sound effect with a track's id, a stem id reused).
	owner := map[string]string{}
	var c catalog.Contents
	for _, t := range prevTracks {
		if newTracks[t.ID] == nil && (!r.opts.Replace || r.superseded[t.ID]) {
			for _, id := range trackIDs(t) {
				owner[id] = t.ID
			}
		}
	}
	for _, s := range prevSFX {
		if newSFX[s.ID] == nil && (!r.opts.Replace || r.superseded[s.ID]) {
			owner[s.ID] = s.ID
		}
	}
	for _, p := range results {
		if p.track == nil && p.sfx == nil {
			continue
		}
		own, ids := "", []string(nil)
		if p.track != nil {
			own, ids = p.track.ID, trackIDs(p.track)
		} else {
			own, ids = p.sfx.ID, []string{p.sfx.ID}
		}
		for _, id := range ids {
			if o, taken := owner[id]; taken && o != own {
				rep.Errors = append(rep.Errors, manifest.Problem{Line: p.line, Field: "id", Message: fmt.Sprintf("id %s already belongs to another asset of the catalog", id)})
				delete(newTracks, own)
				delete(newSFX, own)
				p.track, p.sfx = nil, nil
				break
			}
		}
		for _, id := range ids {
			if p.track != nil || p.sfx != nil {
				owner[id] = own
			}
		}
	}
	placed := map[string]bool{}
	for _, t := range prevTracks {
		switch n := newTracks[t.ID]; {
		case n != nil:
			c.Tracks = append(c.Tracks, n)
			placed[t.ID] = true
			count(rep, sameBut(t, n))
		case r.opts.Replace && !r.superseded[t.ID]:
			rep.Removed++
		default:
			c.Tracks = append(c.Tracks, t)
		}
	}
	for _, s := range prevSFX {
		switch n := newSFX[s.ID]; {
		case n != nil:
			c.SoundFX = append(c.SoundFX, n)
			placed[s.ID] = true
			count(rep, reflect.DeepEqual(s, n))
		case r.opts.Replace && !r.superseded[s.ID]:
			rep.Removed++
		default:
			c.SoundFX = append(c.SoundFX, s)
		}
	}
	for _, p := range results {
		switch {
		case p.track != nil && !placed[p.track.ID]:
			c.Tracks = append(c.Tracks, p.track)
			placed[p.track.ID] = true
			rep.Added++
		case p.sfx != nil && !placed[p.sfx.ID]:
			c.SoundFX = append(c.SoundFX, p.sfx)
			placed[p.sfx.ID] = true
			rep.Added++
		}
	}
	return c
}

// sameBut reports whether a track is unchanged, except for Features: the
// standardization follows the whole catalog and is redone after merging.
func sameBut(a, b *catalog.Track) bool {
	x, y := *a, *b
	x.Features, y.Features = nil, nil
	return reflect.DeepEqual(x, y)
}

func count(rep *Report, same bool) {
	if same {
		rep.Unchanged++
	} else {
		rep.Updated++
	}
}

func trackIDs(t *catalog.Track) []string {
	ids := []string{t.ID}
	for _, s := range t.Stems {
		ids = append(ids, s.ID)
	}
	return ids
}

// hashesOf gives what the index holds for a track: its own fingerprint
// hashes and its stems' (stemHashes). Each file's hashes come from this
// run, from storage under the audio's digest or, should that blob be
// gone, from fingerprinting the stored wav again.
func (r *run) hashesOf(ctx context.Context) func(*catalog.Track) (trackHashes, error) {
	fp, stemFP := fingerprint.New(fingerprint.IndexOptions), fingerprint.New(stemOptions)
	get := func(id string, ref catalog.AudioRef, stem bool) (trackHashes, error) {
		key, fp := hashesKey(ref.SHA256), fp
		if stem {
			key, fp = stemHashesKey(ref.SHA256), stemFP
		}
		if h, ok := r.fresh[key]; ok {
			return h, nil
		}
		rc, _, err := r.opts.Blob.Get(ctx, key)
		if err == nil {
			b, rerr := io.ReadAll(rc)
			rc.Close()
			if rerr != nil {
				return trackHashes{}, rerr
			}
			if h, err := unmarshalHashes(b); err == nil {
				return h, nil
			}
		} else if !errors.Is(err, blob.ErrNotFound) {
			return trackHashes{}, err
		}
		rc, _, err = r.opts.Blob.Get(ctx, ref.WAVKey)
		if err != nil {
			return trackHashes{}, fmt.Errorf("ingest: %s has neither fingerprint hashes nor a wav to compute them from: %w", id, err)
		}
		defer rc.Close()
		pcm, err := r.opts.Decoder.Decode(ctx, rc)
		if err != nil {
			return trackHashes{}, fmt.Errorf("ingest: %s: %w", id, err)
		}
		h := trackHashes{Seconds: pcm.Seconds(), Hashes: fp.Fingerprint(pcm)}
		return h, r.put(ctx, key, h.marshal(), "application/octet-stream")
	}
	return func(t *catalog.Track) (trackHashes, error) {
		h, err := get("track "+t.ID, t.Audio, false)
		if err != nil || len(t.Stems) == 0 {
			return h, err
		}
		stems := make([]trackHashes, len(t.Stems))
		for i, s := range t.Stems {
			if stems[i], err = get("stem "+s.ID, s.Audio, true); err != nil {
				return trackHashes{}, err
			}
		}
		return withStems(h, stems), nil
	}
}
