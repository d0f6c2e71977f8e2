package recognition

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/musicdetect"
	"musiccatalog/pkg/blob"
)

// Prepared work of one uploaded object (one key and ETag) lives under
// workPrefix: the decoded audio and its analysis. The S3 upload trigger
// (Prepare) and the job's Extract both produce it; whoever comes second
// reuses it. analysis.bin is written last, so its presence means the
// audio is there too.
const (
	workPrefix = "recognition-work/"
	// workVersion changes when what Extract computes changes (decoding,
	// music detection); the fingerprint format has its own version, and
	// the query fingerprint's options their own digest (queryRecipe).
	workVersion  = 3 // 2: music ranges refined to the frame (musicdetect refine.go); 3: silences
	audioFile    = "audio.wav"
	analysisFile = "analysis.bin"
	// rejectedFile records why the upload trigger refused an upload it
	// deleted, so a job submitted for it meanwhile fails with that reason.
	rejectedFile = "rejected.json"
)

var analysisMagic = []byte("MCRECW1\n")

// minSilenceSeconds is the shortest silence that bounds a song's edges.
const minSilenceSeconds = 1.0

// analysis is what Extract leaves for the next tasks.
type analysis struct {
	DurationMs int64         `json:"duration_ms"`
	Rate       int           `json:"rate"`
	Music      []audio.Range `json:"music"`
	// Silences: where the video is silent (audio.Silences); edges are not
	// carried across them. Absent from analyses stored before it.
	Silences []audio.Range      `json:"silences,omitempty"`
	Hashes   []fingerprint.Hash `json:"-"` // stored binary, after the JSON head
}

// normETag drops the quotes S3 puts around ETags in some places (HeadObject)
// but not others (event notifications).
func normETag(etag string) string { return strings.Trim(etag, `"`) }

// rejectedKey is where the reason a refused upload was deleted is kept by
// its key alone (upload keys are unique: upload-url puts a UUID in them);
// it expires with the rest of the work.
func rejectedKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%srejected/%x.json", workPrefix, h[:16])
}

func workDir(key, etag string) string {
	h := sha256.Sum256([]byte(key + "\n" + normETag(etag)))
	return fmt.Sprintf("%sv%d.%d.%s/%x/", workPrefix, fingerprint.FormatVersion, workVersion, queryRecipe, h[:16])
}

// queryRecipe is a digest of the options query hashes are computed with,
// so that work prepared by a build that fingerprinted queries otherwise
// (more peaks, voice suppression) is not reused: a change of them moves
// every upload's work to a new place.
var queryRecipe = recipeOf(fingerprint.QueryOptions)

// recipeOf is the digest of fingerprint options that names their work.
func recipeOf(o fingerprint.Options) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%+v", o))
	return fmt.Sprintf("%x", h[:4])
}

func (a *analysis) MarshalBinary() ([]byte, error) {
	head, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(analysisMagic)+8+len(head)+8*len(a.Hashes))
	out = append(out, analysisMagic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(head)))
	out = append(out, head...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(a.Hashes)))
	for _, h := range a.Hashes {
		out = binary.LittleEndian.AppendUint32(out, h.Key)
		out = binary.LittleEndian.AppendUint32(out, h.Time)
	}
	return out, nil
}

func (a *analysis) UnmarshalBinary(b []byte) error {
	bad := errors.New("recognition: malformed analysis")
	if !bytes.HasPrefix(b, analysisMagic) {
		return bad
	}
	b = b[len(analysisMagic):]
	if len(b) < 4 {
		return bad
	}
	n := int(binary.LittleEndian.Uint32(b))
	if len(b) < 4+n+4 {
		return bad
	}
	*a = analysis{} // a field the head lacks (written before it existed) reads as its zero value
	if err := json.Unmarshal(b[4:4+n], a); err != nil {
		return fmt.Errorf("%w: %w", bad, err)
	}
	b = b[4+n:]
	count := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	if len(b) != 8*count {
		return bad
	}
	a.Hashes = make([]fingerprint.Hash, count)
	for i := range a.Hashes {
		a.Hashes[i] = fingerprint.Hash{Key: binary.LittleEndian.Uint32(b[8*i:]), Time: binary.LittleEndian.Uint32(b[8*i+4:])}
	}
	return nil
}

// readAnalysis returns the prepared analysis, or blob.ErrNotFound.
func (s *Service) readAnalysis(ctx context.Context, src SourceRef) (*analysis, error) {
	data, err := s.readBlob(ctx, workDir(src.Key, src.ETag)+analysisFile)
	if err != nil {
		return nil, err
	}
	a := &analysis{}
	if err := a.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return a, nil
}

