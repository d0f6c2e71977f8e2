package fileblob

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/url"
	"strings"
)

// Query parameters of a presigned URL.
const (
	paramExpires       = "expires" // Unix seconds
	paramContentType   = "content-type"
	paramContentLength = "content-length"
	paramFilename      = "filename"
	paramSignature     = "signature"
)

// signedParams are the parameters the signature covers, in signing order.
var signedParams = []string{paramExpires, paramContentType, paramContentLength, paramFilename}

// signature is the hex HMAC-SHA256 of the method, the key and the signed
// parameters. Every field is length-prefixed, an absent one marked as such,
// so no two different requests share a signing input.
func (s *Store) signature(method, key string, q url.Values) string {
	mac := hmac.New(sha256.New, s.secret)
	field := func(v string, present bool) {
		n := int64(len(v))
		if !present {
			n = -1
		}
		mac.Write(binary.AppendVarint(nil, n))
		mac.Write([]byte(v))
	}
	field("fileblob-v1", true)
	field(method, true)
	field(key, true)
	for _, name := range signedParams {
		_, present := q[name]
		field(q.Get(name), present)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

func (s *Store) signedURL(method, key string, q url.Values) string {
	q.Set(paramSignature, s.signature(method, key, q))
	return s.base + "/_blob/" + escapeKey(key) + "?" + q.Encode()
}

func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// validSignature compares in constant time, as a guess must learn nothing.
func (s *Store) validSignature(method, key string, q url.Values) bool {
	want := s.signature(method, key, q)
	return hmac.Equal([]byte(want), []byte(q.Get(paramSignature)))
}
