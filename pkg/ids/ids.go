package ids

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// Source makes new random identifiers; tests inject a deterministic one.
type Source interface {
	UUID() string
}

// Random is the production Source.
type Random struct{}

func (Random) UUID() string { return NewUUID() }

// Hex32 returns New32Hex(): license ids come from the same CSPRNG.
func (Random) Hex32() string { return New32Hex() }

// NewUUID returns a random (version 4) UUID in canonical form.
func NewUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return format(b)
}

// NameUUID returns the version 5 (SHA-1, name-based) UUID of name in the
// given namespace, so the same input always yields the same id.
func NameUUID(namespace, name string) string {
	h := sha1.Sum([]byte(namespace + "\x00" + name))
	var b [16]byte
	copy(b[:], h[:16])
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return format(b)
}

func format(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a UUID in canonical textual form.
func IsUUID(s string) bool { return uuidRE.MatchString(s) }

// CanonicalUUID lower-cases a valid UUID; ok is false for anything else.
func CanonicalUUID(s string) (string, bool) {
	if !IsUUID(s) {
		return "", false
	}
	return strings.ToLower(s), true
}

// NewToken returns an opaque bearer token with a readable prefix.
func NewToken(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// New32Hex returns 32 random hex characters (license ids).
func New32Hex() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// HashToken is the SHA-256 hex digest under which a token is stored.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}
