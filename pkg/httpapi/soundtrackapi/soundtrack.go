package soundtrackapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"musiccatalog/pkg/httpapi"
	"net/http"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/soundtrack"
)

// Service is what the soundtrack endpoints need; *soundtrack.Service
// implements it.
type Service interface {
	Spool(r io.Reader, name, contentType string) (*soundtrack.Upload, error)
	Create(ctx context.Context, p *identity.Principal, in soundtrack.CreateInput) (soundtrack.Video, error)
	Get(ctx context.Context, id string) (soundtrack.Video, error)
	FileURL(ctx context.Context, v soundtrack.Video, ttl time.Duration) (string, error)
	AnalysisFor(ctx context.Context, value, viewer string, audioOnly bool) (soundtrack.Analysis, error)
}

const (
	soundtrackPath = "/api/v4/soundtrack/video/"
	// soundtrackFileURLTTL: the `file` URL of a SoundtrackVideo is signed
	// for a few minutes (§8, signed URLs); read the video again for a new one.
	soundtrackFileURLTTL = 15 * time.Minute
)

// soundtrackUploads is the presigned-upload flow of the soundtrack upload.
var soundtrackUploads = httpapi.NewUploadPolicy(soundtrack.UploadsPrefix, soundtrack.MaxFileSize,
	soundtrack.MsgFileSize, soundtrack.MsgExtension, soundtrackPath)

// API serves the soundtrack video endpoints (interface.md §4.1).
type API struct {
	*httpapi.API
	Soundtrack Service
	// Render renders videos with a track (nil: the render calls answer 501).
	Render RenderService
	// SoundtrackDirectUploadMax caps the multipart body of the create
	// call (0 = the 60 MB file limit); on Lambda it is what fits in an
	// invocation, and larger files take the upload-url flow.
	SoundtrackDirectUploadMax int64
}

// Mount registers the group's routes.
func (a *API) Mount(rt *httpapi.Router) {
	rt.Handle("POST "+soundtrackPath+"upload-url/", httpapi.MaxJSONBody, a.soundtrackUploadURL)
	rt.Handle("POST "+soundtrackPath, httpapi.SelfLimitedBody,
		httpapi.AuthFirst(a.uploader, soundtrackUploads.Bounded(a.Idempotent(a.soundtrackCreate))))
	rt.Handle("GET "+soundtrackPath+"{id}/", httpapi.NoBody, a.soundtrackRetrieve)
	rt.Handle("POST "+soundtrackPath+"{id}/download/", httpapi.MaxJSONBody, a.soundtrackRender)
	rt.Handle("GET "+soundtrackPath+"{id}/download/{key}/", httpapi.NoBody, a.soundtrackRenderLink)
}

// soundtrackVideoJSON is the SoundtrackVideo of interface.md §2.3 plus
// is_public and the times (the spec leaves the rest of the fields open).
type soundtrackVideoJSON struct {
	ID          string  `json:"id"`
	SourceType  string  `json:"source_type"`
	SourceValue string  `json:"source_value"`
	SourceTitle string  `json:"source_title"`
	File        *string `json:"file"`
	IsPublic    bool    `json:"is_public"`
	CreatedAt   string  `json:"created_at"`
	ExpiresAt   string  `json:"expires_at"`
}

func (a *API) soundtrackJSON(ctx context.Context, v soundtrack.Video) (soundtrackVideoJSON, error) {
	out := soundtrackVideoJSON{ID: v.ID, SourceType: v.SourceType, SourceValue: v.SourceValue, SourceTitle: v.SourceTitle,
		IsPublic: v.Public, CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), ExpiresAt: v.ExpiresAt.UTC().Format(time.RFC3339)}
	if v.FileKey != "" {
		u, err := a.Soundtrack.FileURL(ctx, v, soundtrackFileURLTTL)
		if err != nil {
			return out, errs.Wrap("httpapi.soundtrackJSON", err)
		}
		out.File = &u
	}
	return out, nil
}

// soundtrackService is the configured service, or a 501 where this
// function was wired without object storage.
func (a *API) soundtrackService() (Service, error) {
	if a.Soundtrack == nil {
		return nil, errs.E("httpapi.soundtrack", errs.NotImplemented, "Soundtrack videos are not available in this environment (no object storage configured).")
	}
	return a.Soundtrack, nil
}

func (a *API) soundtrackUploadURL(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Authenticated(r)
	if err != nil {
		return err
	}
	return a.IssueUploadURL(w, r, p.Client.ID, soundtrackUploads)
}

// directUploadMax is the largest body the create call takes in this
// environment: the whole 60 MB locally; on Lambda, what fits in an
// invocation (SOUNDTRACK_DIRECT_UPLOAD_MAX).
func (a *API) directUploadMax() int64 {
	if a.SoundtrackDirectUploadMax > 0 {
		return a.SoundtrackDirectUploadMax
	}
	return soundtrack.MaxFileSize + httpapi.MultipartSlack
}

// createForm is what a create call sent, in either encoding.
type createForm struct {
	in        soundtrack.CreateInput
	hasFile   bool
	storage   *string
	publicErr bool
}

// uploader is the authentication rule of create (any valid token),
// checked before the body's size.
func (a *API) uploader(r *http.Request) error {
	_, err := a.Authenticated(r)
	return err
}

