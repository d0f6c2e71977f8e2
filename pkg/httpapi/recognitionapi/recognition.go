package recognitionapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"musiccatalog/pkg/httpapi"
	"net/http"
	"path"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/recognition"
)

// Limits of interface.md §8 for recognition.
const (
	RecognitionMaxFile      = recognition.MaxFileSize // "100 MB"
	RecognitionUploadURLTTL = httpapi.UploadURLTTL    // expires_in default
	recognitionPrefix       = "video-recognition/"
)

const msgRecognitionSize = "File size cannot exceed 100 MB."
const msgExactlyOne = "Provide exactly one of `file` or `storage_key`."

// msgKeyInMultipart answers a multipart submit whose only source is a
// storage_key field: the spec's text, and where the key goes instead. A
// form with both a file and a storage_key gets the spec's text alone.
const msgKeyInMultipart = msgExactlyOne + " A `storage_key` is sent in a JSON body (Content-Type: application/json); a multipart form carries only `file`."

// Service is what the recognition endpoints need; *recognition.Service
// implements it.
type Service interface {
	Submit(ctx context.Context, p *identity.Principal, src recognition.SourceRef) (recognition.Job, error)
	Get(ctx context.Context, clientID, jobID string) (recognition.Job, error)
	// Rejection is why the upload trigger refused and deleted the upload
	// at key, or nil.
	Rejection(ctx context.Context, key string) (*recognition.JobError, error)
}

// API serves the recognition endpoints (interface.md §4.5).
type API struct {
	*httpapi.API
	Recognition Service
}

// jobsPath is where jobs are submitted; a job is polled at jobsPath{job_id}/.
const jobsPath = "/api/v4/video-recognition/"

// Mount registers the group's routes.
func (a *API) Mount(rt *httpapi.Router) {
	rt.Handle("POST /api/v4/video-recognition/upload-url/", httpapi.MaxJSONBody, a.recognitionUploadURL)
	rt.Handle("POST /api/v4/video-recognition/", httpapi.SelfLimitedBody,
		httpapi.AuthFirst(a.submitter, recognitionUploads.Bounded(a.Idempotent(a.recognitionSubmit))))
	rt.Handle("GET /api/v4/video-recognition/{job_id}/", httpapi.NoBody, a.recognitionPoll)
}

// submitter is the authentication rule of submit (§5), checked before
// the body's size.
func (a *API) submitter(r *http.Request) error {
	_, err := a.Partner(r, identity.ScopeComplianceCheck)
	return err
}

// recognitionUploads is the presigned-upload flow of §4.5.
var recognitionUploads = httpapi.NewUploadPolicy(recognitionPrefix, RecognitionMaxFile,
	msgRecognitionSize, httpapi.MsgVideoExtension, "/api/v4/video-recognition/")

func (a *API) recognitionUploadURL(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Partner(r, identity.ScopeComplianceCheck)
	if err != nil {
		return err
	}
	return a.IssueUploadURL(w, r, p.Client.ID, recognitionUploads)
}

// submitResponse is the 201 of §4.5: no progress, no segments yet.
type submitResponse struct {
	JobID  string               `json:"job_id"`
	Status string               `json:"status"`
	Track  *recognition.Segment `json:"track"`
}

// submitted is the 201 body for job: track is null on a new job (§2.4);
// a retry given its first run's job as it is now repeats that job's
// track once it has completed, as its poll does.
func submitted(job recognition.Job) submitResponse {
	out := submitResponse{JobID: job.ID, Status: job.Status}
	if job.Status == recognition.StatusCompleted {
		out.Track = job.Track
	}
	return out
}

func (a *API) recognitionSubmit(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.recognitionSubmit"
	p, err := a.Partner(r, identity.ScopeComplianceCheck)
	if err != nil {
		return err
	}
	var src recognition.SourceRef
	var uploaded bool
	if httpapi.IsMultipart(r) {
		src, err = a.receiveRecognitionFile(r, p.Client.ID)
		uploaded = err == nil
	} else {
		src, err = a.resolveStorageKey(r, p.Client.ID)
	}
	if err != nil {
		return err
	}
	job, err := a.Recognition.Submit(r.Context(), p, src)
	if err != nil {
		if uploaded && !mayHaveWritten(err) { // nothing will use the file: do not leave it behind
			_ = a.Blob.Delete(r.Context(), src.Key)
		}
		return quotaError(err, a.Clock.Now())
	}
	if uploaded && job.Source.Key != src.Key {
		// A retry given the job its first run created: this run's own
		// upload is used by nothing.
		a.discard(r, src)
	}
	w.Header().Set("Location", jobsPath+job.ID+"/") // where to poll (201: the job's address)
	httpapi.WriteJSON(w, http.StatusCreated, submitted(job))
	return nil
}

