package errs

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error for the client.
type Kind int

const (
	Internal        Kind = iota // 500; never shows its text
	Invalid                     // 400
	Unauthenticated             // 401
	Forbidden                   // 403
	NotFound                    // 404
	Conflict                    // 409
	TooLarge                    // 413
	Unprocessable               // 422
	RateLimited                 // 429
	Unavailable                 // 503 unless Status overrides
	NotImplemented              // 501
)

// Error is the service's error value.
type Error struct {
	Op     string              // operation, for logs: "allowlist.Add"
	Kind   Kind                // what the client is told
	Detail string              // client-visible message ({detail})
	Code   string              // optional machine code (error_code)
	Fields map[string][]string // field errors ({field: [msg]}); replaces Detail in the body
	// RetryAfter, when set on RateLimited, becomes the Retry-After header.
	RetryAfter time.Duration
	// Body, when non-nil, is written as the response body instead of the
	// default shape (used where the spec dictates a richer body, e.g. the
	// recognition quota 429).
	Body any
	// Status overrides the status the Kind maps to (e.g. 500 for an
	// unavailable ranking backend, where the spec says 500).
	Status int
	Err    error // cause, never shown to clients
}

func (e *Error) Error() string {
	msg := e.Op
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if len(e.Fields) > 0 {
		msg += fmt.Sprintf(": %v", e.Fields)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// E builds an error of a kind with a client-visible detail.
func E(op string, k Kind, detail string) *Error { return &Error{Op: op, Kind: k, Detail: detail} }

// Wrap makes an internal error from a cause; nil stays nil.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Kind: Internal, Err: err}
}

// Field builds a 400 field error {field: [msg]}.
func Field(op, field, msg string) *Error {
	return &Error{Op: op, Kind: Invalid, Fields: map[string][]string{field: {msg}}}
}

// KindOf returns the Kind of err (Internal for foreign errors).
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is an *Error of kind k.
func Is(err error, k Kind) bool { return err != nil && KindOf(err) == k }
