package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
)

// msgCatalogUnavailable is the 500 of interface.md §7.2 (search and filter
// listings) when no catalog snapshot can be served.
const msgCatalogUnavailable = "The music search service is temporarily unavailable. Please retry with backoff."

// currentCatalog returns the catalog snapshot being served, or the spec's
// 500 when there is none (never published, or storage down at cold start).
func (a *API) currentCatalog(ctx context.Context) (*catalog.Catalog, error) {
	if a.Catalog == nil {
		return nil, &errs.Error{Op: "httpapi.catalog", Kind: errs.Unavailable, Status: http.StatusInternalServerError, Detail: msgCatalogUnavailable}
	}
	c, err := a.Catalog.Current(ctx)
	if err != nil {
		return nil, &errs.Error{Op: "httpapi.catalog", Kind: errs.Unavailable, Status: http.StatusInternalServerError,
			Detail: msgCatalogUnavailable, Err: err}
	}
	return c, nil
}

// planOf is the plan whose rules apply to a request ("" when anonymous).
func planOf(p *identity.Principal) string {
	if p == nil {
		return ""
	}
	return string(p.Client.Plan)
}

// notModified answers 304 when the client already holds this version.
func notModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	w.Header().Set("ETag", etag)
	if etagMatches(r.Header.Values("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

// etagMatches is If-None-Match's weak comparison (RFC 9110 §13.1.2): "*",
// or any listed tag equal to etag once a W/ prefix is dropped – what
// browsers and CDNs send back after they weakened a tag (compression).
func etagMatches(headers []string, etag string) bool {
	for _, h := range headers {
		for _, tag := range strings.Split(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// asset is one playable item of the catalog: a track, a sound effect or a stem.
type asset struct {
	track       *catalog.Track // the track, or the stem's parent
	audio       catalog.AudioRef
	waveformKey string
	name        string
}

// assetTypes are the values of `type` / `audio_type` (§4.4, gaps.md waveforms).
var assetTypes = map[string]bool{"track": true, "soundfx": true, "stem": true}

// findAsset looks an asset up by type and id, applying plan visibility;
// errs.NotFound when missing or hidden.
func findAsset(c *catalog.Catalog, kind, id, plan string) (asset, error) {
	const op = "httpapi.findAsset"
	notFound := errs.E(op, errs.NotFound, "Not found.")
	switch kind {
	case "track":
		t, ok := c.Track(id)
		if !ok || !catalog.Visible(plan, t) {
			return asset{}, notFound
		}
		return asset{track: t, audio: t.Audio, waveformKey: t.WaveformKey, name: t.DisplayName()}, nil
	case "soundfx":
		s, ok := c.SoundFX(id)
		if !ok {
			return asset{}, notFound
		}
		return asset{audio: s.Audio, waveformKey: s.WaveformKey, name: s.Name}, nil
	case "stem":
		s, t, ok := c.Stem(id)
		if !ok || !catalog.Visible(plan, t) {
			return asset{}, notFound
		}
		return asset{track: t, audio: s.Audio, waveformKey: s.WaveformKey, name: t.DisplayName() + " - " + s.Name}, nil
	}
	return asset{}, errors.New("unknown asset type " + kind)
}
