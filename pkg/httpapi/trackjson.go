package httpapi

import (
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// Track list pagination (interface.md §8: 20 by default, at most 100),
// as the search endpoints page.
const (
	TrackListDefaultLimit = 20
	TrackListMaxLimit     = 100
)

// TrackJSON is the Track shape of interface.md §2.1.
type TrackJSON struct {
	ID                string           `json:"id"`
	Name              string           `json:"name"`
	Artist            ArtistJSON       `json:"artist"`
	Length            int              `json:"length"`
	Tempo             *float64         `json:"tempo"`
	IsExplicit        bool             `json:"is_explicit"`
	IsFree            bool             `json:"is_free"`
	AudioURL          string           `json:"audio_url"`
	GenreName         string           `json:"genre_name"`
	SubgenreName      string           `json:"subgenre_name"`
	MoodName          string           `json:"mood_name"`
	SecondaryMoodName string           `json:"secondary_mood_name"`
	Vocals            *string          `json:"vocals"`
	HasStems          bool             `json:"has_stems"`
	Cover             string           `json:"cover"`
	ReleaseDate       string           `json:"release_date"`
	ShortURL          string           `json:"short_url"`
	Restricted        bool             `json:"restricted"`
	Highlights        []catalog.Region `json:"highlights"`
}

// TrackJSON is a track in the Track shape of interface.md §2.1 (search
// results, playlist track lists), with its highlights (nil: none).
func (a *API) TrackJSON(t *catalog.Track, hl []catalog.Region) TrackJSON {
	if hl == nil {
		hl = []catalog.Region{}
	}
	return TrackJSON{
		ID: t.ID, Name: t.DisplayName(), Artist: ArtistJSON{Name: t.Artist.Name, Slug: t.Artist.Slug},
		Length: t.Length, Tempo: t.Tempo, IsExplicit: t.IsExplicit, IsFree: !t.IsRestricted(),
		AudioURL: StreamPath(t.ID), GenreName: t.Genre, SubgenreName: t.Subgenre,
		MoodName: t.Mood, SecondaryMoodName: t.SecondaryMood, Vocals: catalog.VocalsLabel(t.Vocals),
		HasStems: t.HasStems(), Cover: t.Cover, ReleaseDate: t.ReleaseDate, ShortURL: a.ShortURL(t.ShortID),
		Restricted: t.IsRestricted(), Highlights: hl,
	}
}

// LocalizedTrackJSON is TrackJSON with genre, subgenre and moods in
// locale (a catalog.CanonicalLocale), falling back as track detail does.
func (a *API) LocalizedTrackJSON(t *catalog.Track, locale string) TrackJSON {
	out := a.TrackJSON(t, nil)
	tr := t.Localized(locale)
	out.GenreName, out.SubgenreName, out.MoodName, out.SecondaryMoodName = tr.Genre, tr.Subgenre, tr.Mood, tr.SecondaryMood
	return out
}

// isFieldError reports whether err is a 400 naming fields.
func isFieldError(err error) bool {
	e, ok := err.(*errs.Error)
	return ok && len(e.Fields) > 0
}

// withoutFields is err with the fields the field errors of named dropped:
// a field whose value had the wrong type is named for that alone, not
// also as missing.
func withoutFields(err error, named ...error) error {
	e, ok := err.(*errs.Error)
	if !ok || len(e.Fields) == 0 {
		return err
	}
	fields := map[string][]string{}
	for k, v := range e.Fields {
		fields[k] = v
	}
	for _, n := range named {
		if ne, ok := n.(*errs.Error); ok {
			for k := range ne.Fields {
				delete(fields, k)
			}
		}
	}
	if len(fields) == 0 {
		return nil
	}
	out := *e
	out.Fields = fields
	return &out
}

// MergeFieldErrors joins 400 field errors so that one response names every
// bad parameter; any other error wins as it is.
func MergeFieldErrors(a, b error) error {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	ea, oka := a.(*errs.Error)
	eb, okb := b.(*errs.Error)
	if !oka || len(ea.Fields) == 0 { // authentication, throttling: those answer first
		return a
	}
	if !okb || len(eb.Fields) == 0 {
		return b
	}
	fields := map[string][]string{}
	for _, e := range []*errs.Error{ea, eb} {
		for k, v := range e.Fields {
			fields[k] = append(fields[k], v...)
		}
	}
	return &errs.Error{Op: ea.Op, Kind: errs.Invalid, Fields: fields}
}
