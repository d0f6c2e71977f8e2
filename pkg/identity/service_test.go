package identity_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/store/twintest"
)

func newService(t *testing.T, c clock.Clock, cacheTTL time.Duration) (*identity.Service, store.Store) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return identity.New(st, c, ids.Random{}, cacheTTL), st
}

func TestTokensAreStoredOnlyAsDigests(t *testing.T) {
	svc, st := newService(t, clock.Real{}, 0)
	ctx := context.Background()
	_, key, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanCommercial, Scopes: []string{identity.ScopeComplianceCheck}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, store.Accounts, store.Key{PK: "TOKEN#" + key, SK: "TOKEN"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("token stored in clear: %v", err)
	}
	it, err := st.Get(ctx, store.Accounts, store.Key{PK: "TOKEN#" + ids.HashToken(key), SK: "TOKEN"})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range it.Attrs {
		if s, ok := v.(string); ok && s == key {
			t.Errorf("attribute %s holds the token", name)
		}
	}
	p, err := svc.Authenticate(ctx, key)
	if err != nil || !p.HasScope(identity.ScopeComplianceCheck) || p.HasScope(identity.ScopeLicenses) || p.User != nil {
		t.Errorf("principal %+v, %v", p, err)
	}
}

func TestAuthenticateOutcomes(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	svc, _ := newService(t, c, 0)
	ctx := context.Background()
	cl, key, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanEnterprise, CanDownload: true})
	if err != nil {
		t.Fatal(err)
	}
	u, userTok, err := svc.CreateUser(ctx, cl.ID, "alice", "Alice")
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Authenticate(ctx, userTok)
	if err != nil || p.User == nil || p.User.ID != u.ID || p.Client.ID != cl.ID || !p.Client.CanDownload {
		t.Fatalf("user principal %+v, %v", p, err)
	}
	short, err := svc.CreateToken(ctx, cl.ID, "", c.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	check := func(tok string, want error) {
		t.Helper()
		if _, err := svc.Authenticate(ctx, tok); !errors.Is(err, want) {
			t.Errorf("Authenticate: %v, want %v", err, want)
		}
	}
	check("", identity.ErrMissingToken)
	check("mcat_unknown", identity.ErrInvalidToken)
	check(short, nil)
	c.Advance(time.Hour)
	check(short, identity.ErrExpiredToken)
	if err := svc.SetClientStatus(ctx, cl.ID, identity.StatusInactive); err != nil {
		t.Fatal(err)
	}
	check(key, identity.ErrInactiveClient)
	check(userTok, identity.ErrInactiveClient)
	if err := svc.SetClientStatus(ctx, cl.ID, identity.StatusActive); err != nil {
		t.Fatal(err)
	}
	if err := svc.RevokeToken(ctx, key); err != nil {
		t.Fatal(err)
	}
	check(key, identity.ErrRevokedToken)
	check(userTok, nil)
	n, err := svc.RevokeClientTokens(ctx, cl.ID)
	if err != nil || n != 2 { // the user token and the expired one; the key was already revoked
		t.Errorf("RevokeClientTokens = %d, %v; want 2", n, err)
	}
	check(userTok, identity.ErrRevokedToken)
}

// revokedWhileCached returns a service with a 10 s principal cache on a
// manual clock and a partner key it has authenticated (so cached) that
// another instance (e.g. the admin CLI) has since revoked.
func revokedWhileCached(t *testing.T) (*clock.Manual, *identity.Service, string) {
	t.Helper()
	c := clock.NewManual(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	svc, st := newService(t, c, 10*time.Second)
	other := identity.New(st, c, ids.Random{}, 0)
	ctx := context.Background()
	_, key, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := other.RevokeToken(ctx, key); err != nil {
		t.Fatal(err)
	}
	return c, svc, key
}

func TestCacheBoundsRevocationDelay(t *testing.T) {
	c, svc, key := revokedWhileCached(t)
	ctx := context.Background()
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Errorf("within the cache TTL the cached principal is used: %v", err)
	}
	c.Advance(10 * time.Second)
	if _, err := svc.Authenticate(ctx, key); !errors.Is(err, identity.ErrRevokedToken) {
		t.Errorf("after the cache TTL: %v, want revoked", err)
	}
}

func TestCreateValidation(t *testing.T) {
	svc, _ := newService(t, clock.Real{}, 0)
	ctx := context.Background()
	if _, _, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: "gold"}); !errs.Is(err, errs.Invalid) {
		t.Errorf("bad plan: %v", err)
	}
	if _, _, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanFree, Scopes: []string{"root"}}); !errs.Is(err, errs.Invalid) {
		t.Errorf("bad scope: %v", err)
	}
	cl, _, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.CreateUser(ctx, cl.ID, "bob", "Bob"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.CreateUser(ctx, cl.ID, "BOB", "Bob 2"); !errs.Is(err, errs.Invalid) {
		t.Errorf("duplicate username (case-insensitive): %v", err)
	}
	if _, _, err := svc.CreateUser(ctx, cl.ID, "has space", "x"); !errs.Is(err, errs.Invalid) {
		t.Errorf("bad username: %v", err)
	}
	if _, _, err := svc.CreateUser(ctx, "00000000-0000-4000-8000-000000000000", "carol", "x"); !errs.Is(err, errs.NotFound) {
		t.Errorf("unknown client: %v", err)
	}
}

