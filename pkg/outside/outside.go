package outside

import (
	"context"
	"errors"
)

// MaxSampleSeconds bounds the samples sent to an outside service: the
// services take clips of about 12–15 s (gaps.md, outside recognition).
const MaxSampleSeconds = 12

// Match is what an outside service says a sample is.
type Match struct {
	Title, Artist, Album, Label, ISRC string
	// Score is the service's confidence, nil when it reports none.
	Score *float64
	// PlayOffsetMs is the recording's time at the end of the sample
	// (ACRCloud's play_offset_ms); 0 when unknown.
	PlayOffsetMs int64
	// DurationMs is the recording's length; 0 when unknown.
	DurationMs int64
}

// Recognizer identifies music samples with an outside service.
type Recognizer interface {
	// Identify names the music of sample (WAV or MP3 bytes, at most
	// MaxSampleSeconds long). It returns nil, nil when the service knows
	// no match.
	Identify(ctx context.Context, sample []byte) (*Match, error)
}

// Errors adapters wrap; test with errors.Is.
var (
	// ErrTransient: the service is throttling, over its limit or briefly
	// unavailable; the same call may succeed later.
	ErrTransient = errors.New("outside recognition temporarily unavailable")
	// ErrRejected: the service refused the request (bad credentials or
	// signature, a sample it will not take); retrying does not help.
	ErrRejected = errors.New("outside recognition request rejected")
)
