package acrcloud

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// The fixed parts of an identify request.
const (
	IdentifyPath     = "/v1/identify"
	DataType         = "audio"
	SignatureVersion = "1"
)

// Status codes of the identify protocol.
const (
	CodeSuccess           = 0
	CodeNoResult          = 1001
	CodeInvalidAccessKey  = 3001
	CodeLimitExceeded     = 3003
	CodeInvalidArguments  = 3006
	CodeInvalidSignature  = 3014
	CodeRateLimited       = 3015
	CodeSampleTooLarge    = 3016
	CodeInternalServerErr = 3000
)

// Signature is the request signature: base64(HMAC-SHA1(secret,
// "POST\n/v1/identify\n" + key + "\n" + dataType + "\n" + version + "\n" + timestamp)).
func Signature(secret, accessKey, dataType, signatureVersion, timestamp string) string {
	msg := strings.Join([]string{"POST", IdentifyPath, accessKey, dataType, signatureVersion, timestamp}, "\n")
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Response is the identify response body.
type Response struct {
	Status   Status    `json:"status"`
	Metadata *Metadata `json:"metadata,omitempty"`
}

// Status is the outcome of a request.
type Status struct {
	Code    int    `json:"code"`
	Msg     string `json:"msg"`
	Version string `json:"version,omitempty"`
}

// Metadata holds the matches.
type Metadata struct {
	Music []Music `json:"music"`
}

// Music is one matched recording.
type Music struct {
	Title        string       `json:"title"`
	Artists      []Name       `json:"artists,omitempty"`
	Album        *Name        `json:"album,omitempty"`
	Label        string       `json:"label,omitempty"`
	ExternalIDs  *ExternalIDs `json:"external_ids,omitempty"`
	Score        *float64     `json:"score,omitempty"`
	PlayOffsetMs int64        `json:"play_offset_ms"`
	DurationMs   int64        `json:"duration_ms,omitempty"`
}

// Name is an object with a name (artist, album).
type Name struct {
	Name string `json:"name"`
}

// ExternalIDs carries the ISRC, which the service sends as a string or as
// an array of strings.
type ExternalIDs struct {
	ISRC ISRCs `json:"isrc,omitempty"`
}

// ISRCs reads "isrc" in either form.
type ISRCs []string

func (s *ISRCs) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = ISRCs{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}
