package httpapi

import (
	"net/http"

	"musiccatalog/pkg/catalog"
)

func (a *API) mountSearch(rt *Router) {
	rt.Handle("GET /api/v4/search/ai/filters/", NoBody, a.trackFilters)
	rt.Handle("GET /api/v4/search/soundfxs/filters/", NoBody, a.soundFXFilters)
}

// filterValues is one key of a filter listing: {values: [...]} (§2.9).
type filterValues struct {
	Values []map[string]any `json:"values"`
}

func counted(vcs []catalog.ValueCount, countKey string) filterValues {
	out := filterValues{Values: make([]map[string]any, 0, len(vcs))}
	for _, vc := range vcs {
		out.Values = append(out.Values, map[string]any{"value": vc.Value, countKey: vc.Count})
	}
	return out
}

func plain(vals []string) filterValues {
	out := filterValues{Values: make([]map[string]any, 0, len(vals))}
	for _, v := range vals {
		out.Values = append(out.Values, map[string]any{"value": v})
	}
	return out
}

func span(r [2]float64) filterValues {
	return filterValues{Values: []map[string]any{{"value": []float64{r[0], r[1]}}}}
}

// filterCacheControl: listings change only with a new catalog version,
// which the ETag names, so clients and CDNs may cache and revalidate.
const filterCacheControl = "public, max-age=300, stale-while-revalidate=3600"

func (a *API) trackFilters(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Optional(r)
	if err != nil {
		return err
	}
	if err := a.Throttle(r, p); err != nil {
		return err
	}
	c, err := a.currentCatalog(r.Context())
	if err != nil {
		return err
	}
	// Counts cover only the tracks the caller may see, so the answer
	// depends on the key: shared caches keep the common one, keyed by it.
	plan := planOf(p)
	w.Header().Set("Vary", "Authorization")
	etag := `"tracks-` + c.Version() + `"`
	if catalog.FiltersShared(plan) {
		w.Header().Set("Cache-Control", filterCacheControl)
	} else {
		w.Header().Set("Cache-Control", "private, max-age=300")
		etag = `"tracks-all-` + c.Version() + `"`
	}
	if notModified(w, r, etag) {
		return nil
	}
	f := c.TrackFilters(plan)
	WriteJSON(w, http.StatusOK, map[string]filterValues{
		"genres": counted(f.Genres, "tracks"), "subgenres": counted(f.Subgenres, "tracks"),
		"moods": counted(f.Moods, "tracks"), "tempo": plain(f.Tempo), "vocals": plain(f.Vocals),
		"bpm": span(f.BPM), "duration": span(f.Duration),
	})
	return nil
}

func (a *API) soundFXFilters(w http.ResponseWriter, r *http.Request) error {
	p, err := a.SFX(r)
	if err != nil {
		return err
	}
	if err := a.Throttle(r, p); err != nil {
		return err
	}
	c, err := a.currentCatalog(r.Context())
	if err != nil {
		return err
	}
	// Per-account (the key decides access), so only private caches.
	w.Header().Set("Cache-Control", "private, max-age=300")
	if notModified(w, r, `"sfx-`+c.Version()+`"`) {
		return nil
	}
	f := c.SoundFXFilters()
	WriteJSON(w, http.StatusOK, map[string]filterValues{
		"genres": counted(f.Genres, "soundfxs"), "secondary_genres": counted(f.SecondaryGenres, "soundfxs"),
		"duration": span(f.Duration),
	})
	return nil
}
