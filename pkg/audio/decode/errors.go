package decode

import "errors"

// Error is a decoding failure caused by the input itself. Its Detail is safe
// to show to the user; Code is stable for clients.
type Error struct {
	code   string
	detail string
}

func (e *Error) Error() string { return e.detail }

// Code is the machine-readable error_code.
func (e *Error) Code() string { return e.code }

// Detail is the human-readable explanation.
func (e *Error) Detail() string { return e.detail }

// The input errors. Compare with errors.Is; wrapped errors keep the code.
var (
	ErrCorrupt  = &Error{"corrupt_media", "The file is corrupt or not a supported audio or video format."}
	ErrNoAudio  = &Error{"no_audio_stream", "The file has no audio stream."}
	ErrTooShort = &Error{"too_short", "The audio is too short to analyze."}
	ErrTooLong  = &Error{"too_long", "The audio is longer than this service analyzes."}
)

// Code returns the error_code of an input error in err's chain, or "" when
// err is not the input's fault.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.code
	}
	return ""
}
