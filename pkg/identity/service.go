package identity

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
)

// TokenPrefix starts every token so a leaked one is recognisable in scans.
const TokenPrefix = "mcat_"

// Service manages clients, users and tokens on the Accounts table.
type Service struct {
	st    store.Store
	clock clock.Clock
	ids   ids.Source
	// cache trusts a resolved token for cacheTTL without a read
	// (DESIGN.md §6); revocation takes effect within it, expiry at once.
	cache *tokenCache
}

// MaxTokenCacheTTL bounds the token cache's TTL, which is how long a
// revocation or a deactivation made on one instance may take to reach the
// others (each trusts its cached principals that long). Configuration
// asking for more is refused (TOKEN_CACHE_TTL).
const MaxTokenCacheTTL = time.Minute

// New returns a Service. cacheTTL 0 disables the token cache.
func New(st store.Store, c clock.Clock, src ids.Source, cacheTTL time.Duration) *Service {
	return &Service{st: st, clock: c, ids: src, cache: newTokenCache(cacheTTL)}
}

func clientKey(id string) store.Key { return store.Key{PK: "CLIENT#" + id, SK: "PROFILE"} }
func userKey(id string) store.Key   { return store.Key{PK: "USER#" + id, SK: "PROFILE"} }
func tokenKey(hash string) store.Key {
	return store.Key{PK: "TOKEN#" + hash, SK: "TOKEN"}
}
func usernameKey(u string) store.Key {
	return store.Key{PK: "USERNAME#" + strings.ToLower(u), SK: "USERNAME"}
}

// NewClient describes a client to create.
type NewClient struct {
	Name        string
	Plan        Plan
	Scopes      []string
	CanDownload bool
	SFXEnabled  bool
	Quotas      Quotas
}

// CreateClient stores a new active client and issues its first key.
func (s *Service) CreateClient(ctx context.Context, in NewClient) (Client, string, error) {
	const op = "identity.CreateClient"
	if strings.TrimSpace(in.Name) == "" {
		return Client{}, "", errs.Field(op, "name", "This field may not be blank.")
	}
	if !in.Plan.Valid() {
		return Client{}, "", errs.Field(op, "plan", fmt.Sprintf("%q is not a valid choice.", in.Plan))
	}
	for _, sc := range in.Scopes {
		if !ValidScope(sc) {
			return Client{}, "", errs.Field(op, "scopes", fmt.Sprintf("%q is not a known scope.", sc))
		}
	}
	c := Client{ID: s.ids.UUID(), Name: in.Name, Plan: in.Plan, CanDownload: in.CanDownload,
		SFXEnabled: in.SFXEnabled, Status: StatusActive, Scopes: in.Scopes, Quotas: in.Quotas,
		CreatedAt: s.clock.Now()}
	token, tokItem := s.newTokenItem(c, "", time.Time{})
	err := s.st.Transact(ctx, []store.TxOp{
		store.TxPut(store.Accounts, clientItem(c), store.NotExists()),
		store.TxPut(store.Accounts, tokItem, store.NotExists()),
	})
	if err != nil {
		return Client{}, "", errs.Wrap(op, err)
	}
	return c, token, nil
}

func clientItem(c Client) store.Item {
	return store.Item{Key: clientKey(c.ID), Attrs: map[string]any{
		"name": c.Name, "plan": string(c.Plan), "can_download": c.CanDownload,
		"sfx_enabled": c.SFXEnabled, "status": string(c.Status), "scopes": strings.Join(c.Scopes, ","),
		"recognition_daily_cap": c.Quotas.RecognitionDailyCap, "license_burst": c.Quotas.LicenseBurst,
		"license_daily": c.Quotas.LicenseDaily, "license_monthly": c.Quotas.LicenseMonthly,
		"created_at": store.UnixNano(c.CreatedAt), attrTokenEpoch: c.TokenEpoch,
	}}
}

// Attributes of the client revocation epoch: attrTokenEpoch on the client
// and on every token (the client's epoch when the token was issued),
// attrTokensRevokedAt on the client for operators.
const (
	attrTokenEpoch      = "token_epoch"
	attrTokensRevokedAt = "tokens_revoked_at"
)