func TestCachedTokenStopsWorkingWhenItExpires(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	svc, _ := newService(t, c, 10*time.Second)
	ctx := context.Background()
	cl, _, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanFree})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := svc.CreateToken(ctx, cl.ID, "", c.Now().Add(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, tok); err != nil { // cached now
		t.Fatal(err)
	}
	c.Advance(3*time.Second - time.Nanosecond)
	if _, err := svc.Authenticate(ctx, tok); err != nil {
		t.Errorf("just before its expiry: %v", err)
	}
	c.Advance(time.Nanosecond)
	if _, err := svc.Authenticate(ctx, tok); !errors.Is(err, identity.ErrExpiredToken) {
		t.Errorf("at its expiry, within the cache TTL: %v, want expired", err)
	}
}

func TestInvalidTokensCannotFlushCachedPrincipals(t *testing.T) {
	// Revoked elsewhere: while the principal stays cached, this instance
	// still answers from its cache, which is what the flood must not change.
	_, svc, key := revokedWhileCached(t)
	ctx := context.Background()
	for i := range 20000 {
		if _, err := svc.Authenticate(ctx, fmt.Sprintf("mcat_guess%d", i)); !errors.Is(err, identity.ErrInvalidToken) {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Errorf("a flood of invalid tokens evicted a valid cached principal: %v", err)
	}
}

// TestRevokeClientTokensCoversUnindexedAndCachedTokens: the token index
// (GSI1) is eventually consistent, so a token issued just before the
// revocation may not be listed yet; it is revoked all the same. Another
// instance that cached the principal trusts it at most its cache TTL.
// A token issued after the revocation works.
func TestRevokeClientTokensCoversUnindexedAndCachedTokens(t *testing.T) {
	for _, tw := range twintest.Twins() {
		t.Run(tw.Name, func(t *testing.T) {
			c := clock.NewManual(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
			st := &twintest.LaggingIndex{Store: tw.Open(t)}
			admin := identity.New(st, c, ids.Random{}, 0)
			api := identity.New(st, c, ids.Random{}, 10*time.Second) // another instance, with its cache
			ctx := context.Background()
			cl, key, err := admin.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanEnterprise})
			if err != nil {
				t.Fatal(err)
			}
			st.Lag() // what follows is not in the index yet
			_, userTok, err := admin.CreateUser(ctx, cl.ID, "alice", "Alice")
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := admin.CreateToken(ctx, cl.ID, "", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := api.Authenticate(ctx, fresh); err != nil { // cached by the other instance
				t.Fatal(err)
			}
			n, err := admin.RevokeClientTokens(ctx, cl.ID)
			if err != nil || n != 1 {
				t.Fatalf("RevokeClientTokens = %d, %v; want the one indexed token", n, err)
			}
			for name, tok := range map[string]string{"indexed key": key, "unindexed user token": userTok, "unindexed key": fresh} {
				if _, err := admin.Authenticate(ctx, tok); !errors.Is(err, identity.ErrRevokedToken) {
					t.Errorf("%s: %v, want revoked", name, err)
				}
			}
			if _, err := api.Authenticate(ctx, fresh); err != nil {
				t.Errorf("within the other instance's cache TTL its cached principal is used: %v", err)
			}
			c.Advance(10 * time.Second)
			if _, err := api.Authenticate(ctx, fresh); !errors.Is(err, identity.ErrRevokedToken) {
				t.Errorf("other instance after its cache TTL: %v, want revoked", err)
			}
			after, err := admin.CreateToken(ctx, cl.ID, "", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := api.Authenticate(ctx, after); err != nil {
				t.Errorf("a token issued after the revocation: %v", err)
			}
			got, err := admin.GetClient(ctx, cl.ID)
			if err != nil || got.TokenEpoch != 1 || !got.TokensRevokedAt.Equal(c.Now().Add(-10*time.Second)) {
				t.Errorf("client after revocation: epoch %d, revoked at %v (%v)", got.TokenEpoch, got.TokensRevokedAt, err)
			}
			if _, err := admin.RevokeClientTokens(ctx, "00000000-0000-4000-8000-000000000000"); !errs.Is(err, errs.NotFound) {
				t.Errorf("unknown client: %v", err)
			}
		})
	}
}
