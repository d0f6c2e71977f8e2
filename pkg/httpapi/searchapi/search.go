package searchapi

// Search endpoints (interface.md §4.2). The media searches (by-url,
// by-video) are written elsewhere on the same two helpers every search
// handler here uses:
//
//	opts, err := a.ParseSearchRequest(r, SearchHighlights|SearchTimeWindow|SearchBPMRange|SearchAudioTuning)
//	if err != nil {
//		return err // 400 field errors, 401/403 for a bad token, 429 with Retry-After
//	}
//	res, err := a.Search.ByAudio(r.Context(), q, opts) // search.Service
//	if err != nil {
//		return err // errs kinds; an unavailable backend is the spec's 500 {detail}
//	}
//	return a.WriteSearchResults(w, r, opts, res, false)
//
// ParseSearchRequest authenticates optionally (search is public), applies
// the anonymous or authenticated rate limit, and reads limit/offset, every
// common filter and the tuning parameters the endpoint accepts, reporting
// all invalid values at once as {param: [message]}. WriteSearchResults
// writes {next, previous, results} with Track items of §2.1, plus
// did_you_mean and playlist_search when textExtras is set (by-text,
// by-prompt).

import (
	"context"
	"math"
	"musiccatalog/pkg/httpapi"
	"net/http"
	"strconv"
	"strings"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/search"
	"musiccatalog/pkg/soundtrack"
)

// Service is what the search endpoints need; *search.Service
// implements it.
type Service interface {
	ByText(ctx context.Context, text string, opts search.Options) (search.Result, error)
	ByID(ctx context.Context, id string, system bool, opts search.Options) (search.Result, error)
	ByAudio(ctx context.Context, q search.AudioQuery, opts search.Options) (search.Result, error)
	CheckFilterValues(ctx context.Context, f search.Filters, suggest bool) error
}

// SearchParams says which optional tuning parameters an endpoint accepts
// besides pagination and filters; the others are ignored, as unknown
// parameters are.
type SearchParams uint8

const (
	SearchHighlights  SearchParams = 1 << iota // highlights
	SearchTimeWindow                           // time_offset, time_limit (1–60)
	SearchBPMRange                             // bpm_range (0–100, default 5; 0 = exact tempo, ±search.ExactBPMRange)
	SearchAudioTuning                          // prioritise_bpm, suppress_vocals
	// SearchDidYouMean: the response has did_you_mean, so a near miss of
	// a catalog value (genre "Rok") is no error (by-text, by-prompt).
	SearchDidYouMean
)

// MediaAnalyzer analyzes the media of by-url and by-video;
// *soundtrack.Service implements it.
type MediaAnalyzer interface {
	AnalysisFor(ctx context.Context, value, viewer string, audioOnly bool) (soundtrack.Analysis, error)
}

// API serves the ranking endpoints of the search group; the filter
// listings, which need the catalog alone, are package httpapi's.
type API struct {
	*httpapi.API
	// Search ranks tracks (by-text, by-prompt, by-id, by-url, by-video).
	Search Service
	// Media analyzes the media of by-url and by-video (nil: 501).
	Media MediaAnalyzer
}

// Mount registers the ranking routes.
func (a *API) Mount(rt *httpapi.Router) {
	rt.Handle("GET /api/v4/search/ai/by-text/", httpapi.NoBody, a.searchByText)
	rt.Handle("GET /api/v4/search/ai/by-prompt/", httpapi.NoBody, a.searchByPrompt)
	rt.Handle("GET /api/v4/search/ai/by-id/", httpapi.NoBody, a.searchByID)
	rt.Handle("GET /api/v4/search/ai/by-url/", httpapi.NoBody, a.searchByURL)
	rt.Handle("GET /api/v4/search/ai/by-video/", httpapi.NoBody, a.searchByVideo)
}

// mediaAnalyzer is the configured analyzer, or a 501 where this function
// was wired without object storage.
func (a *API) mediaAnalyzer() (MediaAnalyzer, error) {
	if a.Media == nil {
		return nil, errs.E("httpapi.search", errs.NotImplemented, "Soundtrack videos are not available in this environment (no object storage configured).")
	}
	return a.Media, nil
}

