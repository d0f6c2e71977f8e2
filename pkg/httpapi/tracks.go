package httpapi

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
)

// streamURLTTL is how long a stream redirect stays valid: long enough to
// start playing and seek, short enough not to be worth sharing.
const streamURLTTL = 10 * time.Minute

func (a *API) mountTracks(rt *Router) {
	rt.Handle("GET /api/v4/{language}/tracks/{id}/", NoBody, a.trackDetail)
	rt.Handle("GET /api/v4/stream/{id}/", NoBody, a.stream)
	rt.Handle("GET /api/v4/music/waveforms/{audio_type}/{audio_id}/", NoBody, a.waveform)
}

type artistJSON struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

type albumJSON struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Slug          string            `json:"slug"`
	URL           string            `json:"url"`
	AllImageSizes map[string]string `json:"all_image_sizes"`
	Blurhash      string            `json:"blurhash"`
}

type rightsJSON struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
	PRO   string  `json:"pro"`
	IPI   string  `json:"ipi"`
}

// trackDetailJSON is the retrieve shape of interface.md §2.2.
type trackDetailJSON struct {
	ID                string       `json:"id"`
	Name              string       `json:"name"`
	Description       string       `json:"description"`
	Length            int          `json:"length"`
	Tempo             *float64     `json:"tempo"`
	Key               *string      `json:"key"`
	IsExplicit        bool         `json:"is_explicit"`
	IsFree            bool         `json:"is_free"`
	Vocals            string       `json:"vocals"`
	AudioURL          string       `json:"audio_url"`
	ShortID           string       `json:"short_id"`
	ShortURL          string       `json:"short_url"`
	GenreName         string       `json:"genre_name"`
	SubgenreName      string       `json:"subgenre_name"`
	MoodName          string       `json:"mood_name"`
	SecondaryMoodName string       `json:"secondary_mood_name"`
	Artist            artistJSON   `json:"artist"`
	Album             *albumJSON   `json:"album"`
	IsSFX             bool         `json:"is_sfx"`
	HasStems          bool         `json:"has_stems"`
	Cover             string       `json:"cover"`
	LibraryName       string       `json:"library_name"`
	Lyrics            string       `json:"lyrics"`
	JPTitle           string       `json:"jp_title"`
	Writers           []rightsJSON `json:"writers"`
	Publishers        []rightsJSON `json:"publishers"`
}

// StreamPath is the stream proxy path of a track (§2.1 audio_url).
func StreamPath(trackID string) string { return "/api/v4/stream/" + trackID + "/?type=track" }

// ShortURL is the public link of a track.
func (a *API) ShortURL(shortID string) string {
	return strings.TrimRight(a.SiteURL, "/") + "/t/" + shortID
}

func rightsOut(hs []catalog.RightsHolder) []rightsJSON {
	out := []rightsJSON{}
	for _, h := range catalog.CompleteRights(hs) {
		out = append(out, rightsJSON{Name: h.Name, Share: h.Share, PRO: h.PRO, IPI: h.IPI})
	}
	return out
}

func (a *API) trackDetail(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.trackDetail"
	p, err := a.Optional(r)
	if err != nil {
		return err
	}
	locale, ok := catalog.CanonicalLocale(r.PathValue("language"))
	if !ok {
		return errs.E(op, errs.NotFound, "Unknown language code \""+r.PathValue("language")+"\".")
	}
	c, err := a.currentCatalog(r.Context())
	if err != nil {
		return err
	}
	t, ok := c.Track(strings.ToLower(r.PathValue("id")))
	if !ok || !catalog.Visible(planOf(p), t) {
		return errs.E(op, errs.NotFound, "Track not found.")
	}
	tr := t.Localized(locale)
	out := trackDetailJSON{
		ID: t.ID, Name: t.DisplayName(), Description: tr.Description, Length: t.Length, Tempo: t.Tempo, Key: t.Key,
		IsExplicit: t.IsExplicit, IsFree: false, Vocals: t.Vocals, AudioURL: StreamPath(t.ID),
		ShortID: t.ShortID, ShortURL: a.ShortURL(t.ShortID),
		GenreName: tr.Genre, SubgenreName: tr.Subgenre, MoodName: tr.Mood, SecondaryMoodName: tr.SecondaryMood,
		Artist: artistJSON{t.Artist.Name, t.Artist.Slug}, HasStems: len(t.Stems) > 0, Cover: t.Cover,
		LibraryName: t.LibraryName, Lyrics: t.Lyrics, JPTitle: t.JPTitle(),
		Writers: rightsOut(t.Writers), Publishers: rightsOut(t.Publishers),
	}
	if t.Vocals == "instrumental" {
		out.Lyrics = ""
	}
	if al := t.Album; al != nil {
		out.Album = &albumJSON{ID: al.ID, Name: al.Name, Slug: al.Slug, URL: al.URL, Blurhash: al.Blurhash,
			AllImageSizes: map[string]string{"small": al.Images.Small, "medium": al.Images.Medium, "large": al.Images.Large}}
	}
	w.Header().Set("Content-Language", t.Language(locale))
	WriteJSON(w, http.StatusOK, out)
	return nil
}

