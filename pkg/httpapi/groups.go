package httpapi

import (
	"context"
	"io"
	"net/http"
	"path"
	"strings"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/identity"
)

// The groups whose domain links an engine have their handlers in their own
// packages (searchapi: bleve and the audio analysis; recognitionapi and
// soundtrackapi: the audio engine), so that a function of another group
// does not link them. Each embeds *API and mounts through API.Mounts; what
// follows is what they share with this package.

// MountFunc registers a group's routes on rt.
type MountFunc func(rt *Router)

// CurrentCatalog is the catalog snapshot being served, or the spec's 500.
func (a *API) CurrentCatalog(ctx context.Context) (*catalog.Catalog, error) {
	return a.currentCatalog(ctx)
}

// PlanOf is the plan whose rules apply to a request ("" when anonymous).
func PlanOf(p *identity.Principal) string { return planOf(p) }

// MsgCatalogUnavailable is the detail of the search 500 (interface.md §7.2).
const MsgCatalogUnavailable = msgCatalogUnavailable

// HumanBytes writes a byte count for a client ("60 MB").
func HumanBytes(n int64) string { return humanBytes(n) }

// ArtistJSON is a track's artist in responses.
type ArtistJSON = artistJSON

// videoTypes pins the Content-Type of each allowed extension (§4.5, §8).
var videoTypes = map[string]string{
	".mp4":  "video/mp4",
	".mov":  "video/quicktime",
	".avi":  "video/x-msvideo",
	".mpeg": "video/mpeg",
}

// MsgVideoExtension is the field error of a video with another extension.
const MsgVideoExtension = "Unsupported file extension. Allowed: .mp4, .mov, .avi, .mpeg."

const msgVideoExtension = MsgVideoExtension

// VideoExt returns the lower-cased allowed extension of name, or "".
func VideoExt(name string) string { return videoExt(name) }

// VideoType is the Content-Type pinned for an allowed extension.
func VideoType(ext string) string { return videoTypes[ext] }

// videoExt returns the lower-cased allowed extension of name, or "".
func videoExt(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if _, ok := videoTypes[ext]; ok {
		return ext
	}
	return ""
}

// UploadPolicy is one presigned-upload flow (recognition, soundtrack).
type UploadPolicy = uploadPolicy

// NewUploadPolicy describes a presigned-upload flow: keys under prefix,
// files up to maxSize (sizeMsg is the field error beyond; extMsg the one
// for a name without an allowed extension), and the
// endpoint that takes the file in the body where there is no object storage.
func NewUploadPolicy(prefix string, maxSize int64, sizeMsg, extMsg, direct string) UploadPolicy {
	return uploadPolicy{prefix: prefix, maxSize: maxSize, sizeMsg: sizeMsg, extMsg: extMsg, direct: direct}
}

// Prefix is where every key of the flow starts.
func (p UploadPolicy) Prefix() string { return p.prefix }

// IssueUploadURL answers an upload-url call of the authenticated client.
func (a *API) IssueUploadURL(w http.ResponseWriter, r *http.Request, clientID string, pol UploadPolicy) error {
	return a.issueUploadURL(w, r, clientID, pol)
}

// CheckUploadedKey checks a storage_key of the flow: under its prefix,
// uploaded by this client, present, within the size limit.
func (a *API) CheckUploadedKey(ctx context.Context, key, clientID string, pol UploadPolicy) (blob.Attrs, error) {
	return a.checkUploadedKey(ctx, key, clientID, pol)
}

// UploadKey is where a client's upload goes (under prefix, then the client id).
func UploadKey(prefix, clientID, filename string) string {
	return uploadKey(prefix, clientID, filename)
}

// SelfLimitedBody is the router limit of an endpoint wrapped in
// UploadPolicy.Bounded, which bounds the body itself.
const SelfLimitedBody = selfLimitedBody

// MsgMalformedMultipart answers a multipart body that cannot be read to its end.
const MsgMalformedMultipart = msgMalformedMultipart

// IsMultipart reports whether r's body is multipart/form-data.
func IsMultipart(r *http.Request) bool { return isMultipart(r) }

// BodyEmpty reports whether r has no body or only white space.
func BodyEmpty(r *http.Request) (bool, error) { return bodyEmpty(r) }

// Bounded bounds the request body for an upload endpoint of p before h.
func (p UploadPolicy) Bounded(h HandlerFunc) HandlerFunc { return p.bounded(h) }

// BodyFault is the client's error for a multipart body that failed to read.
func (p UploadPolicy) BodyFault(op string, err error) error { return p.bodyFault(op, err) }

// PartReader reads a multipart part and remembers how much it read and
// whether reading the request body failed under it.
type PartReader = partReader

// NewPartReader reads r.
func NewPartReader(r io.Reader) *PartReader { return &partReader{r: r} }

// N is how many bytes were read.
func (p *partReader) N() int64 { return p.n }

// Err is the error of the request body under the part, if reading it failed.
func (p *partReader) Err() error { return p.err }

// PrincipalID is the id of the caller a request authenticated as ("" when
// anonymous or not yet authenticated).
func PrincipalID(r *http.Request) string { return principalID(r) }