// ParseSearchRequest is the common front half of every search endpoint:
// optional authentication, the rate limit, and the shared parameters.
func (a *API) ParseSearchRequest(r *http.Request, accepts SearchParams) (search.Options, error) {
	const op = "httpapi.ParseSearchRequest"
	p, err := a.Optional(r)
	if err != nil {
		return search.Options{}, err
	}
	if err := a.Throttle(r, p); err != nil {
		return search.Options{}, err
	}
	q := r.URL.Query()
	bad := map[string][]string{}
	addErr := func(err error) {
		if e, ok := err.(*errs.Error); ok && len(e.Fields) > 0 {
			for k, v := range e.Fields {
				bad[k] = append(bad[k], v...)
			}
			return
		}
		if err != nil {
			bad["non_field_errors"] = append(bad["non_field_errors"], err.Error())
		}
	}
	opts := search.Options{Plan: httpapi.PlanOf(p), BPMRange: search.DefaultBPMRange}
	if p != nil && p.User != nil {
		opts.UserID = p.User.ID
	}
	page, err := httpapi.ParsePage(r, search.DefaultLimit, search.MaxLimit)
	addErr(err)
	addErr(httpapi.Repeated(op, q, singleValued...))
	opts.Limit, opts.Offset = page.Limit, page.Offset
	opts.Filters, err = search.ParseFilters(q)
	addErr(err)
	boolean := func(name string, dst *bool) {
		if s := strings.TrimSpace(q.Get(name)); s != "" {
			b, err := strconv.ParseBool(strings.ToLower(s))
			if err != nil {
				bad[name] = append(bad[name], "Must be a valid boolean (true or false).")
				return
			}
			*dst = b
		}
	}
	number := func(name string, lo, hi float64, msg string, dst *float64) {
		if s := strings.TrimSpace(q.Get(name)); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || v < lo || v > hi {
				bad[name] = append(bad[name], msg)
				return
			}
			*dst = v
		}
	}
	if accepts&SearchHighlights != 0 {
		boolean("highlights", &opts.Highlights)
	}
	if accepts&SearchTimeWindow != 0 {
		number("time_offset", 0, 24*3600, "Ensure this value is a number of seconds greater than or equal to 0.", &opts.TimeOffset)
		number("time_limit", search.MinTimeLimit, search.MaxTimeLimit, "Ensure this value is between 1 and 60 seconds.", &opts.TimeLimit)
	}
	if accepts&SearchBPMRange != 0 {
		number("bpm_range", 0, search.MaxBPMRange, "Ensure this value is a number between 0 and 100.", &opts.BPMRange)
		if opts.BPMRange == 0 {
			// An explicit 0 asks for the exact tempo; in Options 0 means
			// "default", which would silently widen it to 5.
			opts.BPMRange = search.ExactBPMRange
		}
	}
	if accepts&SearchAudioTuning != 0 {
		boolean("prioritise_bpm", &opts.PrioritiseBPM)
		boolean("suppress_vocals", &opts.SuppressVocals)
	}
	if len(bad) > 0 {
		// The catalog's values are checked by the search itself; with other
		// parameters bad, they are named in the same 400.
		if a.Search != nil {
			addErr(a.Search.CheckFilterValues(r.Context(), opts.Filters, accepts&SearchDidYouMean != 0))
		}
		return search.Options{}, &errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}
	}
	return opts, nil
}

// singleValued are the search parameters that take one value (the
// classification filters and `__terms` take several).
var singleValued = []string{"text", "value", "link", "track_id", "input_id_type", "highlights", "time_offset", "time_limit",
	"bpm_range", "prioritise_bpm", "suppress_vocals", "bpm__range", "duration__range", "title", "artist", "album",
	"title__contains", "artist__contains", "album__contains", "restricted"}

// requiredParam reads a required query parameter, or the 400 field error
// that names it.
func requiredParam(r *http.Request, name string) (string, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return "", errs.Field("httpapi.search", name, "This field is required.")
	}
	return v, nil
}

// parseWithRequired is ParseSearchRequest and the required parameter name,
// the field errors of both reported together.
func (a *API) parseWithRequired(r *http.Request, accepts SearchParams, name string) (search.Options, string, error) {
	opts, err := a.ParseSearchRequest(r, accepts)
	v, verr := requiredParam(r, name)
	return opts, v, httpapi.MergeFieldErrors(err, verr)
}

