package recognition

import (
	"encoding/json"
	"errors"
	"strings"

	"musiccatalog/pkg/workflow"
)

// Error codes of failed jobs (the error_code of a poll with status
// failed; the package doc lists them for clients).
const (
	CodeCorruptMedia  = "corrupt_media"   // from decode: not a readable video
	CodeNoAudio       = "no_audio_stream" // from decode: nothing to listen to
	CodeTooShort      = "too_short"       // from decode
	CodeTooLong       = "too_long"        // longer than the configured maximum
	CodeTooLarge      = "too_large"       // the file is larger than MaxFileSize
	CodeSourceMissing = "source_missing"  // the uploaded file is gone
	CodeSourceChanged = "source_changed"  // the file at the storage key was replaced after submit
	CodeTimeout       = "timeout"         // a step, or the whole job, took too long
	CodeInterrupted   = "interrupted"     // the service restarted under the job too often
	CodeStartFailed   = "start_failed"    // the pipeline could not be started
	CodeInternal      = "internal_error"  // anything else, after retries
)

// JobError is a failure caused by the job's input: retrying cannot help,
// and its Code and Detail are what the client sees. Step Functions sees
// it as the error name "JobError" and does not retry it.
type JobError struct {
	Code, Detail string
}

// Error is "code: detail", the form parseCaught reads back from a Cause.
func (e *JobError) Error() string { return e.Code + ": " + e.Detail }

// InputError reports whether a job that failed with code failed because
// of its input – what the client sent cannot be analyzed – rather than
// because of the service. Such a job keeps its quota unit.
func InputError(code string) bool {
	switch code {
	case CodeCorruptMedia, CodeNoAudio, CodeTooShort, CodeTooLong, CodeTooLarge:
		return true
	}
	return false
}

var (
	errTooLarge      = &JobError{Code: CodeTooLarge, Detail: "The file is larger than this service accepts (100 MB)."}
	errSourceMissing = &JobError{Code: CodeSourceMissing, Detail: "The uploaded video is no longer available; upload it again."}
	errSourceChanged = &JobError{Code: CodeSourceChanged, Detail: "The file at this storage key was replaced after the job was submitted; submit again."}
)

// Details of the failures the pipeline itself names.
const (
	detailTimeout     = "Recognition took too long and was stopped. Submit the video again."
	detailInterrupted = "Recognition was interrupted repeatedly. Submit the video again."
	detailStartFailed = "Recognition could not be started. Submit the video again."
	detailInternal    = "Recognition could not be completed. Submit the video again."
)

// CaughtError is what a Catch passes to the fail task: the error name and
// its cause (for a Lambda function error, the function's error JSON).
type CaughtError struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// failureOf turns a caught error into the job's error code and detail.
// Only JobError text reaches the client; everything else is summarized.
func failureOf(c *CaughtError) (code, detail string) {
	if c == nil {
		return CodeInternal, detailInternal
	}
	switch c.Error {
	case "States.Timeout", "Sandbox.Timedout":
		return CodeTimeout, detailTimeout
	case "JobError":
		var cause struct {
			ErrorMessage string `json:"errorMessage"`
		}
		if json.Unmarshal([]byte(c.Cause), &cause) == nil {
			if code, detail, ok := strings.Cut(cause.ErrorMessage, ": "); ok && code != "" {
				return code, detail
			}
		}
	}
	return CodeInternal, detailInternal
}

// taskError is how a task's failure leaves HandleTask: a *JobError as is,
// anything else as a transient error for the workflow to retry.
func taskError(err error) error {
	if err == nil {
		return nil
	}
	var je *JobError
	if errors.As(err, &je) {
		return je
	}
	return workflow.Transient(err)
}