func splitScopes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func clientFromItem(id string, it store.Item) Client {
	return Client{ID: id, Name: it.Str("name"), Plan: Plan(it.Str("plan")),
		CanDownload: it.Bool("can_download"), SFXEnabled: it.Bool("sfx_enabled"),
		Status: Status(it.Str("status")), Scopes: splitScopes(it.Str("scopes")),
		Quotas: Quotas{RecognitionDailyCap: it.Int("recognition_daily_cap"),
			LicenseBurst: it.Int("license_burst"), LicenseDaily: it.Int("license_daily"),
			LicenseMonthly: it.Int("license_monthly")},
		CreatedAt: it.Time("created_at"), TokenEpoch: it.Int(attrTokenEpoch),
		TokensRevokedAt: it.Time(attrTokensRevokedAt)}
}

// GetClient returns a client or a NotFound error.
func (s *Service) GetClient(ctx context.Context, id string) (Client, error) {
	it, err := s.st.Get(ctx, store.Accounts, clientKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return Client{}, errs.E("identity.GetClient", errs.NotFound, "Client not found.")
	}
	if err != nil {
		return Client{}, errs.Wrap("identity.GetClient", err)
	}
	return clientFromItem(id, it), nil
}

// SetClientStatus activates or deactivates a client; its tokens follow.
func (s *Service) SetClientStatus(ctx context.Context, id string, st Status) error {
	_, err := s.st.Update(ctx, store.Accounts, clientKey(id),
		store.Update{Set: map[string]any{"status": string(st)}}, store.Exists())
	if errors.Is(err, store.ErrConditionFailed) {
		return errs.E("identity.SetClientStatus", errs.NotFound, "Client not found.")
	}
	s.flushCache()
	return errs.Wrap("identity.SetClientStatus", err)
}

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_.@+-]{1,150}$`)

// CreateUser adds a user to a client and issues the user's first token.
// Usernames are unique case-insensitively across the service.
func (s *Service) CreateUser(ctx context.Context, clientID, username, name string) (User, string, error) {
	const op = "identity.CreateUser"
	if !usernameRE.MatchString(username) {
		return User{}, "", errs.Field(op, "username", "Enter a valid username: up to 150 letters, digits and @/./+/-/_ characters.")
	}
	for range maxIssueAttempts {
		c, err := s.GetClient(ctx, clientID)
		if err != nil {
			return User{}, "", err
		}
		u := User{ID: s.ids.UUID(), Username: username, Name: name, ClientID: c.ID, CreatedAt: s.clock.Now()}
		token, tokItem := s.newTokenItem(c, u.ID, time.Time{})
		err = s.st.Transact(ctx, []store.TxOp{
			store.TxPut(store.Accounts, store.Item{Key: userKey(u.ID), Attrs: map[string]any{
				"username": u.Username, "name": u.Name, "client_id": u.ClientID,
				"created_at": store.UnixNano(u.CreatedAt),
				"GSI1PK":     "CLIENT#" + c.ID + "#USERS", "GSI1SK": strings.ToLower(u.Username),
			}}, store.NotExists()),
			store.TxPut(store.Accounts, store.Item{Key: usernameKey(username), Attrs: map[string]any{"user_id": u.ID}}, store.NotExists()),
			store.TxPut(store.Accounts, tokItem, store.NotExists()),
			sameEpoch(c),
		})
		if errors.Is(err, store.ErrConditionFailed) {
			moved, rerr := s.epochMoved(ctx, c)
			if rerr != nil {
				return User{}, "", rerr
			}
			if moved {
				continue // revoked meanwhile: issue under the new epoch
			}
			return User{}, "", errs.Field(op, "username", "A user with that username already exists.")
		}
		if err != nil {
			return User{}, "", errs.Wrap(op, err)
		}
		return u, token, nil
	}
	return User{}, "", errRevoking(op)
}

// maxIssueAttempts bounds the rounds of issuing a token while revocations
// of the client's tokens keep landing between the read and the write.
const maxIssueAttempts = 3

// sameEpoch is the check, in the transaction that writes a token issued
// under client c as just read, that c's token epoch is still the one the
// token carries: a RevokeClientTokens landing in between fails the write
// instead of answering a token refused from its first use.
func sameEpoch(c Client) store.TxOp {
	cond := store.Equals(attrTokenEpoch, c.TokenEpoch)
	if c.TokenEpoch == 0 { // also a client written before epochs
		cond = store.Or(store.AttrNotExists(attrTokenEpoch), cond)
	}
	return store.TxCheck(store.Accounts, clientKey(c.ID), store.And(store.Exists(), cond))
}

// epochMoved reports whether client c's tokens were revoked since c was
// read (NotFound when the client is gone).
func (s *Service) epochMoved(ctx context.Context, c Client) (bool, error) {
	now, err := s.GetClient(ctx, c.ID)
	if err != nil {
		return false, err
	}
	return now.TokenEpoch != c.TokenEpoch, nil
}

// errRevoking answers an issue that met a revocation on every attempt.
func errRevoking(op string) error {
	return &errs.Error{Op: op, Kind: errs.Unavailable, RetryAfter: time.Second,
		Detail: "The client's tokens are being revoked. Please retry in a moment."}
}

// GetUser returns a user or a NotFound error.
func (s *Service) GetUser(ctx context.Context, id string) (User, error) {
	it, err := s.st.Get(ctx, store.Accounts, userKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return User{}, errs.E("identity.GetUser", errs.NotFound, "User not found.")
	}
	if err != nil {
		return User{}, errs.Wrap("identity.GetUser", err)
	}
	return userFromItem(id, it), nil
}

// FindUserByUsername resolves a username (case-insensitive).
func (s *Service) FindUserByUsername(ctx context.Context, username string) (User, error) {
	it, err := s.st.Get(ctx, store.Accounts, usernameKey(username))
	if errors.Is(err, store.ErrNotFound) {
		return User{}, errs.E("identity.FindUserByUsername", errs.NotFound, "User not found.")
	}
	if err != nil {
		return User{}, errs.Wrap("identity.FindUserByUsername", err)
	}
	return s.GetUser(ctx, it.Str("user_id"))
}

func userFromItem(id string, it store.Item) User {
	return User{ID: id, Username: it.Str("username"), Name: it.Str("name"),
		ClientID: it.Str("client_id"), CreatedAt: it.Time("created_at")}
}

// newTokenItem issues a token of client c (as just read) for userID ("":
// a partner key), carrying c's scopes and c's token epoch.
func (s *Service) newTokenItem(c Client, userID string, expires time.Time) (string, store.Item) {
	token := ids.NewToken(TokenPrefix)
	hash := ids.HashToken(token)
	now := s.clock.Now()
	return token, store.Item{Key: tokenKey(hash), Attrs: map[string]any{
		"client_id": c.ID, "user_id": userID, "scopes": strings.Join(c.Scopes, ","),
		"token_expires_at": store.UnixNano(expires), "revoked": false,
		"created_at": store.UnixNano(now), attrTokenEpoch: c.TokenEpoch,
		"GSI1PK": "CLIENT#" + c.ID + "#TOKENS", "GSI1SK": fmt.Sprintf("%020d#%s", now.UnixNano(), hash),
	}}
}

// CreateToken issues another token for a client (userID "") or one of its
// users, with the client's scopes; a zero expires means it never expires.
func (s *Service) CreateToken(ctx context.Context, clientID, userID string, expires time.Time) (string, error) {
	const op = "identity.CreateToken"
	if userID != "" {
		u, err := s.GetUser(ctx, userID)
		if err != nil {
			return "", err
		}
		clientID = u.ClientID
	}
	for range maxIssueAttempts {
		c, err := s.GetClient(ctx, clientID)
		if err != nil {
			return "", err
		}
		token, it := s.newTokenItem(c, userID, expires)
		err = s.st.Transact(ctx, []store.TxOp{store.TxPut(store.Accounts, it, store.NotExists()), sameEpoch(c)})
		if errors.Is(err, store.ErrConditionFailed) {
			continue // revoked meanwhile (or the client is gone): read it again
		}
		if err != nil {
			return "", errs.Wrap(op, err)
		}
		return token, nil
	}
	return "", errRevoking(op)
}

// RevokeToken revokes one token.
func (s *Service) RevokeToken(ctx context.Context, token string) error {
	_, err := s.st.Update(ctx, store.Accounts, tokenKey(ids.HashToken(token)),
		store.Update{Set: map[string]any{"revoked": true}}, store.Exists())
	if errors.Is(err, store.ErrConditionFailed) {
		return errs.E("identity.RevokeToken", errs.NotFound, "Token not found.")
	}
	s.flushCache()
	return errs.Wrap("identity.RevokeToken", err)
}

// RevokeClientTokens revokes every token of a client and its users issued
// before the call, and returns how many of them the token index listed.
//
// The revocation itself is one strongly consistent write: it raises the
// client's token epoch, and Authenticate refuses a token issued under an
// older epoch (it reads the client with every token it resolves). So a
// token the index does not list yet (GSI1 is eventually consistent; a
// token issued just before the call) is revoked as surely as the others.
// Tokens issued after the call carry the new epoch and work. The listed
// tokens are also marked revoked one by one, for operators reading them.
// Instances that cached a principal before the call trust it for at most
// their token cache TTL (MaxTokenCacheTTL); this one forgets its cache.
func (s *Service) RevokeClientTokens(ctx context.Context, clientID string) (int, error) {
	const op = "identity.RevokeClientTokens"
	_, err := s.st.Update(ctx, store.Accounts, clientKey(clientID), store.Update{
		Add: map[string]int64{attrTokenEpoch: 1},
		Set: map[string]any{attrTokensRevokedAt: store.UnixNano(s.clock.Now())}}, store.Exists())
	if errors.Is(err, store.ErrConditionFailed) {
		return 0, errs.E(op, errs.NotFound, "Client not found.")
	}
	if err != nil {
		return 0, errs.Wrap(op, err)
	}
	s.flushCache()
	n, cursor := 0, ""
	for {
		page, err := s.st.Query(ctx, store.Accounts, store.Query{Index: "GSI1",
			PK: "CLIENT#" + clientID + "#TOKENS", Limit: 100, Cursor: cursor})
		if err != nil {
			return n, errs.Wrap(op, err)
		}
		for _, it := range page.Items {
			if it.Bool("revoked") {
				continue
			}
			if _, err := s.st.Update(ctx, store.Accounts, it.Key,
				store.Update{Set: map[string]any{"revoked": true}}, store.Exists()); err != nil {
				return n, errs.Wrap(op, err)
			}
			n++
		}
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	return n, nil
}

// Authenticate resolves a bearer token. It returns one of the Err* values
// for every failure the spec distinguishes, or a wrapped store error.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrMissingToken
	}
	hash := ids.HashToken(token)
	now := s.clock.Now()
	if p, err, ok := s.cache.get(hash, now); ok {
		return p, err
	}
	p, expires, err := s.resolve(ctx, hash, now)
	switch {
	case err == nil:
		s.cache.putGood(hash, p, expires, now)
	case isAuthOutcome(err):
		s.cache.putBad(hash, err, now)
	}
	return p, err
}

func isAuthOutcome(err error) bool {
	return errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrRevokedToken) ||
		errors.Is(err, ErrExpiredToken) || errors.Is(err, ErrInactiveClient)
}

// resolve reads a token and its client and user; it also returns the
// token's expiry (zero: none) for the cache to check on every hit.
func (s *Service) resolve(ctx context.Context, hash string, now time.Time) (Principal, time.Time, error) {
	tok, err := s.st.Get(ctx, store.Accounts, tokenKey(hash))
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, time.Time{}, ErrInvalidToken
	}
	if err != nil {
		return Principal{}, time.Time{}, errs.Wrap("identity.Authenticate", err)
	}
	if tok.Bool("revoked") {
		return Principal{}, time.Time{}, ErrRevokedToken
	}
	exp := tok.Time("token_expires_at")
	if !exp.IsZero() && !now.Before(exp) {
		return Principal{}, time.Time{}, ErrExpiredToken
	}
	c, err := s.GetClient(ctx, tok.Str("client_id"))
	if errs.Is(err, errs.NotFound) {
		return Principal{}, time.Time{}, ErrInvalidToken
	}
	if err != nil {
		return Principal{}, time.Time{}, err
	}
	if tok.Int(attrTokenEpoch) < c.TokenEpoch {
		return Principal{}, time.Time{}, ErrRevokedToken // issued before RevokeClientTokens
	}
	if c.Status != StatusActive {
		return Principal{}, time.Time{}, ErrInactiveClient
	}
	p := Principal{Client: c, Scopes: splitScopes(tok.Str("scopes")), TokenID: hash[:12]}
	if uid := tok.Str("user_id"); uid != "" {
		u, err := s.GetUser(ctx, uid)
		if errs.Is(err, errs.NotFound) {
			return Principal{}, time.Time{}, ErrInvalidToken
		}
		if err != nil {
			return Principal{}, time.Time{}, err
		}
		p.User = &u
	}
	return p, exp, nil
}

func (s *Service) flushCache() { s.cache.flush() }
