package licensing

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
)

// Limits of interface.md §8 and §5.
const (
	// MaxProjectName bounds project_name, in characters (§8).
	MaxProjectName = 255
	// MaxUserID bounds X-User-ID, in characters once trimmed (issue 10;
	// §5 only says the header is required).
	MaxUserID = 255
)

// Error codes of interface.md §7.3 that the domain decides, plus
// license_not_found for the lookup the spec leaves out (gaps.md).
const (
	CodeValidation      = "validation_error"
	CodeTrackNotFound   = "track_not_found"
	CodeThrottled       = "throttled"
	CodeLicenseNotFound = "license_not_found"
)

// License is one issued license. Every field is fixed at issue time.
type License struct {
	ID          string
	ClientID    string
	ClientName  string // the issuing partner's display name
	UserID      string // the partner's end user (X-User-ID), trimmed
	TrackID     string
	TrackName   string
	ArtistName  string
	ProjectName string // "" when none was given
	CreatedAt   time.Time
	// ExpiresAt is set only for a fixed expiry (§2.6); licenses issued
	// through the API do not expire.
	ExpiresAt *time.Time
}

// Usage is the caller's license quota state (§2.6 `usage`).
type Usage struct {
	DailyUsed, MonthlyUsed, DailyLimit, MonthlyLimit int64
}

// Input is what a partner asks a license for.
type Input struct {
	UserID      string // X-User-ID as sent
	TrackID     string
	ProjectName string
	// Key names the API key the call came with (identity.Principal's
	// TokenID): the burst limit counts per key, the daily and monthly
	// quotas per client (interface.md §8). Empty: the burst counts per
	// client too. It is not part of what a license is: the same request
	// through another key is the same license.
	Key string
}

// Field names of validation details: the body fields, and the header.
const (
	FieldUserID      = "X-User-ID"
	FieldTrackID     = "track_id"
	FieldProjectName = "project_name"
)

// NormalizeUserID trims an X-User-ID value and checks it is 1 to
// MaxUserID printable characters; msg says what is wrong otherwise.
func NormalizeUserID(s string) (id, msg string) {
	id = strings.TrimSpace(s)
	switch {
	case id == "":
		return "", "Must not be blank."
	case !utf8.ValidString(id):
		return "", "Must be valid UTF-8."
	case utf8.RuneCountInString(id) > MaxUserID:
		return "", "Ensure this value has no more than 255 characters."
	case strings.IndexFunc(id, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return "", "Must contain only printable characters."
	}
	return id, ""
}

// Problems returns what is wrong with each field of in (nil when nothing).
func (in Input) Problems() map[string][]string {
	_, fields := in.normalize()
	return fields
}

// normalize returns the input as stored (trimmed user and project, the
// canonical lower-case UUID) and the field errors, all at once.
func (in Input) normalize() (Input, map[string][]string) {
	fields := map[string][]string{}
	user, msg := NormalizeUserID(in.UserID)
	if msg != "" {
		fields[FieldUserID] = []string{msg}
	}
	in.UserID = user
	if msg := TrackIDProblem(in.TrackID); msg != "" {
		fields[FieldTrackID] = []string{msg}
	}
	in.TrackID = strings.ToLower(in.TrackID)
	in.ProjectName = strings.TrimSpace(in.ProjectName)
	if msg := ProjectNameProblem(in.ProjectName); msg != "" {
		fields[FieldProjectName] = []string{msg}
	}
	if len(fields) == 0 {
		fields = nil
	}
	return in, fields
}

// TrackIDProblem says what is wrong with a track_id ("" when nothing).
func TrackIDProblem(s string) string {
	switch {
	case s == "":
		return "This field is required."
	case !ids.IsUUID(s):
		return "Must be a valid UUID."
	}
	return ""
}

// ProjectNameProblem says what is wrong with a project_name ("" when
// nothing); the empty name means "no project".
func ProjectNameProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "Must be valid UTF-8."
	case utf8.RuneCountInString(s) > MaxProjectName:
		return "Ensure this field has no more than 255 characters."
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "Must not contain control characters."
	}
	return ""
}

// MsgValidation is the message of every validation_error; details name the fields.
const MsgValidation = "The request is not valid; see details."

// ValidationError is the 400 validation_error naming each bad field.
func ValidationError(op string, fields map[string][]string) error {
	return &errs.Error{Op: op, Kind: errs.Invalid, Code: CodeValidation,
		Detail: MsgValidation, Fields: fields}
}
