package httpapi

import (
	"log/slog"
	"net/http"
	"slices"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/clock"
)

// Group names an endpoint group: one Lambda function each on AWS, all of
// them together in the devserver.
type Group string

const (
	GroupAllowlist Group = "allowlist"
)

// AllGroups lists every group, in mounting order.
var AllGroups = []Group{GroupAllowlist}

// API holds the domain services the handlers call. A Lambda function fills
// only what its group needs.
type API struct {
	Auth      Authenticator
	Limits    RateLimits
	Clock     clock.Clock
	Log       *slog.Logger
	Allowlist *allowlist.Service

	limiter *limiter
}

// mounts registers each group's routes.
var mounts = map[Group]func(*API, *Router){
	GroupAllowlist: (*API).mountAllowlist,
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
