package recognition

import (
	"encoding/json"
	"time"
)

// Job statuses (interface.md §2.4, §3.1, plus the documented failed state).
const (
	StatusQueued     = "queued"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// Progress values while processing.
const (
	ProgressExtracting = "extracting"
	ProgressMatching   = "matching"
	ProgressFinishing  = "finishing"
)

// SourceRef is the uploaded video a job recognizes.
type SourceRef struct {
	Key      string // blob key under video-recognition/
	ETag     string // the object's ETag at submit; the job reads only that version
	Size     int64
	Filename string
}

// Job is a recognition job.
type Job struct {
	ID, ClientID string
	Status       string
	// Progress is set while processing.
	Progress *string
	// Track repeats the longest identified segment, without timing.
	Track *Segment
	// Segments is set when completed (possibly empty: no music).
	Segments []Segment
	// ErrorCode and Detail explain a failed job (see the package doc).
	ErrorCode, Detail string
	CreatedAt         time.Time
	CompletedAt       time.Time
	Source            SourceRef
}

// Segment is a stretch of music (interface.md §2.5). Nullable fields are
// pointers and marshal as null. The job's Track is a Segment without
// timing: its StartMs and EndMs are zero and not marshalled.
type Segment struct {
	Identified     bool
	StartMs, EndMs int64
	ID             *string
	Title, Artist  *string
	Cleared        *bool
	Internal       *bool
	ISRC           *string
	Score          *float64
	ExternalLabel  *string
	// Cover is an object (*Cover) or nil.
	Cover any
	// Suggestions are marshalled only on not-cleared segments.
	Suggestions []Suggestion

	// Speed and PitchSemitones are how the video plays a catalog match
	// against the recording (issue 16): tempo ratio (1.05 = 5 % faster)
	// and pitch shift; nil when unchanged.
	Speed, PitchSemitones *float64
}

// Cover is the cover object of a catalog match: the cover image URL and,
// when the track is on an album with images, its sizes.
type Cover struct {
	URL    string `json:"url"`
	Small  string `json:"small,omitempty"`
	Medium string `json:"medium,omitempty"`
	Large  string `json:"large,omitempty"`
}

// Suggestion is a catalog track the account can use instead.
type Suggestion struct {
	ID     string           `json:"id"`
	Name   string           `json:"name"`
	Artist SuggestionArtist `json:"artist"`
}

// SuggestionArtist names the artist with both link forms the docs show.
type SuggestionArtist struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
	// Path is the artist's page on the site, "/artists/{slug}/".
	Path string `json:"path"`
}

// segmentJSON fixes the field order and null handling of §2.5.
type segmentJSON struct {
	Identified    bool          `json:"identified"`
	StartMs       *int64        `json:"start_ms,omitempty"`
	EndMs         *int64        `json:"end_ms,omitempty"`
	ID            *string       `json:"id"`
	Title         *string       `json:"title"`
	Artist        *string       `json:"artist"`
	Cleared       *bool         `json:"cleared"`
	Internal      *bool         `json:"internal"`
	ISRC          *string       `json:"isrc"`
	Score         *float64      `json:"score"`
	ExternalLabel *string       `json:"external_label"`
	Cover         any           `json:"cover"`
	Suggestions   *[]Suggestion `json:"suggestions,omitempty"`
	warpJSON
}

// warpJSON are the optional speed and pitch of a catalog match.
type warpJSON struct {
	Speed          *float64 `json:"speed,omitempty"`
	PitchSemitones *float64 `json:"pitch_semitones,omitempty"`
}

// NotCleared reports whether the segment names music the account's plan
// does not cover (the segments that carry suggestions).
func (s Segment) NotCleared() bool { return s.Cleared != nil && !*s.Cleared }

func (s Segment) timed() bool { return s.EndMs > 0 }

func (s Segment) MarshalJSON() ([]byte, error) {
	out := segmentJSON{
		Identified: s.Identified, ID: s.ID, Title: s.Title, Artist: s.Artist, Cleared: s.Cleared,
		Internal: s.Internal, ISRC: s.ISRC, Score: s.Score, ExternalLabel: s.ExternalLabel, Cover: s.Cover,
		warpJSON: warpJSON{Speed: s.Speed, PitchSemitones: s.PitchSemitones},
	}
	if s.timed() {
		out.StartMs, out.EndMs = &s.StartMs, &s.EndMs
	}
	if s.NotCleared() {
		sug := s.Suggestions
		if sug == nil {
			sug = []Suggestion{}
		}
		out.Suggestions = &sug
	}
	return json.Marshal(out)
}

func (s *Segment) UnmarshalJSON(b []byte) error {
	var in struct {
		segmentJSON
		Cover *Cover `json:"cover"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*s = Segment{
		Identified: in.Identified, ID: in.ID, Title: in.Title, Artist: in.Artist, Cleared: in.Cleared,
		Internal: in.Internal, ISRC: in.ISRC, Score: in.Score, ExternalLabel: in.ExternalLabel,
		Speed: in.Speed, PitchSemitones: in.PitchSemitones,
	}
	if in.Cover != nil {
		s.Cover = in.Cover
	}
	if in.StartMs != nil && in.EndMs != nil {
		s.StartMs, s.EndMs = *in.StartMs, *in.EndMs
	}
	if in.Suggestions != nil {
		s.Suggestions = *in.Suggestions
	}
	return nil
}

// untimed is the segment as the job's track shows it.
func (s Segment) untimed() *Segment {
	s.StartMs, s.EndMs = 0, 0
	return &s
}
