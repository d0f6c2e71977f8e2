package recognition

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/store"
)

// Task function names: the Lambda functions of the state machine's Task
// states, and locally the names its placeholders are substituted with.
const (
	FnExtract  = "recognition-extract"
	FnMatch    = "recognition-match"
	FnExternal = "recognition-external"
	// FnFinish also serves the Catch path: given the caught error
	// (TaskInput.Error) it marks the job failed (the MarkFailed state).
	FnFinish = "recognition-finish"
	// FnPrepare is the S3 upload trigger (S3 event → SQS), not a state.
	FnPrepare = "recognition-prepare"
)

// TaskFunctions lists the functions of the state machine, in pipeline order.
var TaskFunctions = []string{FnExtract, FnMatch, FnExternal, FnFinish}

// Substitutions are the state machine's DefinitionSubstitutions when the
// tasks run in process: each function ARN placeholder names the function.
// template.yaml substitutes the same placeholders with the functions' ARNs.
var Substitutions = map[string]string{
	"RecognitionExtractFunctionArn":  FnExtract,
	"RecognitionMatchFunctionArn":    FnMatch,
	"RecognitionExternalFunctionArn": FnExternal,
	"RecognitionFinishFunctionArn":   FnFinish,
}

// HandleTask runs the task function fn on its JSON input (TaskInput) and
// returns its output (none). It is what both the Lambda functions and the
// in-process runner call. A failure comes back as a *JobError (the
// input's fault: not retried, its code and detail reach the client) or a
// *workflow.TransientError (retried, then failed as internal_error).
func (s *Service) HandleTask(ctx context.Context, fn string, input json.RawMessage) (json.RawMessage, error) {
	var in TaskInput
	if err := json.Unmarshal(input, &in); err != nil || in.JobID == "" {
		return nil, &JobError{Code: CodeInternal, Detail: detailInternal}
	}
	var err error
	job := jobRef{id: in.JobID, gen: in.Generation}
	switch fn {
	case FnExtract:
		err = s.extract(ctx, job)
	case FnMatch:
		err = s.match(ctx, job)
	case FnExternal:
		err = s.external(ctx, job)
	case FnFinish:
		if in.Failed || in.Error != nil {
			code, detail := failureOf(in.Error)
			err = s.fail(ctx, job.id, job.gen, code, detail)
		} else {
			err = s.finish(ctx, job)
		}
	default:
		return nil, fmt.Errorf("recognition: unknown task function %q", fn)
	}
	if err != nil {
		s.log.Warn("recognition task failed", "task", fn, "job", in.JobID, "err", err)
	}
	return nil, taskError(err)
}

// jobRef is the job a task works on: its id and the generation its
// execution was started for (TaskInput.Generation; 0: any).
type jobRef struct {
	id  string
	gen int64
}