// mayHaveWritten reports whether a failed submit may have written its job
// all the same: an internal error can come after the commit (a timeout).
// The job's file stays then: a retry under the same Idempotency-Key gets
// that job, and an upload no job uses expires with the bucket's
// lifecycle rule. A refusal (bad input, quota, a pipeline that did not
// start: its job ended) wrote nothing that reads the file.
func mayHaveWritten(err error) bool {
	return errs.Is(err, errs.Internal) && !errors.Is(err, quota.ErrExceeded)
}

// receiveRecognitionFile streams the multipart `file` into the blob store.
func (a *API) receiveRecognitionFile(r *http.Request, clientID string) (recognition.SourceRef, error) {
	const op = "httpapi.receiveRecognitionFile"
	mr, err := r.MultipartReader()
	if err != nil {
		return recognition.SourceRef{}, errs.E(op, errs.Invalid, httpapi.MsgMalformedMultipart)
	}
	var src recognition.SourceRef
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.discard(r, src)
			return recognition.SourceRef{}, recognitionUploads.BodyFault(op, err)
		}
		switch part.FormName() {
		case "storage_key": // never stored: the file (before or after it) is not wanted
			a.discard(r, src)
			if src.Key != "" || fileFollows(mr) {
				return recognition.SourceRef{}, errs.E(op, errs.Invalid, msgExactlyOne)
			}
			return recognition.SourceRef{}, errs.E(op, errs.Invalid, msgKeyInMultipart)
		case "file":
			if src.Key != "" {
				a.discard(r, src)
				return recognition.SourceRef{}, errs.Field(op, "file", "Send one file.")
			}
			if src, err = a.storeRecognitionPart(r, clientID, part); err != nil {
				return recognition.SourceRef{}, err
			}
		}
		if _, err := io.Copy(io.Discard, part); err != nil { // the rest of a part we do not read
			a.discard(r, src)
			return recognition.SourceRef{}, recognitionUploads.BodyFault(op, err)
		}
	}
	if src.Key == "" {
		a.discard(r, src)
		return recognition.SourceRef{}, errs.E(op, errs.Invalid, msgExactlyOne)
	}
	return src, nil
}

// fileFollows reports whether a later part of the form is the `file`,
// reading part headers only: it stops at the first file part (whose
// content is never read) or at the end or a fault of the body.
func fileFollows(mr *multipart.Reader) bool {
	for {
		part, err := mr.NextPart()
		if err != nil {
			return false
		}
		if part.FormName() == "file" {
			return true
		}
	}
}

func (a *API) storeRecognitionPart(r *http.Request, clientID string, part io.Reader) (recognition.SourceRef, error) {
	const op = "httpapi.storeRecognitionPart"
	fp, _ := part.(interface{ FileName() string })
	name := ""
	if fp != nil {
		name = blob.BaseName(fp.FileName())
	}
	ext := httpapi.VideoExt(name)
	if ext == "" {
		return recognition.SourceRef{}, errs.Field(op, "file", httpapi.MsgVideoExtension)
	}
	if a.Blob == nil {
		return recognition.SourceRef{}, errs.E(op, errs.NotImplemented, "Object storage is not configured in this environment.")
	}
	key := httpapi.UploadKey(recognitionPrefix, clientID, name)
	counted := httpapi.NewPartReader(io.LimitReader(part, RecognitionMaxFile+1))
	if err := a.Blob.Put(r.Context(), key, counted, -1, httpapi.VideoType(ext)); err != nil {
		_ = a.Blob.Delete(r.Context(), key)
		if counted.Err() != nil { // the client's body, not the store
			return recognition.SourceRef{}, recognitionUploads.BodyFault(op, counted.Err())
		}
		return recognition.SourceRef{}, errs.Wrap(op, err)
	}
	if counted.N() > RecognitionMaxFile {
		_ = a.Blob.Delete(r.Context(), key)
		return recognition.SourceRef{}, errs.Field(op, "file", msgRecognitionSize)
	}
	if counted.N() == 0 {
		_ = a.Blob.Delete(r.Context(), key)
		return recognition.SourceRef{}, errs.Field(op, "file", "The submitted file is empty.")
	}
	attrs, err := a.Blob.Head(r.Context(), key)
	if err != nil {
		return recognition.SourceRef{}, errs.Wrap(op, err)
	}
	return recognition.SourceRef{Key: key, ETag: attrs.ETag, Size: attrs.Size, Filename: name}, nil
}

