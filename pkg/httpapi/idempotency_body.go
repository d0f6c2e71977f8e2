package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"unicode"
)

// spoolInMemory is the part of a body kept in memory while an idempotent
// request is fingerprinted; the rest of a large upload goes to a temporary
// file, so a 100 MB video costs disk, not memory.
const spoolInMemory = 1 << 20

// errSpool marks our own failure to keep a body (a 500), as opposed to a
// body the client did not deliver.
var errSpool = errors.New("httpapi: spool request body")

// spooledBody is a request body read once, to fingerprint it before the
// handler reads it again.
type spooledBody struct {
	mem  []byte
	f    *os.File // nil while the body fits in memory
	size int64
}

// spoolBody reads r to its end. A read error is returned with what was
// read before it; errSpool wraps a failure to store the body.
func spoolBody(r io.Reader) (*spooledBody, error) {
	s := &spooledBody{}
	head, err := io.ReadAll(io.LimitReader(r, spoolInMemory+1))
	s.mem, s.size = head, int64(len(head))
	if err != nil || len(head) <= spoolInMemory {
		return s, err
	}
	f, err := os.CreateTemp("", "idempotent-body-*")
	if err != nil {
		return s, fmt.Errorf("%w: %v", errSpool, err)
	}
	_ = os.Remove(f.Name()) // unlinked: gone with the last descriptor, whatever happens
	s.f, s.mem = f, nil
	if _, err := f.Write(head); err != nil {
		return s, fmt.Errorf("%w: %v", errSpool, err)
	}
	n, err := io.Copy(spoolFile{f}, r)
	s.size += n
	var we spoolWriteError
	if errors.As(err, &we) {
		return s, fmt.Errorf("%w: %v", errSpool, we.err)
	}
	return s, err
}

// spoolFile tags its write errors, so a failed copy says which side failed
// (and hides ReadFrom, which would blur that).
type spoolFile struct{ f *os.File }

func (w spoolFile) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		return n, spoolWriteError{err}
	}
	return n, nil
}

type spoolWriteError struct{ err error }

func (e spoolWriteError) Error() string { return e.err.Error() }

// open returns a reader over the whole spooled body.
func (s *spooledBody) open() io.Reader {
	if s.f != nil {
		return io.NewSectionReader(s.f, 0, s.size)
	}
	return bytes.NewReader(s.mem)
}

// replay is the request body the handler reads: the spooled bytes, then
// err (the read error the spool met) when non-nil.
func (s *spooledBody) replay(err error) io.ReadCloser {
	if err == nil {
		return io.NopCloser(s.open())
	}
	return io.NopCloser(io.MultiReader(s.open(), errorReader{err}))
}

func (s *spooledBody) Close() {
	if s.f != nil {
		s.f.Close()
	}
}

type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }

// requestFingerprint hashes what makes two requests with one key "the
// same": method, path, query, X-User-ID, media type and the body.
func requestFingerprint(r *http.Request, body *spooledBody) (string, error) {
	h := sha256.New()
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	for _, f := range []string{"v1", r.Method, r.URL.Path, r.URL.Query().Encode(),
		strings.Join(r.Header.Values("X-User-ID"), "\x00"), mt} {
		writeField(h, []byte(f))
	}
	digest, err := bodyDigest(mt, params["boundary"], body)
	if err != nil {
		return "", err
	}
	writeField(h, digest)
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// writeField writes b length-prefixed, so fields cannot run into each other.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// bodyDigest hashes the body by its meaning where the encoding leaves
// freedom: multipart by its parts (the boundary is random per attempt in
// most clients), JSON by its value (key order, spacing); anything else,
// or a body that does not parse, byte for byte.
func bodyDigest(mt, boundary string, body *spooledBody) ([]byte, error) {
	switch {
	case mt == "multipart/form-data" && boundary != "":
		if d, ok := multipartDigest(body.open(), boundary); ok {
			return d, nil
		}
	case (mt == "application/json" || isJSONSuffix(mt)) && body.f == nil:
		if d, ok := jsonDigest(body.mem); ok {
			return d, nil
		}
	}
	h := sha256.New()
	writeField(h, []byte("raw"))
	if _, err := io.Copy(h, body.open()); err != nil {
		return nil, fmt.Errorf("%w: %v", errSpool, err)
	}
	return h.Sum(nil), nil
}

func multipartDigest(r io.Reader, boundary string) ([]byte, bool) {
	h := sha256.New()
	writeField(h, []byte("multipart"))
	mr := multipart.NewReader(r, boundary)
	for {
		part, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			return h.Sum(nil), true
		}
		if err != nil {
			return nil, false
		}
		ph := sha256.New()
		if _, err := io.Copy(ph, part); err != nil {
			return nil, false
		}
		writeField(h, []byte(part.FormName()))
		writeField(h, []byte(part.FileName()))
		writeField(h, []byte(part.Header.Get("Content-Type")))
		writeField(h, []byte(part.Header.Get("Content-Transfer-Encoding")))
		writeField(h, ph.Sum(nil))
	}
}

// jsonDigest is the digest of a JSON body as its value: spacing and key
// order do not count. False (the caller digests the bytes) for what is not
// one JSON value, and for an object holding keys that differ only in case:
// the handlers' decoder matches field names case-insensitively and the last
// one in the document wins, an order the decoded map has lost – so
// {"name":"a","Name":"b"} and {"Name":"b","name":"a"}, two different
// requests, would digest alike.
func jsonDigest(b []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	if !foldUnique(v) {
		return nil, false
	}
	canon, err := json.Marshal(v) // map keys sorted; numbers as written
	if err != nil {
		return nil, false
	}
	h := sha256.New()
	writeField(h, []byte("json"))
	h.Write(canon)
	return h.Sum(nil), true
}

// foldUnique reports whether no object in v holds two keys equal under
// case folding.
func foldUnique(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		seen := make(map[string]bool, len(x))
		for k, e := range x {
			f := foldKey(k)
			if seen[f] || !foldUnique(e) {
				return false
			}
			seen[f] = true
		}
	case []any:
		for _, e := range x {
			if !foldUnique(e) {
				return false
			}
		}
	}
	return true
}

// foldKey maps every rune of k to the least rune of its simple case-folding
// orbit, so that keys strings.EqualFold (and encoding/json's field
// matching: "ſ" matches "s") takes as equal map to one key.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, k)
}