func (s *Service) readBlob(ctx context.Context, key string) ([]byte, error) {
	rc, _, err := s.blob.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// readAudio returns the decoded audio of a prepared source.
func (s *Service) readAudio(ctx context.Context, src SourceRef) (audio.PCM, error) {
	rc, _, err := s.blob.Get(ctx, workDir(src.Key, src.ETag)+audioFile)
	if err != nil {
		return audio.PCM{}, err
	}
	defer rc.Close()
	return decode.ReadWAV(rc)
}

// prepareCall is one computation of a work dir that others may wait for.
type prepareCall struct {
	done chan struct{}
	a    *analysis
	err  error
}

// prepare returns the analysis of src, computing and storing it unless a
// previous run (the upload trigger or an earlier attempt) already did.
// Concurrent calls for the same upload in this process share one
// computation: on the devserver the upload trigger and the job's Extract
// often start within a second of each other, and doing the work twice
// would take both CPU cores.
func (s *Service) prepare(ctx context.Context, src SourceRef) (*analysis, error) {
	dir := workDir(src.Key, src.ETag)
	s.prepMu.Lock()
	if c, ok := s.preparing[dir]; ok {
		s.prepMu.Unlock()
		select {
		case <-c.done:
			return c.a, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &prepareCall{done: make(chan struct{})}
	if s.preparing == nil {
		s.preparing = map[string]*prepareCall{}
	}
	s.preparing[dir] = c
	s.prepMu.Unlock()
	c.a, c.err = s.prepareOnce(ctx, src)
	s.prepMu.Lock()
	delete(s.preparing, dir)
	s.prepMu.Unlock()
	close(c.done)
	return c.a, c.err
}

func (s *Service) prepareOnce(ctx context.Context, src SourceRef) (*analysis, error) {
	a, err := s.readAnalysis(ctx, src)
	if !errors.Is(err, blob.ErrNotFound) {
		return a, err
	}
	dir := workDir(src.Key, src.ETag)
	if b, err := s.readBlob(ctx, dir+rejectedFile); err == nil {
		var je JobError
		if json.Unmarshal(b, &je) == nil && je.Code != "" {
			return nil, &je
		}
	}
	pcm, err := s.decodeSource(ctx, src)
	if err != nil {
		return nil, err
	}
	a = &analysis{
		DurationMs: pcm.Duration().Milliseconds(),
		Rate:       pcm.Rate,
		Music:      musicdetect.Detect(pcm, musicdetect.Options{}),
		Silences:   audio.Silences(pcm, minSilenceSeconds),
		Hashes:     fingerprint.New(fingerprint.QueryOptions).Fingerprint(pcm),
	}
	if err := s.putWAV(ctx, dir+audioFile, pcm); err != nil {
		return nil, fmt.Errorf("recognition: store audio: %w", err)
	}
	body, err := a.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if err := s.blob.Put(ctx, dir+analysisFile, bytes.NewReader(body), int64(len(body)), "application/octet-stream"); err != nil {
		return nil, fmt.Errorf("recognition: store analysis: %w", err)
	}
	return a, nil
}

// putWAV streams pcm to key as WAV, without a second copy of the audio in
// memory.
func (s *Service) putWAV(ctx context.Context, key string, pcm audio.PCM) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(decode.WriteWAV(pw, pcm)) }()
	err := s.blob.Put(ctx, key, pr, decode.WAVSize(len(pcm.Samples)), "audio/wav")
	pr.CloseWithError(errors.New("recognition: WAV not read to the end")) // ends the writer if Put stopped early
	return err
}

// decodeSource decodes the audio of exactly the object version src names.
// Decoding stops at the duration cap; a container that states a longer
// duration fails before any decoding.
func (s *Service) decodeSource(ctx context.Context, src SourceRef) (audio.PCM, error) {
	rc, attrs, err := s.blob.Get(ctx, src.Key)
	if errors.Is(err, blob.ErrNotFound) {
		return audio.PCM{}, errSourceMissing
	}
	if err != nil {
		return audio.PCM{}, fmt.Errorf("recognition: read source: %w", err)
	}
	defer rc.Close()
	if src.ETag != "" && normETag(attrs.ETag) != normETag(src.ETag) {
		return audio.PCM{}, errSourceChanged
	}
	if attrs.Size > s.maxBytes {
		return audio.PCM{}, errTooLarge
	}
	pcm, err := s.decoder.Decode(ctx, io.LimitReader(rc, s.maxBytes))
	if errors.Is(err, decode.ErrTooLong) {
		return audio.PCM{}, &JobError{Code: CodeTooLong,
			Detail: fmt.Sprintf("The video's audio is longer than %.0f minutes.", s.maxSeconds/60)}
	}
	if code := decode.Code(err); code != "" {
		var de *decode.Error
		errors.As(err, &de)
		return audio.PCM{}, &JobError{Code: code, Detail: de.Detail()}
	}
	if err != nil {
		return audio.PCM{}, fmt.Errorf("recognition: decode: %w", err)
	}
	return pcm, nil
}
