package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
)

// DownloadService is what the audio download endpoints need.
type DownloadService interface {
	Audio(ctx context.Context, p *identity.Principal, id string, req downloads.Request) (downloads.Link, error)
}

var _ DownloadService = (*downloads.Service)(nil)

func (a *API) mountDownloads(rt *Router) {
	rt.Handle("POST /api/v4/download/audio/{id}/", MaxJSONBody, a.downloadAudioPost)
	rt.Handle("GET /api/v4/download/audio/{id}/", NoBody, a.downloadAudioGet)
}

// downloadBody is the POST body of §4.4. Pointers tell an absent field
// from a zero one.
type downloadBody struct {
	Type               *string    `json:"type"`
	Format             *[]*string `json:"format"` // an item may be null: a type error
	IncludeStems       *bool      `json:"include_stems"`
	ConfirmPersonalUse *bool      `json:"confirm_personal_use"`
}

type downloadURL struct {
	URL string `json:"url"`
}

// writeZIPPending answers 202 {detail} while a ZIP builds (§3.2): the
// client repeats the same request.
func writeZIPPending(w http.ResponseWriter, link downloads.Link) {
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, http.StatusAccepted, Detail{link.Detail})
}

// downloadAudioPost answers 200 {url}, or 202 {detail} while a ZIP builds (§4.4).
func (a *API) downloadAudioPost(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Authenticated(r)
	if err != nil {
		return err
	}
	var b downloadBody
	// A field of the wrong JSON type is named with the request's other bad
	// fields, all at once (the decoder fills the rest of b).
	typeErr := DecodeJSON(r, &b)
	if typeErr != nil && !isFieldError(typeErr) {
		return typeErr
	}
	req := downloads.Request{FormatField: "format"}
	if b.Type != nil {
		req.Type = *b.Type
	}
	var nullFormat error
	if b.Format != nil {
		req.FormatsSent = true
		for _, f := range *b.Format {
			if f == nil {
				nullFormat = errs.Field("httpapi.downloadAudioPost", "format", "Invalid type: expected a string.")
				continue
			}
			req.Formats = append(req.Formats, *f)
		}
	}
	req.IncludeStems = b.IncludeStems != nil && *b.IncludeStems
	req.ConfirmPersonalUse = b.ConfirmPersonalUse != nil && *b.ConfirmPersonalUse
	if typeErr != nil || nullFormat != nil { // with the request's other bad fields, all at once
		req.FormatsSent = len(req.Formats) > 0
		return MergeFieldErrors(MergeFieldErrors(typeErr, nullFormat), withoutFields(req.Validate(), typeErr))
	}
	link, err := a.downloadService().Audio(r.Context(), p, strings.ToLower(r.PathValue("id")), req)
	if err != nil {
		return err
	}
	if link.Pending {
		writeZIPPending(w, link)
		return nil
	}
	w.Header().Set("Cache-Control", "no-store") // §4.4: do not cache
	WriteJSON(w, http.StatusOK, downloadURL{link.URL})
	return nil
}

// downloadAudioGet is the browser variant: 302 to the signed URL, or 202
// {detail} while a ZIP builds (§4.4).
// Its formats are `fmt` (repeatable); `format` is reserved (§9) and the
// router has answered any other value than json already.
func (a *API) downloadAudioGet(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.downloadAudioGet"
	p, err := a.Authenticated(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	// The GET route also answers HEAD, which downloads nothing: same
	// answer, not counted.
	req := downloads.Request{Type: q.Get("type"), FormatField: "fmt", Probe: r.Method == http.MethodHead}
	if fs, ok := q["fmt"]; ok {
		req.Formats, req.FormatsSent = fs, true
	}
	// Single-valued: the same value repeated is accepted, different
	// values are refused by Repeated (as `type`).
	perr := Repeated(op, q, "type", "include_stems", "confirm_personal_use")
	for field, dst := range map[string]*bool{"include_stems": &req.IncludeStems, "confirm_personal_use": &req.ConfirmPersonalUse} {
		if v, ok := q[field]; ok {
			b, err := strconv.ParseBool(v[0])
			if err != nil {
				perr = MergeFieldErrors(perr, errs.Field(op, field, "Must be true or false."))
			}
			*dst = b
		}
	}
	if perr != nil {
		return MergeFieldErrors(perr, req.Validate())
	}
	link, err := a.downloadService().Audio(r.Context(), p, strings.ToLower(r.PathValue("id")), req)
	if err != nil {
		return err
	}
	if link.Pending {
		writeZIPPending(w, link)
		return nil
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", link.URL) // no body: http.Redirect would add an HTML one
	w.WriteHeader(http.StatusFound)
	return nil
}

// downloadService is the configured service, or one that answers 500
// when the function has none (no object store configured).
func (a *API) downloadService() DownloadService {
	if a.Downloads == nil {
		return noDownloads{}
	}
	return a.Downloads
}

type noDownloads struct{}

func (noDownloads) Audio(context.Context, *identity.Principal, string, downloads.Request) (downloads.Link, error) {
	return downloads.Link{}, errs.E("httpapi.downloads", errs.Internal, "")
}