// activeJob loads a job a task should work on; nil means there is nothing
// to do (the job is gone, completed or failed, or written anew since the
// task's execution started).
func (s *Service) activeJob(ctx context.Context, job jobRef) (*jobRecord, error) {
	r, err := s.loadJob(ctx, job.id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	if r.Status != StatusQueued && r.Status != StatusProcessing || job.gen > 0 && r.generation != job.gen {
		return nil, nil
	}
	return r, nil
}

// begin records the task's progress; false means the job ended meanwhile.
func (s *Service) begin(ctx context.Context, job jobRef, progress string) (bool, error) {
	err := s.updateActive(ctx, job.id, job.gen, map[string]any{attrStatus: StatusProcessing, attrProgress: progress})
	if errors.Is(err, errInactive) {
		return false, nil
	}
	return err == nil, err
}

// Extract decodes the video's audio, detects its music and fingerprints
// it, storing the result for the next tasks (or reusing what Prepare or
// an earlier attempt stored for the same key and ETag).
func (s *Service) Extract(ctx context.Context, jobID string) error {
	return s.extract(ctx, jobRef{id: jobID})
}

func (s *Service) extract(ctx context.Context, job jobRef) error {
	r, err := s.activeJob(ctx, job)
	if r == nil || err != nil {
		return err
	}
	if ok, err := s.begin(ctx, job, ProgressExtracting); !ok {
		return err
	}
	_, err = s.prepare(ctx, r.Source)
	return err
}

// Match runs the catalog timeline over the catalog's fingerprint index.
func (s *Service) Match(ctx context.Context, jobID string) error {
	return s.match(ctx, jobRef{id: jobID})
}

func (s *Service) match(ctx context.Context, job jobRef) error {
	r, err := s.activeJob(ctx, job)
	if r == nil || err != nil {
		return err
	}
	if r.hasTL {
		// Done by an earlier run. Matching again could give another
		// timeline (a newer catalog) than the one External's stored
		// answers were asked for.
		return nil
	}
	if ok, err := s.begin(ctx, job, ProgressMatching); !ok {
		return err
	}
	a, err := s.readAnalysis(ctx, r.Source)
	if errors.Is(err, blob.ErrNotFound) {
		// The prepared work vanished (storage lifecycle): extract again.
		a, err = s.prepare(ctx, r.Source)
	}
	if err != nil {
		return err
	}
	cat, err := s.catalog.Current(ctx)
	if err != nil {
		return fmt.Errorf("recognition: catalog: %w", err)
	}
	ix, err := s.catalogIndex(ctx, cat)
	if err != nil {
		return err
	}
	stretches := []fingerprint.Stretch{}
	if ix != nil {
		stretches = ix.Timeline(a.Hashes, fingerprint.TimelineOptions{Music: a.Music, Silences: a.Silences})
		if stretches, err = s.guideEdges(ctx, r.Source, a.DurationMs, cat, stretches); err != nil {
			return err
		}
	} else {
		stretches = unexplained(a.Music)
	}
	body, err := json.Marshal(stretches)
	if err != nil {
		return err
	}
	return ignoreInactive(s.updateActive(ctx, job.id, job.gen, map[string]any{attrTimeline: body}))
}

// External names the music the catalog did not explain with the outside
// recognizer, when one is configured.
func (s *Service) External(ctx context.Context, jobID string) error {
	return s.external(ctx, jobRef{id: jobID})
}

func (s *Service) external(ctx context.Context, job jobRef) error {
	r, err := s.activeJob(ctx, job)
	if r == nil || err != nil || s.outside == nil {
		return err
	}
	if !r.hasTL {
		return errors.New("recognition: external before match")
	}
	if r.hasExt {
		// A retry after the result was stored (a timeout or a lost answer
		// of the previous run, or a resumed pipeline): every sample is a
		// billed request, so the stored answers stand.
		return nil
	}
	results, err := s.identifyOutside(ctx, r, &heardSamples{s: s, job: job, list: r.heard, limit: heardLimit(r)})
	if err != nil {
		return ignoreInactive(err)
	}
	body, err := json.Marshal(results)
	if err != nil {
		return err
	}
	// The answers so far go in the same write: the result replaces them.
	return ignoreInactive(s.updateActive(ctx, job.id, job.gen, map[string]any{attrExternal: body}, attrHeard))
}

// Finish builds the segments and completes the job in one write.
func (s *Service) Finish(ctx context.Context, jobID string) error {
	return s.finish(ctx, jobRef{id: jobID})
}

func (s *Service) finish(ctx context.Context, job jobRef) error {
	r, err := s.activeJob(ctx, job)
	if r == nil || err != nil {
		return err
	}
	if !r.hasTL {
		return errors.New("recognition: finish before match")
	}
	if ok, err := s.begin(ctx, job, ProgressFinishing); !ok {
		return err
	}
	segs, err := s.segments(ctx, r)
	if err != nil {
		return err
	}
	doc := resultDoc{Segments: segs, Track: longestIdentified(segs)}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = s.finalize(ctx, job.id, job.gen, map[string]any{attrStatus: StatusCompleted, attrResult: body})
	if err == nil {
		s.log.Info("recognition job completed", "job", job.id, "segments", len(segs))
	}
	return ignoreInactive(err)
}

// Prepare extracts and fingerprints an uploaded object ahead of its
// submit (the S3 upload trigger). Objects outside the upload prefix are
// left alone. An object larger than MaxFileSize is deleted unread; one
// whose audio is longer than the cap is deleted once the probe (or the
// capped decoding) says so, with its reason kept for a job submitted
// meanwhile. Other objects that cannot be decoded stay: the job reports
// them when it runs.
func (s *Service) Prepare(ctx context.Context, key, etag string) error {
	if !strings.HasPrefix(key, UploadPrefix) {
		return nil
	}
	src := SourceRef{Key: key, ETag: etag}
	attrs, err := s.blob.Head(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil // deleted or replaced since the event
	}
	if err != nil {
		return err
	}
	if attrs.Size > s.maxBytes {
		return s.reject(ctx, src, errTooLarge)
	}
	_, err = s.prepare(ctx, src)
	var je *JobError
	if errors.As(err, &je) {
		if je.Code == CodeTooLong {
			return s.reject(ctx, src, je)
		}
		s.log.Info("upload not prepared", "key", key, "reason", je.Code)
		return nil
	}
	return err
}

// reject records why an upload is refused and deletes it.
func (s *Service) reject(ctx context.Context, src SourceRef, je *JobError) error {
	s.log.Info("upload rejected and deleted", "key", src.Key, "reason", je.Code)
	body, err := json.Marshal(je)
	if err != nil {
		return err
	}
	if err := s.blob.Put(ctx, workDir(src.Key, src.ETag)+rejectedFile, bytes.NewReader(body), int64(len(body)), "application/json"); err != nil {
		return fmt.Errorf("recognition: record rejection: %w", err)
	}
	// By key too: a submit after the deletion knows neither the ETag nor
	// the object, and says why instead of "nothing was uploaded".
	if err := s.blob.Put(ctx, rejectedKey(src.Key), bytes.NewReader(body), int64(len(body)), "application/json"); err != nil {
		return fmt.Errorf("recognition: record rejection: %w", err)
	}
	if err := s.blob.Delete(ctx, src.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return fmt.Errorf("recognition: delete rejected upload: %w", err)
	}
	return nil
}

// Rejection returns why the upload trigger refused and deleted the upload
// at key (too large, too long), or nil when it did not.
func (s *Service) Rejection(ctx context.Context, key string) (*JobError, error) {
	b, err := s.readBlob(ctx, rejectedKey(key))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var je JobError
	if json.Unmarshal(b, &je) != nil || je.Code == "" {
		return nil, nil
	}
	return &je, nil
}

// UploadPrefix is where recognition uploads live (§4.5 storage_key).
const UploadPrefix = "video-recognition/"

func ignoreInactive(err error) error {
	if errors.Is(err, errInactive) {
		return nil
	}
	return err
}
