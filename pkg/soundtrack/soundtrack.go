package soundtrack

import (
	"context"
	"math"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/identity"
)

// Source types of a SoundtrackVideo (interface.md §2.3, gaps.md).
const (
	SourceFile    = "file"
	SourceYouTube = "youtube_url"
)

// Limits (interface.md §8).
const (
	// MaxFileSize is the upload limit, "60 MB".
	MaxFileSize int64 = 60 * 1000 * 1000
	// Retention is how long a SoundtrackVideo and its analysis live ("a
	// few days"). The bucket's lifecycle rule for UploadPrefix deletes the
	// media after 5 days, counted from the last write, so the media always
	// outlives the record that points at it.
	Retention = 3 * 24 * time.Hour
	// UploadPrefix is where every soundtrack object lives (template.yaml
	// has the lifecycle rule for it).
	UploadPrefix = "soundtrack/"
	// MaxAnalysisSeconds bounds how much of a video is analyzed: enough
	// to know its music and its pace, and it keeps the create call within
	// the API Gateway's 30 s.
	MaxAnalysisSeconds = 300.0
)

// Client-visible texts of the create call (gaps.md, Soundtrack video).
const (
	MsgNeither    = "Either 'file' or 'url' must be provided."
	MsgBoth       = "Cannot provide both 'file' and 'url'. Choose one."
	MsgBadURL     = "Please provide a valid YouTube URL."
	MsgExtension  = "Unsupported file extension. Allowed: .mov, .mpeg, .mp4, .avi."
	MsgFileSize   = "File size cannot exceed 60 MB."
	MsgEmptyFile  = "The submitted file is empty."
	MsgBothUpload = "Cannot provide both 'file' and 'storage_key'. Choose one."
)

// Video is a SoundtrackVideo (interface.md §2.3).
type Video struct {
	ID          string
	SourceType  string // SourceFile or SourceYouTube
	SourceValue string // 32-hex content hash for files, the URL for links
	SourceTitle string // original file name, or the linked video's title
	// FileKey is the blob key of an uploaded file ("" for links).
	FileKey string
	// CreatedBy is the creator's principal id (identity.Principal.ID).
	CreatedBy string
	ClientID  string
	Public    bool
	CreatedAt time.Time
	ExpiresAt time.Time
}

// ReadableBy applies gaps.md's rule: public videos are readable by
// anyone, private ones only by their creator.
func (v Video) ReadableBy(p *identity.Principal) bool {
	return v.Public || (p != nil && p.ID() == v.CreatedBy)
}

// Analysis is what the service knows of a video's audio and picture. It
// is cached per source value, so the same value always ranks alike.
type Analysis struct {
	// Version names the analyzer that made it; another version analyzes again.
	Version string `json:"version"`
	// Seconds of audio analyzed.
	Seconds float64 `json:"seconds"`
	// Music describes the stretches of the audio that hold music (speech,
	// silence and noise left out); nil when there is none.
	Music *features.Features `json:"music,omitempty"`
	// MusicSeconds is how much music Music was computed from.
	MusicSeconds float64 `json:"music_seconds"`
	// Picture is nil for audio-only media and audio-only fetches.
	Picture *Picture `json:"picture,omitempty"`
	// Title of a linked page, when the fetcher reported one.
	Title string `json:"title,omitempty"`
	// CatalogTrackID is the catalog track the audio's fingerprints match,
	// when the video's music is a catalog track ("" otherwise): the
	// strongest sign of what fits, since it is already there.
	CatalogTrackID string `json:"catalog_track_id,omitempty"`
}

// Picture is the pace of a video's picture, from ffmpeg's scene-change
// scores (0 = identical frames, 1 = nothing in common) sampled at a fixed
// frame rate.
type Picture struct {
	Seconds float64 `json:"seconds"`
	Frames  int     `json:"frames"`
	// Cuts counts hard scene changes; CutsPerMinute is the editing pace.
	Cuts          int     `json:"cuts"`
	CutsPerMinute float64 `json:"cuts_per_minute"`
	// Motion is the mean scene-change score of the frames that are not
	// cuts: how much moves within shots.
	Motion float64 `json:"motion"`
}

// The picture-to-music mapping. A still or slowly edited picture suits
// music around 70 BPM; fast cutting (a cut every two seconds is 30 a
// minute) and busy shots suit faster music, up to about 170 BPM. Energy
// follows the same two cues. The constants are set from ffmpeg's scene
// scores at the analyzer's sampling rate: a calm talking-head shot
// measures motion ~0.005, a panning or handheld shot ~0.03, an action
// shot 0.08 and more.
const (
	calmTempo       = 70.0
	tempoPerCut     = 2.0   // BPM per cut a minute
	tempoPerMotion  = 500.0 // BPM per unit of motion
	minTempoHint    = 60.0
	maxTempoHint    = 170.0
	calmEnergy      = 0.2
	energyPerCut    = 0.012
	energyPerMotion = 6.0
)

// TempoHint is the BPM the picture suggests.
func (p Picture) TempoHint() float64 {
	return clamp(calmTempo+tempoPerCut*p.CutsPerMinute+tempoPerMotion*p.Motion, minTempoHint, maxTempoHint)
}

// EnergyHint is the energy (0–1, the catalog's scale) the picture suggests.
func (p Picture) EnergyHint() float64 {
	return clamp(calmEnergy+energyPerCut*p.CutsPerMinute+energyPerMotion*p.Motion, 0, 1)
}

// Hints are the tempo (BPM, 0 = none) and energy (0–1, negative = none)
// the picture asks of the catalog. They speak only for a video without
// music of its own – the usual case, footage that needs a soundtrack. When
// the video already has music (a temp track), that music is the better
// guide and the search looks for tracks that sound like it; a picture
// hint would only pull the ranking away from it.
func (a Analysis) Hints() (tempo, energy float64) {
	if a.Picture == nil || a.Picture.Frames == 0 || a.Music != nil {
		return 0, -1
	}
	return a.Picture.TempoHint(), a.Picture.EnergyHint()
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// FetchedMedia is a link's media on local disk.
type FetchedMedia struct {
	Path  string
	Title string // the page's title, "" when unknown
}

// VideoFetcher fetches the media behind a link (DESIGN.md §3). Links come
// already checked by ParseLink; implementations still refuse every host
// that resolves to a private, loopback or link-local address. Failures are
// *errs.Error values whose Detail and Code can be shown to the client.
type VideoFetcher interface {
	// Fetch writes the media into dir. audioOnly asks for just the sound
	// (by-url), which is smaller; otherwise a picture is wanted too.
	Fetch(ctx context.Context, link Link, dir string, audioOnly bool) (FetchedMedia, error)
}

// Identifier names the catalog track a recording's music comes from, by
// fingerprint matching; "" when none does.
type Identifier interface {
	Identify(ctx context.Context, pcm audio.PCM) (string, error)
}

// Analyzer turns a media file into an Analysis; package videoanalysis is
// the implementation on the audio engine and ffmpeg. Input the analyzer
// cannot use fails with a *decode.Error (the 422 of interface.md §7.2).
type Analyzer interface {
	Version() string
	Analyze(ctx context.Context, path string, picture bool) (Analysis, error)
}
