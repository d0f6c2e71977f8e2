package httpapi

import (
	"context"
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

// assetTypes are the values of `type` / `audio_type` (§4.4, gaps.md waveforms).
var assetTypes = map[string]bool{catalog.KindTrack: true, catalog.KindSoundFX: true, catalog.KindStem: true}

// findAsset looks an asset up by type and id, applying plan visibility;
// errs.NotFound when missing or hidden.
func findAsset(c *catalog.Catalog, kind, id, plan string) (catalog.Asset, error) {
	as, ok := c.Asset(kind, id)
	if !ok || (as.Track != nil && !catalog.Visible(plan, as.Track)) {
		return catalog.Asset{}, errs.E("httpapi.findAsset", errs.NotFound, "Not found.")
	}
	return as, nil
}
