package blob

import (
	"errors"
	"fmt"
	"math"
	"mime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrInvalid is returned (wrapped) for a key or argument no adapter accepts.
// Adapters check arguments alike so that code tried on the local twin does
// not break on S3.
var ErrInvalid = errors.New("blob: invalid argument")

// Limits shared by the adapters; both are S3's.
const (
	MaxKeyLength  = 1024
	MaxPresignTTL = 7 * 24 * time.Hour
	// MinPresignTTL is the resolution of S3's X-Amz-Expires.
	MinPresignTTL = time.Second
)

// ValidateKey reports, wrapping ErrInvalid, why key is not a valid object key.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalid)
	}
	if len(key) > MaxKeyLength {
		return fmt.Errorf("%w: key longer than %d bytes", ErrInvalid, MaxKeyLength)
	}
	if err := validateChars(key); err != nil {
		return fmt.Errorf("%w: key %q: %v", ErrInvalid, key, err)
	}
	for _, seg := range strings.Split(key, "/") {
		if !validSegment(seg) {
			return fmt.Errorf("%w: key %q: segments must be non-empty and not %q or %q", ErrInvalid, key, ".", "..")
		}
	}
	return nil
}

// ValidateRange checks the range of Store.GetRange: offset >= 0, length >
// 0, and an end that an int64 can hold (so offset+length never overflows).
func ValidateRange(offset, length int64) error {
	if offset < 0 || length <= 0 || length > math.MaxInt64-offset {
		return fmt.Errorf("%w: range of %d bytes from offset %d: want offset >= 0, length > 0 and offset+length within int64", ErrInvalid, length, offset)
	}
	return nil
}

// ValidatePrefix reports, wrapping ErrInvalid, why prefix cannot start any
// key. The empty prefix is valid: it lists everything.
func ValidatePrefix(prefix string) error {
	if len(prefix) > MaxKeyLength {
		return fmt.Errorf("%w: prefix longer than %d bytes", ErrInvalid, MaxKeyLength)
	}
	if err := validateChars(prefix); err != nil {
		return fmt.Errorf("%w: prefix %q: %v", ErrInvalid, prefix, err)
	}
	return nil
}

// PrefixCanMatch reports whether some valid key can start with a valid
// prefix: its complete segments must themselves be valid.
func PrefixCanMatch(prefix string) bool {
	segs := strings.Split(prefix, "/")
	for _, seg := range segs[:len(segs)-1] {
		if !validSegment(seg) {
			return false
		}
	}
	return true
}

func validSegment(seg string) bool {
	return seg != "" && seg != "." && seg != ".."
}

// validateChars rejects what breaks file paths, URLs or S3's XML listings.
func validateChars(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("not UTF-8")
	}
	if strings.HasPrefix(s, "/") {
		return errors.New("leading slash")
	}
	for _, r := range s {
		switch {
		case r == '\\':
			return errors.New("backslash")
		case r < 0x20 || r == 0x7f:
			return errors.New("control character")
		}
	}
	return nil
}

// ValidatePresignGet checks the arguments of Store.PresignGet.
func ValidatePresignGet(key string, ttl time.Duration, filename string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := validateTTL(ttl); err != nil {
		return err
	}
	if filename != "" {
		if _, err := AttachmentDisposition(filename); err != nil {
			return err
		}
	}
	return nil
}

// ValidatePresignPut checks the arguments of Store.PresignPut. A pinned
// length must be positive: S3's signer leaves a zero Content-Length unsigned,
// so an empty upload cannot be pinned.
func ValidatePresignPut(key, contentType string, contentLength int64, ttl time.Duration) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ValidateContentType(contentType); err != nil {
		return err
	}
	if contentLength != UnpinnedLength && contentLength <= 0 {
		return fmt.Errorf("%w: content length %d: want a positive size or UnpinnedLength", ErrInvalid, contentLength)
	}
	return validateTTL(ttl)
}

// ValidateContentType accepts a media type with optional parameters, as it
// can be sent verbatim in a header.
func ValidateContentType(contentType string) error {
	_, _, err := mime.ParseMediaType(contentType)
	if err == nil && strings.TrimSpace(contentType) != contentType {
		err = errors.New("surrounding space")
	}
	if err == nil {
		err = validateChars(contentType)
	}
	if err != nil {
		return fmt.Errorf("%w: content type %q: %v", ErrInvalid, contentType, err)
	}
	return nil
}

func validateTTL(ttl time.Duration) error {
	if ttl < MinPresignTTL || ttl > MaxPresignTTL {
		return fmt.Errorf("%w: ttl %v outside [%v, %v]", ErrInvalid, ttl, MinPresignTTL, MaxPresignTTL)
	}
	return nil
}

// AttachmentDisposition is the Content-Disposition that makes a download
// save as filename. A name that is not plain ASCII gets an ASCII fallback
// (accents dropped, other characters replaced) in filename= and the exact
// name, percent-encoded as UTF-8, in filename* (RFC 6266 with RFC 5987's
// encoding), which every current browser prefers.
func AttachmentDisposition(filename string) (string, error) {
	if err := validateChars(filename); err != nil || strings.Contains(filename, "/") {
		return "", fmt.Errorf("%w: filename %q: want a base name without control characters", ErrInvalid, filename)
	}
	fallback := asciiFallback(filename)
	d := mime.FormatMediaType("attachment", map[string]string{"filename": fallback})
	if d == "" || strings.TrimSpace(filename) == "" {
		return "", fmt.Errorf("%w: filename %q cannot be put in a Content-Disposition", ErrInvalid, filename)
	}
	if fallback != filename {
		d += "; filename*=UTF-8''" + encodeRFC5987(filename)
	}
	return d, nil
}

// asciiFallback spells name in printable ASCII: letters lose their
// accents (NFKD without combining marks: "Café" → "Cafe"), anything else
// outside ASCII becomes "_".
func asciiFallback(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// encodeRFC5987 percent-encodes s as an RFC 5987 ext-value: every byte
// but attr-char.
func encodeRFC5987(s string) string {
	const attrChar = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(attrChar, c) >= 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
