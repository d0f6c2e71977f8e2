package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
)

// Limits and defaults (interface.md §4.1, §8).
const (
	// DefaultVolume is both volumes' default, and MaxVolume their upper
	// bound ("0.0 to 1.0, default 1.0").
	DefaultVolume = 1.0
	MaxVolume     = 1.0
	// FadeOut is the fade at the end of every render (issue 11).
	FadeOut = 2.0
	// URLTTL: signed URLs of renders live "a few minutes" (§8).
	URLTTL = 5 * time.Minute
	// BuildDeadline is how long a build may stay `building` before a
	// request treats it as failed: above the state machine's whole
	// TimeoutSeconds (render.asl.json, 1500 s) so a live build is never
	// taken for a dead one.
	BuildDeadline = 30 * time.Minute
	// OutputPrefix holds the renders, under the soundtrack prefix whose
	// lifecycle rule removes them after the video (soundtrack.UploadPrefix).
	OutputPrefix = "soundtrack/renders/"
)

// Client-visible texts (gaps.md; §7.2).
const (
	MsgPreparing    = "Download is being prepared. Please try again in a few moments."
	MsgLinkSourced  = "Only uploaded files can be rendered; videos from links cannot be re-rendered because their original audio is not licensed for redistribution."
	MsgTrackMissing = "Track not found."
	MsgPrivate      = "This soundtrack video is private; only its creator can render it."
	msgNoAddress    = "Your account has no email address to send the link to (its username is not an email address); send false or leave it out."
)

// Params are the render parameters that make its cache key.
type Params struct {
	TrackID     string
	VideoVolume float64
	TrackVolume float64
	TrackStart  float64 // seconds into the track
}

// Request is one render call.
type Request struct {
	Params
	SendEmail bool
}

// Normalized returns p with the track id canonical and the numbers
// rounded to what a render can tell apart: volumes to 1/1000, the start
// to the millisecond. 0.5, 0.50 and 0.5000001 are one render.
func (p Params) Normalized() Params {
	if id, ok := ids.CanonicalUUID(p.TrackID); ok {
		p.TrackID = id
	}
	p.VideoVolume = round(p.VideoVolume, 1000)
	p.TrackVolume = round(p.TrackVolume, 1000)
	p.TrackStart = round(p.TrackStart, 1000)
	return p
}

func round(v, scale float64) float64 { return math.Round(v*scale)/scale + 0 } // +0: no -0

// Validate checks every field and names each bad one (400 {field: [...]}).
func (p Params) Validate() error {
	const op = "render.Validate"
	fields := map[string][]string{}
	if _, ok := ids.CanonicalUUID(p.TrackID); !ok {
		if p.TrackID == "" {
			fields["track_id"] = []string{"This field is required."}
		} else {
			fields["track_id"] = []string{"Must be a valid UUID."}
		}
	}
	for name, v := range map[string]float64{"video_volume": p.VideoVolume, "track_volume": p.TrackVolume} {
		if math.IsNaN(v) || v < 0 || v > MaxVolume {
			fields[name] = []string{"Must be a number from 0.0 to 1.0."}
		}
	}
	if math.IsNaN(p.TrackStart) || math.IsInf(p.TrackStart, 0) || p.TrackStart < 0 {
		fields["track_start"] = []string{"Must be a number of seconds, 0 or more."}
	}
	if len(fields) > 0 {
		return &errs.Error{Op: op, Kind: errs.Invalid, Fields: fields}
	}
	return nil
}

// Key is the cache key of a render of video with p (normalized first):
// the same parameters always give the same key, so the same URL.
func Key(videoID string, p Params) string {
	p = p.Normalized()
	h := sha256.Sum256([]byte(fmt.Sprintf("render/v1|%s|%s|%s|%s|%s", videoID, p.TrackID,
		num(p.VideoVolume), num(p.TrackVolume), num(p.TrackStart))))
	return hex.EncodeToString(h[:16])
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// linkToken is the secret half of a render's link: 32 hex of the build id.
func linkToken(build string) string {
	h := sha256.Sum256([]byte("render-link/v1|" + build))
	return hex.EncodeToString(h[:16])
}

// IsKey reports whether s is shaped like a Key.
func IsKey(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Statuses of a build record.
const (
	StatusBuilding = "building"
	StatusBuilt    = "built"
	StatusFailed   = "failed"
)

// Failure codes of a build (the reason a 500 names).
const (
	CodeSourceMissing = "source_missing" // the video or the track's audio is gone
	CodeNoVideo       = "no_video_stream"
	CodeCorrupt       = "corrupt_media"
	CodeTimeout       = "timeout"
	CodeInternal      = "internal_error"
)

// BuildError is a failure retrying cannot fix; Step Functions sees the
// error name "BuildError" and does not retry it.
type BuildError struct{ Code, Detail string }

func (e *BuildError) Error() string { return e.Code + ": " + e.Detail }
