package downloads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// CaughtError is what the state machine's Catch passes to the mark-failed
// step: the error name and its cause (a Lambda function error's JSON).
type CaughtError struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// taskInput is the build-zip task's input: the build, and on the Catch
// path failed=true with the caught error.
type taskInput struct {
	BuildInput
	Failed bool         `json:"failed"`
	Caught *CaughtError `json:"error"`
}

// HandleTask runs the build-zip task on its JSON input (the Lambda
// function and the local runner call it alike). A *BuildError goes back
// as it is (not retried); any other failure as a workflow.TransientError,
// which the state machine retries before its Catch marks the build failed.
func (s *Service) HandleTask(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
	var t taskInput
	if err := json.Unmarshal(in, &t); err != nil || t.BuildID == "" || t.Generation < 1 {
		return nil, &BuildError{Reason: fmt.Sprintf("bad task input %s", in)}
	}
	var err error
	if t.Failed {
		err = s.MarkFailed(ctx, t.BuildInput, t.Caught)
	} else {
		err = s.BuildZIP(ctx, t.BuildInput)
	}
	var be *BuildError
	if err == nil || errors.As(err, &be) {
		return nil, err
	}
	return nil, workflow.Transient(err)
}

// BuildZIP builds the archive of one build record's generation: it
// resolves the asset in the current catalog, streams every rendition from
// the blob store into one archive written to the blob store as a stream
// (a multipart upload on S3), and records the build as built. An
// execution of a generation the record has moved past does nothing.
func (s *Service) BuildZIP(ctx context.Context, in BuildInput) error {
	st, ok := s.blob.(blob.Store)
	if !ok {
		return errors.New("downloads: no blob store to build with")
	}
	key := buildKey(in.BuildID)
	it, err := s.st.Get(ctx, store.Jobs, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rec := decodeRecord(it)
	if rec.status != statusBuilding || rec.generation != in.Generation {
		return nil
	}
	cat, err := s.catalog.Current(ctx)
	if err != nil {
		return err
	}
	as, ok := cat.Asset(it.Str(attrType), it.Str(attrAsset))
	if !ok {
		return &BuildError{Reason: reasonNoAsset}
	}
	req := Request{Type: as.Kind, Formats: strings.Split(it.Str(attrFormats), ","), IncludeStems: it.Bool(attrStems)}
	entries, err := Entries(as, req)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	w, err := blob.NewWriter(ctx, st, rec.objectKey, zipContentType)
	if err != nil {
		return err
	}
	audio, err := WriteArchive(ctx, w, st, entries, LicenseText(as, entries, now), now)
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	built := s.clock.Now()
	_, err = s.st.Update(ctx, store.Jobs, key, store.Update{
		Set:       map[string]any{attrStatus: statusBuilt, attrBuilt: built.Unix(), attrSize: audio},
		ExpiresAt: new(built.Add(ZIPRetention)),
	}, current(statusBuilding, in.Generation))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil // a request gave up on this generation meanwhile
	}
	if err != nil {
		return err
	}
	s.log.InfoContext(ctx, "zip built", slog.String("build_id", in.BuildID), slog.Int64("generation", in.Generation),
		slog.Int("entries", len(entries)), slog.Int64("audio_bytes", audio))
	return nil
}

// MarkFailed ends a generation's build as failed with the reason the
// client will be told (from a *BuildError, a timeout, or else a storage
// failure, summarized), keeping the caught error for operators.
func (s *Service) MarkFailed(ctx context.Context, in BuildInput, caught *CaughtError) error {
	reason := reasonOf(caught)
	detail := ""
	if caught != nil {
		detail = caught.Error + ": " + caught.Cause
	}
	_, err := s.st.Update(ctx, store.Jobs, buildKey(in.BuildID), store.Update{Set: map[string]any{
		attrStatus: statusFailed, attrReason: reason, attrError: detail}}, current(statusBuilding, in.Generation))
	if errors.Is(err, store.ErrConditionFailed) || errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err == nil {
		s.log.WarnContext(ctx, "zip build failed", slog.String("build_id", in.BuildID),
			slog.Int64("generation", in.Generation), slog.String("reason", reason), slog.String("error", detail))
	}
	return err
}

// reasonOf turns a caught error into the client's reason: only a
// BuildError's own text reaches the client.
func reasonOf(c *CaughtError) string {
	if c == nil {
		return reasonInternal
	}
	switch c.Error {
	case "States.Timeout", "Sandbox.Timedout":
		return reasonTimeout
	case "BuildError":
		var cause struct {
			ErrorMessage string `json:"errorMessage"`
		}
		if json.Unmarshal([]byte(c.Cause), &cause) == nil && cause.ErrorMessage != "" {
			return cause.ErrorMessage
		}
		return reasonInternal
	case "TransientError":
		return reasonStorage
	}
	return reasonInternal
}

// SweepExpiredZIPs deletes the archives older than ZIPRetention: the
// lifecycle rule of the media bucket, for a blob store without one (the
// devserver). Their records have expired with them, so the next identical
// request builds afresh.
func (s *Service) SweepExpiredZIPs(ctx context.Context) (int, error) {
	st, ok := s.blob.(blob.Store)
	if !ok {
		return 0, nil
	}
	list, err := st.List(ctx, ZIPPrefix)
	if err != nil {
		return 0, err
	}
	n := 0
	cutoff := s.clock.Now().Add(-ZIPRetention)
	for _, a := range list {
		if a.ModTime.Before(cutoff) {
			if err := st.Delete(ctx, a.Key); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