// stream redirects to a short-lived signed URL of the asset's mp3 (§4.2).
func (a *API) stream(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.stream"
	p, err := a.Optional(r)
	if err != nil {
		return err
	}
	kind := r.URL.Query().Get("type")
	if err := Repeated(op, r.URL.Query(), "type"); err != nil {
		return err
	}
	if kind == "" {
		kind = "track"
	}
	if !assetTypes[kind] {
		return errs.Field(op, "type", "\""+kind+"\" is not a valid choice; use track, soundfx or stem.")
	}
	// Track previews are public, as search results are; stems are a
	// partner's material and sound effects need an account with them on.
	switch kind {
	case "stem":
		if p == nil {
			return errs.E(op, errs.Unauthenticated, msgMissingToken)
		}
	case "soundfx":
		if p, err = a.SFX(r); err != nil {
			return err
		}
	}
	c, err := a.currentCatalog(r.Context())
	if err != nil {
		return err
	}
	as, err := findAsset(c, kind, strings.ToLower(r.PathValue("id")), planOf(p))
	if err != nil {
		return err
	}
	if as.Audio.MP3Key == "" {
		return errs.E(op, errs.NotFound, "No audio is available for this asset.")
	}
	u, err := a.Blob.PresignGet(r.Context(), as.Audio.MP3Key, streamURLTTL, "")
	if err != nil {
		return errs.Wrap(op, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	// No body: http.Redirect would add an HTML one to a JSON API.
	w.Header().Set("Location", u)
	w.WriteHeader(http.StatusFound)
	return nil
}

// waveform serves the peaks computed at ingest (gaps.md "Waveforms").
func (a *API) waveform(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.waveform"
	kind := r.PathValue("audio_type")
	if !assetTypes[kind] {
		return errs.E(op, errs.Invalid, "Unknown audio type \""+kind+"\"; use track, soundfx or stem.")
	}
	c, err := a.currentCatalog(r.Context())
	if err != nil {
		return err
	}
	p, err := a.Optional(r)
	if err != nil {
		return err
	}
	as, err := findAsset(c, kind, strings.ToLower(r.PathValue("audio_id")), planOf(p))
	if err != nil {
		return err
	}
	pending := func() error {
		w.Header().Set("Retry-After", "5")
		WriteJSON(w, http.StatusAccepted, Detail{"The waveform is being generated. Please try again in a few moments."})
		return nil
	}
	if as.WaveformKey == "" {
		return pending()
	}
	rc, attrs, err := a.Blob.Get(r.Context(), as.WaveformKey)
	if errors.Is(err, blob.ErrNotFound) {
		return pending()
	}
	if err != nil {
		return errs.Wrap(op, err)
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/json")
	if as.Track != nil && !catalog.Visible("", as.Track) {
		// Only some keys may see it: a shared cache must not keep it.
		w.Header().Set("Cache-Control", "private, max-age=86400")
	} else {
		w.Header().Set("Cache-Control", "public, max-age=86400")
	}
	if attrs.ETag != "" && notModified(w, r, `"`+attrs.ETag+`"`) {
		return nil
	}
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, rc); err != nil {
		logger(r).Warn("waveform body cut short", "error", err) // headers are out: nothing else to tell the client
	}
	return nil
}
