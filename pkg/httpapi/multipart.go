package httpapi

import (
	"bufio"
	"errors"
	"io"
	"math"
	"mime"
	"net/http"

	"musiccatalog/pkg/errs"
)

// Upload endpoints (recognition submit, soundtrack create) take a
// multipart file or a small JSON body. The router lets their bodies
// through unbounded (selfLimitedBody) and limitUploadBody bounds them, so
// that an oversize file gets the spec's one answer – 400 {"file": ["File
// size cannot exceed …"]} – whether Content-Length announced it (then
// without reading the body) or a chunked body ran over.

// selfLimitedBody is the router limit of an endpoint wrapped in
// uploadPolicy.bounded, which bounds the body itself.
const selfLimitedBody int64 = math.MaxInt64

// msgMalformedMultipart answers a multipart body that cannot be read to
// its end: bad framing, or cut off before its closing boundary.
const msgMalformedMultipart = "Malformed multipart body."

func isMultipart(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "multipart/form-data"
}

// limitUploadBody bounds r's body for an upload endpoint of pol: a
// multipart body to the file limit plus framing, anything else to a JSON
// body's limit.
func (pol uploadPolicy) limitUploadBody(w http.ResponseWriter, r *http.Request) error {
	const op = "httpapi.limitUploadBody"
	limit := MaxJSONBody
	if isMultipart(r) {
		limit = pol.maxSize + multipartSlack
		if r.ContentLength > limit {
			return errs.Field(op, "file", pol.sizeMsg)
		}
	} else if r.ContentLength > limit {
		return tooLarge(limit)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	return nil
}

// bounded applies limitUploadBody before h – before Idempotent too, which
// reads the whole body to fingerprint it.
func (pol uploadPolicy) bounded(h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := pol.limitUploadBody(w, r); err != nil {
			return err
		}
		return h(w, r)
	}
}

// bodyFault is the client's error for a multipart body that failed to
// read: over the limit, or malformed or cut off.
func (pol uploadPolicy) bodyFault(op string, err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errs.Field(op, "file", pol.sizeMsg)
	}
	return errs.E(op, errs.Invalid, msgMalformedMultipart)
}

// partReader reads a multipart part and remembers how much it read and
// whether reading the request body failed under it, which tells a client
// that sent a broken body from a store that failed.
type partReader struct {
	r   io.Reader
	n   int64
	err error
}

func (p *partReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if err != nil && err != io.EOF {
		p.err = err
	}
	return n, err
}

// bodyEmpty reports whether r has no body or only white space, leaving
// the body readable from its start otherwise.
func bodyEmpty(r *http.Request) (bool, error) {
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return true, nil
	}
	br := bufio.NewReader(r.Body)
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return false, err
			}
			return false, errs.E("httpapi.bodyEmpty", errs.Invalid, "Could not read the request body.")
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		_ = br.UnreadByte()
		r.Body = struct {
			io.Reader
			io.Closer
		}{br, r.Body}
		return false, nil
	}
}
