package identity

import (
	"errors"
	"slices"
	"time"
)

// Plan is a partner's subscription tier (interface.md §5, DESIGN.md §6).
type Plan string

const (
	PlanFree       Plan = "free"
	PlanSubscriber Plan = "subscriber"
	PlanCommercial Plan = "commercial"
	PlanEnterprise Plan = "enterprise"
)

// Valid reports whether p is a known plan.
func (p Plan) Valid() bool {
	switch p {
	case PlanFree, PlanSubscriber, PlanCommercial, PlanEnterprise:
		return true
	}
	return false
}

// Scopes a token can carry (interface.md §5). Other areas are governed by
// the client's plan and flags, not by scopes.
const (
	ScopeLicenses        = "licenses:generate"
	ScopeComplianceCheck = "compliance_check"
)

// AllScopes is every scope, for demo and admin clients.
var AllScopes = []string{ScopeLicenses, ScopeComplianceCheck}

// ValidScope reports whether s is a known scope.
func ValidScope(s string) bool { return slices.Contains(AllScopes, s) }

// Status of a partner client.
type Status string

const (
	StatusActive   Status = "active"
	StatusInactive Status = "inactive"
)

// Quotas configured per partnership; zero means "use the service default".
type Quotas struct {
	RecognitionDailyCap int64 `json:"recognition_daily_cap"`
	LicenseBurst        int64 `json:"license_burst"`
	LicenseDaily        int64 `json:"license_daily"`
	LicenseMonthly      int64 `json:"license_monthly"`
}

// Client is a partner account.
type Client struct {
	ID          string
	Name        string
	Plan        Plan
	CanDownload bool
	SFXEnabled  bool
	Status      Status
	Scopes      []string
	Quotas      Quotas
	CreatedAt   time.Time
	// TokenEpoch counts the revocations of all the client's tokens: a
	// token issued under an older epoch is revoked (see
	// Service.RevokeClientTokens).
	TokenEpoch int64
	// TokensRevokedAt is when all its tokens were last revoked (zero: never).
	TokensRevokedAt time.Time
}

// User is an end user signed in through a client.
type User struct {
	ID        string
	Username  string
	Name      string
	ClientID  string
	CreatedAt time.Time
}

// Principal is who a request acts as.
type Principal struct {
	Client Client
	User   *User // nil for a partner key
	Scopes []string
	// TokenID is a short, non-secret prefix of the token digest: for logs,
	// and it keys the license burst limit of a partner key (per key, §8).
	TokenID string
}

// HasScope reports whether the token carries scope s.
func (p *Principal) HasScope(s string) bool { return p != nil && slices.Contains(p.Scopes, s) }

// ID is the principal's stable id for logs and rate limits.
func (p *Principal) ID() string {
	if p.User != nil {
		return "user:" + p.User.ID
	}
	return "client:" + p.Client.ID
}

// Authentication outcomes other than success (interface.md §7.3 names).
var (
	ErrMissingToken   = errors.New("missing token")
	ErrInvalidToken   = errors.New("invalid token")
	ErrRevokedToken   = errors.New("revoked token")
	ErrExpiredToken   = errors.New("expired token")
	ErrInactiveClient = errors.New("inactive client")
)
