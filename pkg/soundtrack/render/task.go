package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/mail"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// FnBuild is the task function of the render state machine: the
// build-render Lambda function, and locally the name its placeholder is
// substituted with. With failed=true it is the MarkFailed catch path.
const FnBuild = "build-render"

// Substitutions are render.asl.json's DefinitionSubstitutions when the
// task runs in process; template.yaml substitutes the function's ARN.
var Substitutions = map[string]string{"BuildRenderFunctionArn": FnBuild}

// TaskInput is the state machine's input and each task's.
type TaskInput struct {
	Key     string `json:"render_key"`
	BuildID string `json:"build_id"`
	// Failed and Error are set on the MarkFailed path: Error is what the
	// Catch caught ({Error, Cause}).
	Failed bool            `json:"failed,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// HandleTask runs the task on its JSON input: the code both the Lambda
// function and the in-process runner call. A failure is a *BuildError
// (not retried) or a *workflow.TransientError (retried).
func (s *Service) HandleTask(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in TaskInput
	if err := json.Unmarshal(input, &in); err != nil || !IsKey(in.Key) || in.BuildID == "" {
		return nil, &BuildError{Code: CodeInternal, Detail: "malformed task input"}
	}
	if in.Failed {
		code, reason := caught(in.Error)
		return nil, taskError(s.fail(ctx, in.Key, in.BuildID, code, reason))
	}
	err := s.Build(ctx, in.Key, in.BuildID)
	if err != nil {
		s.log.Warn("render task failed", slog.String("key", in.Key), slog.Any("error", err))
	}
	return nil, taskError(err)
}

// taskError keeps a BuildError (its name tells the state machine not to
// retry) and marks everything else transient.
func taskError(err error) error {
	var be *BuildError
	if err == nil || errors.As(err, &be) {
		return err
	}
	return workflow.Transient(err)
}

// caught reads the {Error, Cause} a Catch recorded: a BuildError's cause
// is "code: detail"; anything else is internal (its text stays in logs).
func caught(raw json.RawMessage) (code, reason string) {
	var c struct{ Error, Cause string }
	_ = json.Unmarshal(raw, &c)
	if c.Error == workflow.ErrorName(&BuildError{}) {
		// The Lambda runtime reports {errorMessage, errorType} as Cause.
		var lambdaCause struct {
			ErrorMessage string `json:"errorMessage"`
		}
		msg := c.Cause
		if json.Unmarshal([]byte(c.Cause), &lambdaCause) == nil && lambdaCause.ErrorMessage != "" {
			msg = lambdaCause.ErrorMessage
		}
		if code, detail, ok := strings.Cut(msg, ": "); ok && code != "" {
			return code, detail
		}
	}
	if c.Error == "States.Timeout" || c.Error == "Sandbox.Timedout" {
		return CodeTimeout, "The render took too long and was stopped."
	}
	return CodeInternal, "The render could not be completed."
}

// Build renders the build of key: mixes, stores the output, marks the
// record built and queues its email. A repeated run (a retry) redoes only
// what is not done: a built record only has its email queued.
func (s *Service) Build(ctx context.Context, key, build string) error {
	it, err := s.cfg.Store.Get(ctx, store.Jobs, recordKey(key))
	if errors.Is(err, store.ErrNotFound) {
		return nil // dropped (the video expired, or a newer build replaced it)
	}
	if err != nil {
		return err
	}
	if it.Str(attrBuild) != build {
		return nil
	}
	switch it.Str(attrStatus) {
	case StatusBuilt:
		return s.queueMail(ctx, key, it)
	case StatusBuilding:
	default:
		return nil
	}
	v, err := s.cfg.Videos.Get(ctx, it.Str(attrVideo))
	if errs.Is(err, errs.NotFound) {
		return &BuildError{Code: CodeSourceMissing, Detail: "The uploaded video has expired; upload it again."}
	}
	if err != nil {
		return err
	}
	cat, err := s.cfg.Catalog.Current(ctx)
	if err != nil {
		return err
	}
	t, ok := cat.Track(it.Str(attrTrack))
	if !ok || t.Audio.WAVKey == "" {
		return &BuildError{Code: CodeSourceMissing, Detail: "The track is no longer in the catalog."}
	}
	dir, err := os.MkdirTemp(s.cfg.TempDir, "render-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	videoPath, trackPath, outPath := filepath.Join(dir, "video"), filepath.Join(dir, "track.wav"), filepath.Join(dir, "out"+outputExt)
	if err := s.fetch(ctx, v.FileKey, videoPath); err != nil {
		return err
	}
	if err := s.fetch(ctx, t.Audio.WAVKey, trackPath); err != nil {
		return err
	}
	params := Params{TrackID: t.ID, VideoVolume: it.Float(attrVideoVol), TrackVolume: it.Float(attrTrackVol), TrackStart: it.Float(attrStart)}
	res, err := s.cfg.Mixer.Mix(ctx, MixInput{VideoPath: videoPath, TrackPath: trackPath, OutPath: outPath, Params: params})
	if err != nil {
		return err
	}
	outKey := OutputPrefix + key + "-" + build + outputExt
	f, err := os.Open(outPath)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil {
		err = s.cfg.Blob.Put(ctx, outKey, f, st.Size(), OutputType)
	}
	f.Close()
	if err != nil {
		return err
	}
	it, err = s.cfg.Store.Update(ctx, store.Jobs, recordKey(key), store.Update{
		Set: map[string]any{attrStatus: StatusBuilt, attrOutput: outKey}},
		store.And(store.Equals(attrStatus, StatusBuilding), store.Equals(attrBuild, build)))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil // failed or dropped meanwhile
	}
	if err != nil {
		return err
	}
	s.log.Info("render built", slog.String("key", key), slog.Float64("seconds", res.Seconds), slog.Bool("copied_video", res.CopiedVideo))
	return s.queueMail(ctx, key, it)
}

// fetch copies a blob to a local file; a missing blob is a BuildError.
func (s *Service) fetch(ctx context.Context, key, path string) error {
	rc, _, err := s.cfg.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return &BuildError{Code: CodeSourceMissing, Detail: "A source file of the render is no longer available."}
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = f.ReadFrom(rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// queueMail queues the email of a built render when one was asked for
// and is not queued yet. Its message ID is the render's build, so however
// often this runs (retries, a crash between queueing and recording it)
// the mailer sends one email.
func (s *Service) queueMail(ctx context.Context, key string, it store.Item) error {
	to := it.Str(attrEmailTo)
	if to == "" || it.Bool(attrMailQueued) {
		return nil
	}
	if s.cfg.Mail == nil {
		return &BuildError{Code: CodeInternal, Detail: "no mail queue configured"}
	}
	v, err := s.cfg.Videos.Get(ctx, it.Str(attrVideo))
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			return nil // expired since: the link would not work
		}
		return err
	}
	trackName := it.Str(attrTrack)
	if cat, err := s.cfg.Catalog.Current(ctx); err == nil {
		if t, ok := cat.Track(trackName); ok {
			trackName = t.DisplayName() + " – " + t.Artist.Name
		}
	}
	link := linkURL(it.Str(attrLinkBase), v.ID, key, it.Str(attrBuild))
	m := Email(key+"-"+it.Str(attrBuild), to, v.SourceTitle, trackName, link, v.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC"))
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := s.cfg.Mail.Send(ctx, body); err != nil {
		return fmt.Errorf("render: queue mail: %w", err)
	}
	_, err = s.cfg.Store.Update(ctx, store.Jobs, recordKey(key), store.Update{Set: map[string]any{attrMailQueued: true}},
		store.Equals(attrBuild, it.Str(attrBuild)))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return err // retried: queued again, and the mailer sends it once
	}
	return nil
}

// Email is the message that tells the user a render is ready.
func Email(id, to, videoName, trackName, link, expires string) mail.Message {
	text := fmt.Sprintf("Your soundtrack render is ready.\n\nVideo: %s\nTrack: %s\n\nDownload it here:\n%s\n\n"+
		"The link works until the uploaded video expires (%s).\n", videoName, trackName, link, expires)
	h := html.EscapeString
	body := fmt.Sprintf(`<!DOCTYPE html><html><body><p>Your soundtrack render is ready.</p>`+
		`<p>Video: <b>%s</b><br>Track: <b>%s</b></p><p><a href="%s">Download the video</a></p>`+
		`<p>The link works until the uploaded video expires (%s).</p></body></html>`, h(videoName), h(trackName), h(link), h(expires))
	return mail.Message{ID: "render-" + id, To: to, Subject: "Your soundtrack render is ready: " + oneLine(videoName), Text: text, HTML: body}
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}