func (a *API) discard(r *http.Request, src recognition.SourceRef) {
	if src.Key != "" && a.Blob != nil {
		_ = a.Blob.Delete(r.Context(), src.Key)
	}
}

// resolveStorageKey checks a JSON submit's storage_key: under the
// recognition prefix, uploaded by this client, present, within the size limit.
func (a *API) resolveStorageKey(r *http.Request, clientID string) (recognition.SourceRef, error) {
	const op = "httpapi.resolveStorageKey"
	var in struct {
		StorageKey *string         `json:"storage_key"`
		File       json.RawMessage `json:"file"`
	}
	if empty, err := httpapi.BodyEmpty(r); empty || err != nil { // no body at all: neither was sent
		if err == nil {
			err = errs.E(op, errs.Invalid, msgExactlyOne)
		}
		return recognition.SourceRef{}, err
	}
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return recognition.SourceRef{}, err
	}
	if (in.StorageKey == nil) == (in.File == nil) {
		return recognition.SourceRef{}, errs.E(op, errs.Invalid, msgExactlyOne)
	}
	if in.StorageKey == nil {
		return recognition.SourceRef{}, errs.Field(op, "file", "Send the file as multipart/form-data.")
	}
	key := *in.StorageKey
	attrs, err := a.CheckUploadedKey(r.Context(), key, clientID, recognitionUploads)
	if err != nil && strings.HasPrefix(key, recognitionUploads.Prefix()+clientID+"/") {
		// Gone: the upload trigger may have refused it (over 100 MB, too
		// long), which is not "nothing was uploaded".
		if je, rerr := a.Recognition.Rejection(r.Context(), key); rerr != nil {
			return recognition.SourceRef{}, errs.Wrap(op, rerr)
		} else if je != nil {
			msg := je.Detail
			if je.Code == recognition.CodeTooLarge {
				msg = msgRecognitionSize
			}
			return recognition.SourceRef{}, errs.Field(op, "storage_key", msg+" The uploaded file was deleted; upload an acceptable one and submit its new key.")
		}
	}
	if err != nil {
		return recognition.SourceRef{}, err
	}
	return recognition.SourceRef{Key: key, ETag: attrs.ETag, Size: attrs.Size, Filename: path.Base(key)}, nil
}

// quotaExceededBody is the recognition 429 of §7.2.
type quotaExceededBody struct {
	Detail    string `json:"detail"`
	ScopeCode string `json:"scope_code"`
	Window    string `json:"window"`
	Cap       int64  `json:"cap"`
	Used      int64  `json:"used"`
	ResetsIn  string `json:"resets_in"`
	ResetsAt  string `json:"resets_at"`
}

func quotaError(err error, now time.Time) error {
	var qe *quota.ExceededError
	if !errors.As(err, &qe) {
		return err
	}
	u := qe.Usage
	in := max(u.ResetsAt.Sub(now).Round(time.Second), time.Second) // the injected clock, as the quota's; never a past reset
	return &errs.Error{Op: "httpapi.quota", Kind: errs.RateLimited, RetryAfter: in, Err: err,
		Body: quotaExceededBody{
			Detail:    "Daily recognition quota reached. Try again after the reset.",
			ScopeCode: identity.ScopeComplianceCheck, Window: string(u.Window), Cap: u.Cap, Used: u.Used,
			ResetsIn: in.String(), ResetsAt: u.ResetsAt.UTC().Format(time.RFC3339),
		}}
}

// jobJSON is the poll shape of §2.4 (plus the documented failed state).
type jobJSON struct {
	JobID     string                 `json:"job_id"`
	Status    string                 `json:"status"`
	Progress  *string                `json:"progress"`
	Track     *recognition.Segment   `json:"track"`
	Segments  *[]recognition.Segment `json:"segments,omitempty"` // present (maybe empty) only when completed
	ErrorCode string                 `json:"error_code,omitempty"`
	Detail    string                 `json:"detail,omitempty"`
}

func (a *API) recognitionPoll(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Partner(r, identity.ScopeComplianceCheck)
	if err != nil {
		return err
	}
	job, err := a.Recognition.Get(r.Context(), p.Client.ID, strings.ToLower(r.PathValue("job_id")))
	if err != nil {
		return err
	}
	out := jobJSON{JobID: job.ID, Status: job.Status, Progress: job.Progress}
	switch job.Status {
	case "completed":
		out.Progress, out.Track = nil, job.Track
		segs := job.Segments
		if segs == nil {
			segs = []recognition.Segment{}
		}
		out.Segments = &segs
	case "failed":
		out.Progress = nil
		out.ErrorCode, out.Detail = job.ErrorCode, job.Detail
	}
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
