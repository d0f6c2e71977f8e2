package fileblob

import (
	"encoding/xml"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"musiccatalog/pkg/blob"
)

// MaxPutSize is S3's limit for one PUT, applied to unpinned uploads.
const MaxPutSize = 5 << 30

// Handler serves presigned URLs: GET with Range support, and PUT. Mount it
// at /_blob/ of the server at the store's base URL, without stripping the
// prefix. Refusals answer as S3 does: status and an XML error document.
func (s *Store) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Store) serve(w http.ResponseWriter, r *http.Request) {
	key, ok := strings.CutPrefix(r.URL.Path, s.mount)
	if !ok {
		s3Error(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	}
	if blob.ValidateKey(key) != nil {
		s3Error(w, r, http.StatusBadRequest, "InvalidURI", "Couldn't parse the specified URI.")
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		s3Error(w, r, http.StatusBadRequest, "InvalidArgument", "Malformed query string.")
		return
	}
	if _, both := r.Header["Authorization"]; both {
		// A presigned URL is the request's authentication; S3 refuses a
		// second mechanism beside it, whatever the header holds.
		s3Error(w, r, http.StatusBadRequest, "InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified.")
		return
	}
	if !q.Has(paramSignature) || !q.Has(paramExpires) {
		s3Error(w, r, http.StatusForbidden, "AccessDenied", "Query-string authentication requires the expires and signature parameters.")
		return
	}
	for name, values := range q {
		// Anything the signature does not cover could change the request
		// unnoticed.
		if len(values) != 1 || (name != paramSignature && !slices.Contains(signedParams, name)) {
			s3Error(w, r, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
			return
		}
	}
	// The method is signed: a GET URL refuses HEAD, PUT, DELETE..., as S3 does.
	if !s.validSignature(r.Method, key, q) {
		s3Error(w, r, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	}
	expires, err := strconv.ParseInt(q.Get(paramExpires), 10, 64)
	if err != nil || s.now().Unix() > expires {
		s3Error(w, r, http.StatusForbidden, "AccessDenied", "Request has expired.")
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.serveGet(w, r, key, q)
	case http.MethodPut:
		s.servePut(w, r, key, q)
	default: // we never sign another method
		s3Error(w, r, http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
	}
}

func (s *Store) serveGet(w http.ResponseWriter, r *http.Request, key string, q url.Values) {
	f, a, err := s.open(key)
	if errors.Is(err, blob.ErrNotFound) {
		s3Error(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	}
	if err != nil {
		internalError(w, r, "get", key, err)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", a.ContentType)
	h.Set("ETag", `"`+a.ETag+`"`)
	if name := q.Get(paramFilename); name != "" {
		// Checked when signed; a signed URL cannot carry another name.
		d, _ := blob.AttachmentDisposition(name)
		h.Set("Content-Disposition", d)
	}
	http.ServeContent(w, r, "", a.ModTime, io.NewSectionReader(f, 0, a.Size))
}

func (s *Store) servePut(w http.ResponseWriter, r *http.Request, key string, q url.Values) {
	// Both headers are signed on S3, so a mismatch fails its signature check.
	if types := r.Header.Values("Content-Type"); len(types) != 1 || types[0] != q.Get(paramContentType) {
		s3Error(w, r, http.StatusForbidden, "SignatureDoesNotMatch", "The Content-Type header does not match the signed one.")
		return
	}
	if q.Has(paramContentLength) {
		if strconv.FormatInt(r.ContentLength, 10) != q.Get(paramContentLength) {
			// A chunked body (length -1) lands here too.
			s3Error(w, r, http.StatusForbidden, "SignatureDoesNotMatch", "The Content-Length header does not match the signed one.")
			return
		}
	} else if r.ContentLength < 0 {
		s3Error(w, r, http.StatusLengthRequired, "MissingContentLength", "You must provide the Content-Length HTTP header.")
		return
	}
	if r.ContentLength > MaxPutSize {
		s3Error(w, r, http.StatusBadRequest, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size.")
		return
	}
	a, err := s.write(r.Context(), key, r.Body, r.ContentLength, q.Get(paramContentType))
	// A body of the wrong size, or a client that went away mid-body.
	if errors.Is(err, blob.ErrInvalid) || errors.Is(err, io.ErrUnexpectedEOF) || r.Context().Err() != nil {
		s3Error(w, r, http.StatusBadRequest, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.")
		return
	}
	if err != nil {
		internalError(w, r, "put", key, err)
		return
	}
	w.Header().Set("ETag", `"`+a.ETag+`"`)
	w.WriteHeader(http.StatusOK)
}

func internalError(w http.ResponseWriter, r *http.Request, op, key string, err error) {
	slog.ErrorContext(r.Context(), "fileblob: serving a presigned URL failed", "op", op, "key", key, "err", err)
	s3Error(w, r, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
}

func s3Error(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	body, _ := xml.Marshal(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string
		Message string
	}{Code: code, Message: message})
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write([]byte(xml.Header))
		w.Write(body)
	}
}