// searchTrack is a hit in the Track shape of interface.md §2.1.
func (a *API) searchTrack(h search.Hit) httpapi.TrackJSON { return a.TrackJSON(h.Track, h.Highlights) }

// searchPage is the response of every search endpoint.
type searchPage struct {
	Next     *string             `json:"next"`
	Previous *string             `json:"previous"`
	Results  []httpapi.TrackJSON `json:"results"`
}

// textSearchPage adds what by-text and by-prompt also answer.
type textSearchPage struct {
	searchPage
	DidYouMean     map[string]string `json:"did_you_mean"` // null when no filter value looks like a typo
	PlaylistSearch struct {
		IDs []string `json:"ids"`
	} `json:"playlist_search"`
}

// WriteSearchResults writes one page of results (see the top of this
// file); textExtras adds did_you_mean and playlist_search.
func (a *API) WriteSearchResults(w http.ResponseWriter, r *http.Request, opts search.Options, res search.Result, textExtras bool) error {
	page := searchPage{Results: make([]httpapi.TrackJSON, 0, len(res.Hits))}
	for _, h := range res.Hits {
		page.Results = append(page.Results, a.searchTrack(h))
	}
	page.Next, page.Previous = a.PageLinks(r, httpapi.PageParams{Limit: opts.Limit, Offset: opts.Offset},
		opts.Offset+len(res.Hits) < res.Total && len(res.Hits) > 0)
	// Rankings follow the catalog version and the caller's plan: private
	// caching only, and briefly.
	w.Header().Set("Cache-Control", "private, max-age=60")
	if !textExtras {
		httpapi.WriteJSON(w, http.StatusOK, page)
		return nil
	}
	out := textSearchPage{searchPage: page, DidYouMean: res.DidYouMean}
	out.PlaylistSearch.IDs = res.PlaylistIDs
	if out.PlaylistSearch.IDs == nil {
		out.PlaylistSearch.IDs = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// searchBackend is the ranking service, or the spec's 500 when this
// function was wired without one.
func (a *API) searchBackend() (Service, error) {
	if a.Search == nil {
		return nil, &errs.Error{Op: "httpapi.search", Kind: errs.Unavailable, Status: http.StatusInternalServerError, Detail: httpapi.MsgCatalogUnavailable}
	}
	return a.Search, nil
}

func (a *API) searchByText(w http.ResponseWriter, r *http.Request) error {
	return a.textSearch(w, r, SearchDidYouMean)
}

func (a *API) searchByPrompt(w http.ResponseWriter, r *http.Request) error {
	return a.textSearch(w, r, SearchHighlights|SearchTimeWindow|SearchBPMRange|SearchDidYouMean)
}

func (a *API) textSearch(w http.ResponseWriter, r *http.Request, accepts SearchParams) error {
	opts, text, err := a.parseWithRequired(r, accepts, "text")
	if err != nil {
		return err
	}
	svc, err := a.searchBackend()
	if err != nil {
		return err
	}
	res, err := svc.ByText(r.Context(), text, opts)
	if err != nil {
		return err
	}
	return a.WriteSearchResults(w, r, opts, res, true)
}

func (a *API) searchByID(w http.ResponseWriter, r *http.Request) error {
	opts, err := a.ParseSearchRequest(r, SearchHighlights|SearchTimeWindow|SearchBPMRange|SearchAudioTuning)
	id, ierr := requiredParam(r, "track_id")
	var system bool
	switch t := strings.ToLower(r.URL.Query().Get("input_id_type")); t {
	case "", "client":
	case "system":
		system = true
	default:
		ierr = httpapi.MergeFieldErrors(ierr, errs.Field("httpapi.searchByID", "input_id_type", "\""+t+"\" is not a valid choice; use client or system."))
	}
	if ierr == nil && !system && !search.IsTrackUUID(id) {
		// Our ids are UUIDs: anything else cannot name a track, and a 404
		// would read as "that track is gone" rather than "fix the id".
		ierr = errs.Field("httpapi.searchByID", "track_id", search.MsgNotTrackUUID)
	}
	if err = httpapi.MergeFieldErrors(err, ierr); err != nil {
		return err
	}
	svc, err := a.searchBackend()
	if err != nil {
		return err
	}
	res, err := svc.ByID(r.Context(), id, system, opts)
	if err != nil {
		return err
	}
	return a.WriteSearchResults(w, r, opts, res, false)
}
