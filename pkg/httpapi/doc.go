// Package httpapi is the service's HTTP surface: one http.Handler tree per
// endpoint group, served unchanged by the Lambda adapter (api-proxy
// httpadapter.NewV2) and by the devserver.
//
// It owns everything HTTP: routing with the spec's trailing slashes, JSON
// bodies and the spec's error shapes, request ids and logs, body-size
// limits, limit/offset pagination with absolute next/previous links,
// authentication per area (interface.md §5, §7) and request rate limits.
// Domain packages never see an http.Request.
package httpapi
