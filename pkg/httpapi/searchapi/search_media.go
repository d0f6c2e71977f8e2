package searchapi

import (
	"context"
	"errors"
	"musiccatalog/pkg/httpapi"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"musiccatalog/pkg/audio/features"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/search"
	"musiccatalog/pkg/soundtrack"
)

// The media searches (interface.md §4.2, gaps.md): by-url compares the
// sound of a linked song with the catalog; by-video ranks the tracks that
// fit a video (uploaded, by its hash, or linked) from the music in it and
// the pace of its picture. The media is analyzed by the soundtrack
// service, which caches each analysis per value, so the same value always
// gives the same ranking of the same catalog.

func (a *API) searchByVideo(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.searchByVideo"
	opts, value, err := a.parseWithRequired(r, SearchHighlights, "value")
	if err != nil {
		return err
	}
	svc, err := a.searchBackend()
	if err != nil {
		return err
	}
	st, err := a.mediaAnalyzer()
	if err != nil {
		return err
	}
	if err := a.throttleMediaSearch(r); err != nil {
		return err
	}
	an, err := st.AnalysisFor(r.Context(), value, httpapi.PrincipalID(r), false)
	if errors.Is(err, soundtrack.ErrBadLink) {
		return errs.Field(op, "value", "Enter the 32-character hash (source_value) of an uploaded video, or a link to a video on "+
			strings.Join(soundtrack.Platforms, ", ")+".")
	}
	if err != nil {
		return err
	}
	q, err := a.analysisQuery(r.Context(), an, opts.Plan)
	if err != nil {
		return err
	}
	res, err := svc.ByAudio(r.Context(), q, opts)
	if err != nil {
		return err
	}
	return a.WriteSearchResults(w, r, opts, res, false)
}

func (a *API) searchByURL(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.searchByURL"
	opts, link, err := a.parseWithRequired(r, SearchHighlights|SearchTimeWindow|SearchBPMRange|SearchAudioTuning, "link")
	if err != nil {
		return err
	}
	svc, err := a.searchBackend()
	if err != nil {
		return err
	}
	q, err := a.catalogLinkQuery(r.Context(), link, opts.Plan)
	if err != nil {
		return err
	}
	if q == nil {
		st, err := a.mediaAnalyzer()
		if err != nil {
			return err
		}
		if soundtrack.IsHash(link) {
			return errs.Field(op, "link", "Enter a link; to search with an uploaded video use by-video with its source_value.")
		}
		if err := a.throttleMediaSearch(r); err != nil {
			return err
		}
		an, err := st.AnalysisFor(r.Context(), link, "", true)
		if errors.Is(err, soundtrack.ErrBadLink) {
			return errs.Field(op, "link", "Enter a link to a song or video on "+strings.Join(soundtrack.Platforms, ", ")+
				", or to a track on this catalog's site.")
		}
		if err != nil {
			return err
		}
		aq, err := a.analysisQuery(r.Context(), an, opts.Plan)
		if err != nil {
			return err
		}
		q = &aq
	}
	res, err := svc.ByAudio(r.Context(), *q, opts)
	if err != nil {
		return err
	}
	return a.WriteSearchResults(w, r, opts, res, false)
}

// throttleMediaSearch applies the analysis rate to a search that may
// analyze media; ParseSearchRequest already authenticated the caller.
func (a *API) throttleMediaSearch(r *http.Request) error {
	p, err := a.Optional(r)
	if err != nil {
		return err
	}
	return a.ThrottleAnalysis(r, p)
}

// trackPathRE finds a track's UUID in a track-detail path (/api/v4/en/tracks/<id>/).
var trackPathRE = regexp.MustCompile(`/tracks/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/?$`)

// catalogLinkQuery recognizes a link to a track of our own catalog: its
// short URL (SiteURL + "/t/" + short id, as ShortURL builds it) or its
// detail path. Such a track needs no fetching: its own analysis is the
// query, so it ranks first (it is its own nearest neighbour) and the
// tracks like it follow. nil when the link is not on our site.
func (a *API) catalogLinkQuery(ctx context.Context, link, plan string) (*search.AudioQuery, error) {
	const op = "httpapi.catalogLinkQuery"
	u, err := url.Parse(link)
	site, serr := url.Parse(a.SiteURL)
	if err != nil || serr != nil || a.SiteURL == "" || !strings.EqualFold(u.Hostname(), site.Hostname()) {
		return nil, nil
	}
	c, err := a.CurrentCatalog(ctx)
	if err != nil {
		return nil, err
	}
	var t *catalog.Track
	sitePath := strings.TrimRight(site.Path, "/")
	if short, ok := strings.CutPrefix(u.Path, sitePath+"/t/"); ok {
		short = strings.TrimRight(short, "/")
		for _, ct := range c.Tracks() {
			if ct.ShortID == short {
				t = ct
				break
			}
		}
	} else if m := trackPathRE.FindStringSubmatch(u.Path); m != nil {
		if id, ok := ids.CanonicalUUID(m[1]); ok {
			t, _ = c.Track(id)
		}
	}
	if t == nil || !catalog.Visible(plan, t) {
		return nil, errs.Field(op, "link", "This link names no track of the catalog.")
	}
	q := trackQuery(t)
	return &q, nil
}

// trackQuery asks for tracks that sound like catalog track t: its own
// analysis is the reference, so t itself ranks first (unless filters or
// suppress_vocals leave it out) and the tracks like it follow.
func trackQuery(t *catalog.Track) search.AudioQuery {
	f := &features.Features{Vector: t.Vector}
	if t.Tempo != nil {
		f.Tempo = *t.Tempo
	}
	return search.AudioQuery{Features: f, EnergyHint: -1}
}

// analysisQuery turns a media analysis into the ranking query. Music that
// the fingerprints name as a catalog track is that track (the features of
// a short excerpt with speech over it describe it less surely); other
// music is compared by its features; a video without music by the pace
// of its picture.
func (a *API) analysisQuery(ctx context.Context, an soundtrack.Analysis, plan string) (search.AudioQuery, error) {
	if an.CatalogTrackID != "" {
		c, err := a.CurrentCatalog(ctx)
		if err != nil {
			return search.AudioQuery{}, err
		}
		if t, ok := c.Track(an.CatalogTrackID); ok && catalog.Visible(plan, t) {
			return trackQuery(t), nil
		}
	}
	tempo, energy := an.Hints()
	return search.AudioQuery{Features: an.Music, TempoHint: tempo, EnergyHint: energy}, nil
}
