package httpapi

import (
	"log/slog"
	"net/http"
	"slices"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/idempotency"
)

// Group names an endpoint group: one Lambda function each on AWS, all of
// them together in the devserver.
type Group string

const (
	GroupAllowlist   Group = "allowlist"
	GroupTracks      Group = "tracks"
	GroupSearch      Group = "search"
	GroupRecognition Group = "recognition"
	GroupSoundtrack  Group = "soundtrack"
	GroupLicenses    Group = "licenses"
	GroupPlaylists   Group = "playlists"
	GroupDownloads   Group = "downloads"
)

// AllGroups lists every group, in mounting order.
var AllGroups = []Group{GroupAllowlist, GroupTracks, GroupSearch, GroupRecognition, GroupSoundtrack,
	GroupLicenses, GroupPlaylists, GroupDownloads}

// API holds the domain services the handlers call. A Lambda function fills
// only what its group needs.
type API struct {
	Auth      Authenticator
	Limits    RateLimits
	Clock     clock.Clock
	Log       *slog.Logger
	Allowlist *allowlist.Service
	Catalog   catalog.Source // the catalog snapshot being served
	Blob      blob.Store     // media; signed URLs for streams and downloads
	// Mounts adds the routes of groups whose handlers live in their own
	// packages (searchapi, recognitionapi, soundtrackapi; see groups.go),
	// after the group's routes of this package, if any.
	Mounts map[Group]MountFunc
	// SiteURL is the public website that short links point to.
	SiteURL string
	// Licenses issues and reads licenses; LicensePageBase is where their
	// public pages live ("" = the API's public base, see publicBase).
	Licenses        LicenseService
	LicensePageBase string
	// Downloads answers audio download requests.
	Downloads DownloadService
	// Idempotency keeps the responses of requests sent with an
	// Idempotency-Key (routes wrapped in Idempotent).
	Idempotency *idempotency.Service
	// Playlists keeps end users' playlists (§4.7).
	Playlists PlaylistsService
	// PublicBaseURL is the address clients reach the API at; next and
	// previous links are built on it ("" on Lambda: API Gateway's domain
	// name of the request).
	PublicBaseURL string

	limiter *limiter
}

// mounts registers the routes of each group written in this package.
var mounts = map[Group]func(*API, *Router){
	GroupAllowlist: (*API).mountAllowlist,
	GroupTracks:    (*API).mountTracks,
	GroupSearch:    (*API).mountSearch,
	GroupLicenses:  (*API).mountLicenses,
	GroupDownloads: (*API).mountDownloads,
	GroupPlaylists: (*API).mountPlaylists,
}

// Handler returns the handler tree for the given groups; extra mounts
// (the devserver's signed-URL endpoint) are added by the caller through Router.
func (a *API) Handler(groups ...Group) *Router {
	if a.Clock == nil {
		a.Clock = clock.Real{}
	}
	if a.Log == nil {
		a.Log = slog.Default()
	}
	a.limiter = newLimiter(a.Clock)
	rt := NewRouter(a.Log)
	for _, g := range AllGroups {
		if !slices.Contains(groups, g) {
			continue
		}
		if m, ok := mounts[g]; ok {
			m(a, rt)
		}
		if m, ok := a.Mounts[g]; ok {
			m(rt)
		}
	}
	return rt
}

var _ http.Handler = (*Router)(nil)
