package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
)

// Presigned uploads are shared by recognition (§4.5) and the soundtrack
// upload: a client asks for a URL, PUTs the file to storage without going
// through the API (Lambda cannot take large bodies), then names the key.

// UploadURLTTL is the lifetime of a presigned upload URL (§4.5 expires_in default).
const UploadURLTTL = 600 * time.Second

// uploadPolicy is one presigned-upload flow.
type uploadPolicy struct {
	prefix  string // every key of the flow starts with it
	maxSize int64
	sizeMsg string // the field error for an oversize file
	extMsg  string // the field error for a file name without an allowed extension
	// direct names the endpoint that takes the file in the body, for
	// environments without object storage.
	direct string
}

// uploadKey is where a client's upload goes; the client id in the key
// keeps one partner from using another's upload.
func uploadKey(prefix, clientID, filename string) string {
	base := blob.BaseName(filename)
	// Letters of any script, digits, spaces and plain punctuation survive,
	// so the name a client gave comes back as the video's source_title;
	// anything a URL, a shell or S3's event encoding treats specially does not.
	safe := []rune(strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), strings.ContainsRune(" .-_()", r):
			return r
		}
		return '_'
	}, base))
	if len(safe) > 100 {
		safe = safe[len(safe)-100:]
	}
	name := strings.TrimSpace(string(safe))
	if name == "" || name == "." || name == ".." {
		name = "upload"
	}
	return prefix + clientID + "/" + ids.NewUUID() + "/" + name
}

type uploadURLRequest struct {
	Filename      *string `json:"filename"`
	ContentLength *int64  `json:"content_length"`
}

type uploadURLResponse struct {
	UploadURL   string `json:"upload_url"`
	StorageKey  string `json:"storage_key"`
	ExpiresIn   int    `json:"expires_in"`
	ContentType string `json:"content_type"`
}

// issueUploadURL answers an upload-url call of the authenticated client:
// the file name's extension pins the content type, a declared length over
// the limit is refused before any URL is issued.
func (a *API) issueUploadURL(w http.ResponseWriter, r *http.Request, clientID string, pol uploadPolicy) error {
	const op = "httpapi.issueUploadURL"
	var in uploadURLRequest
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	fields := map[string][]string{}
	ext := ""
	switch {
	case in.Filename == nil || *in.Filename == "":
		fields["filename"] = []string{"This field is required."}
	default:
		if ext = videoExt(*in.Filename); ext == "" {
			fields["filename"] = []string{pol.extMsg}
		}
	}
	length := blob.UnpinnedLength
	if in.ContentLength != nil {
		switch n := *in.ContentLength; {
		case n > pol.maxSize:
			fields["content_length"] = []string{pol.sizeMsg}
		case n <= 0:
			fields["content_length"] = []string{"Ensure this value is greater than 0."}
		default:
			length = n
		}
	}
	if len(fields) > 0 {
		return &errs.Error{Op: op, Kind: errs.Invalid, Fields: fields}
	}
	if a.Blob == nil {
		return errs.E(op, errs.NotImplemented, "Temporary object storage is not configured in this environment; upload the file directly to POST "+pol.direct+".")
	}
	key := uploadKey(pol.prefix, clientID, *in.Filename)
	u, err := a.Blob.PresignPut(r.Context(), key, videoTypes[ext], length, UploadURLTTL)
	if err != nil {
		return errs.Wrap(op, err)
	}
	w.Header().Set("Location", u) // 201: what is created is the upload's place, PUT there
	WriteJSON(w, http.StatusCreated, uploadURLResponse{UploadURL: u, StorageKey: key,
		ExpiresIn: int(UploadURLTTL / time.Second), ContentType: videoTypes[ext]})
	return nil
}

// checkUploadedKey checks a storage_key of the flow: under its prefix,
// uploaded by this client, present, within the size limit.
func (a *API) checkUploadedKey(ctx context.Context, key, clientID string, pol uploadPolicy) (blob.Attrs, error) {
	const op = "httpapi.checkUploadedKey"
	if !strings.HasPrefix(key, pol.prefix) {
		return blob.Attrs{}, errs.Field(op, "storage_key", "Must start with \""+pol.prefix+"\".")
	}
	missing := errs.Field(op, "storage_key", "No uploaded file at this key; PUT the file to the upload URL first.")
	if !strings.HasPrefix(key, pol.prefix+clientID+"/") || blob.ValidateKey(key) != nil || a.Blob == nil {
		return blob.Attrs{}, missing
	}
	attrs, err := a.Blob.Head(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return blob.Attrs{}, missing
	}
	if err != nil {
		return blob.Attrs{}, errs.Wrap(op, err)
	}
	if attrs.Size > pol.maxSize {
		return blob.Attrs{}, errs.Field(op, "storage_key", pol.sizeMsg)
	}
	return attrs, nil
}
