package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/recognition"
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
)

// AllGroups lists every group, in mounting order.
var AllGroups = []Group{GroupAllowlist, GroupTracks, GroupSearch, GroupRecognition, GroupSoundtrack,
	GroupLicenses, GroupPlaylists}

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
	// Recognition submits and reads recognition jobs.
	Recognition RecognitionService
	// Search ranks tracks (by-text, by-prompt, by-id, by-url, by-video).
	Search SearchService
	// Soundtrack stores and analyzes soundtrack videos (and the media of
	// by-url and by-video searches).
	Soundtrack SoundtrackService
	// SoundtrackDirectUploadMax caps the multipart body of the soundtrack
	// create call (0 = the 60 MB file limit); on Lambda it is what fits
	// in an invocation, and larger files take the upload-url flow.
	SoundtrackDirectUploadMax int64
	// SiteURL is the public website that short links point to.
	SiteURL string
	// Licenses issues and reads licenses; LicensePageBase is where their
	// public pages live ("" = the API's public base, see publicBase).
	Licenses        LicenseService
	LicensePageBase string
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

// RecognitionService is what the recognition endpoints need.
type RecognitionService interface {
	Submit(ctx context.Context, p *identity.Principal, src recognition.SourceRef) (recognition.Job, error)
	Get(ctx context.Context, clientID, jobID string) (recognition.Job, error)
}

// mounts registers each group's routes.
var mounts = map[Group]func(*API, *Router){
	GroupAllowlist:   (*API).mountAllowlist,
	GroupTracks:      (*API).mountTracks,
	GroupSearch:      (*API).mountSearch,
	GroupRecognition: (*API).mountRecognition,
	GroupSoundtrack:  (*API).mountSoundtrack,
	GroupLicenses:    (*API).mountLicenses,
	GroupPlaylists:   (*API).mountPlaylists,
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
		if slices.Contains(groups, g) {
			mounts[g](a, rt)
		}
	}
	return rt
}

var _ http.Handler = (*Router)(nil)