func (a *API) soundtrackCreate(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.soundtrackCreate"
	p, err := a.Authenticated(r)
	if err != nil {
		return err
	}
	if err := a.ThrottleAnalysis(r, p); err != nil {
		return err
	}
	svc, err := a.soundtrackService()
	if err != nil {
		return err
	}
	var form createForm
	if httpapi.IsMultipart(r) {
		if max := a.directUploadMax(); r.ContentLength > max {
			return errs.E(op, errs.TooLarge, "The request is larger than this endpoint accepts directly ("+httpapi.HumanBytes(max)+
				"). Upload the file with POST "+soundtrackPath+"upload-url/, PUT it to the returned upload_url, then create the video with {\"storage_key\": ...}.")
		}
		err = a.readCreateMultipart(r, svc, &form)
	} else {
		err = readCreateJSON(r, &form)
	}
	defer form.in.File.Close()
	if err != nil {
		return err
	}
	if form.publicErr {
		return errs.Field(op, "is_public", "Must be a valid boolean (true or false).")
	}
	// The key is checked only when it is the one source sent: with a URL
	// too, the answer is "choose one", whatever the key.
	if form.storage != nil && form.in.URL == nil && form.in.File == nil {
		if _, err := a.CheckUploadedKey(r.Context(), *form.storage, p.Client.ID, soundtrackUploads); err != nil {
			return err
		}
	}
	form.in.StorageKey = form.storage
	form.in.RequestID = idempotency.RequestIDFrom(r.Context())
	v, err := svc.Create(r.Context(), p, form.in)
	if err != nil {
		return err
	}
	out, err := a.soundtrackJSON(r.Context(), v)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", soundtrackPath+v.ID+"/") // the retrieve path (201: the video's address)
	httpapi.WriteJSON(w, http.StatusCreated, out)
	return nil
}

// readCreateMultipart spools the `file` part and reads the text fields.
func (a *API) readCreateMultipart(r *http.Request, svc Service, form *createForm) error {
	const op = "httpapi.readCreateMultipart"
	mr, err := r.MultipartReader()
	if err != nil {
		return errs.E(op, errs.Invalid, httpapi.MsgMalformedMultipart)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return soundtrackUploads.BodyFault(op, err)
		}
		switch part.FormName() {
		case "file":
			if form.in.File != nil {
				return errs.Field(op, "file", "Send one file.")
			}
			name := blob.BaseName(part.FileName())
			ext := httpapi.VideoExt(name)
			if ext == "" {
				return errs.Field(op, "file", soundtrack.MsgExtension)
			}
			body := httpapi.NewPartReader(part)
			u, err := svc.Spool(body, name, httpapi.VideoType(ext))
			if body.Err() != nil { // the client's body, not the spool
				u.Close()
				return soundtrackUploads.BodyFault(op, body.Err())
			}
			if err != nil {
				return err
			}
			form.in.File = u
		case "url", "storage_key", "is_public":
			b, err := io.ReadAll(io.LimitReader(part, 8<<10))
			if err != nil {
				return soundtrackUploads.BodyFault(op, err)
			}
			form.setText(part.FormName(), string(b))
		}
		if _, err := io.Copy(io.Discard, part); err != nil { // the rest of a part we do not read
			return soundtrackUploads.BodyFault(op, err)
		}
	}
}

func (f *createForm) setText(name, v string) {
	v = strings.TrimSpace(v)
	switch name {
	case "url":
		if v != "" {
			f.in.URL = &v
		}
	case "storage_key":
		if v != "" {
			f.storage = &v
		}
	case "is_public":
		b, err := strconv.ParseBool(strings.ToLower(v))
		f.in.Public, f.publicErr = b, err != nil
	}
}

// readCreateJSON reads {url | storage_key, is_public}; a `file` in JSON
// counts as sent (so "choose one" still applies) but must come as multipart.
func readCreateJSON(r *http.Request, form *createForm) error {
	const op = "httpapi.readCreateJSON"
	var in struct {
		URL        *string         `json:"url"`
		StorageKey *string         `json:"storage_key"`
		File       json.RawMessage `json:"file"`
		IsPublic   *bool           `json:"is_public"`
	}
	if empty, err := httpapi.BodyEmpty(r); empty || err != nil {
		return err // no body: nothing sent, which Create answers with gaps.md's text
	}
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	if in.URL != nil {
		form.setText("url", *in.URL)
	}
	if in.StorageKey != nil {
		form.setText("storage_key", *in.StorageKey)
	}
	if in.IsPublic != nil {
		form.in.Public = *in.IsPublic
	}
	if in.File != nil && string(in.File) != "null" {
		switch {
		case form.in.URL != nil:
			return errs.E(op, errs.Invalid, soundtrack.MsgBoth)
		case form.storage != nil:
			return errs.E(op, errs.Invalid, soundtrack.MsgBothUpload)
		}
		return errs.Field(op, "file", "Send the file as multipart/form-data.")
	}
	return nil
}

func (a *API) soundtrackRetrieve(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.soundtrackRetrieve"
	p, err := a.Optional(r)
	if err != nil {
		return err
	}
	svc, err := a.soundtrackService()
	if err != nil {
		return err
	}
	v, err := svc.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if !v.ReadableBy(p) { // gaps.md: private videos only by their creator, 403 otherwise
		return errs.E(op, errs.Forbidden, "This soundtrack video is private; only its creator can read it.")
	}
	out, err := a.soundtrackJSON(r.Context(), v)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store") // carries a signed URL
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
