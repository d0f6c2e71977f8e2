package identity

import (
	"sync"
	"time"
)

// Bounds of the token cache (DESIGN.md §6). Valid tokens and failures are
// kept apart, so a flood of made-up tokens can only ever push out other
// failures, never the principals of real callers.
const (
	// maxCachedPrincipals bounds the valid tokens one instance remembers;
	// only issued tokens can land here.
	maxCachedPrincipals = 10000
	// maxCachedFailures bounds the remembered failures (unknown, revoked,
	// expired tokens, inactive clients): anyone can make these up.
	maxCachedFailures = 4096
)

// tokenCache remembers resolved tokens for ttl. A valid token's entry
// carries the token's own expiry, checked on every hit, so an expiring
// token stops working at the instant it expires, not up to ttl later.
type tokenCache struct {
	ttl time.Duration

	mu   sync.Mutex
	good map[string]goodEntry
	bad  map[string]badEntry
}

type goodEntry struct {
	p       Principal
	expires time.Time // the token's expiry; zero: never
	fetched time.Time
}

type badEntry struct {
	err     error
	fetched time.Time
}

func newTokenCache(ttl time.Duration) *tokenCache {
	return &tokenCache{ttl: ttl, good: map[string]goodEntry{}, bad: map[string]badEntry{}}
}

// get returns the cached outcome for a token digest at now, if any.
func (c *tokenCache) get(hash string, now time.Time) (Principal, error, bool) {
	if c.ttl <= 0 {
		return Principal{}, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.good[hash]; ok && now.Sub(e.fetched) < c.ttl {
		if !e.expires.IsZero() && !now.Before(e.expires) {
			delete(c.good, hash)
			c.putBadLocked(hash, ErrExpiredToken, now)
			return Principal{}, ErrExpiredToken, true
		}
		return e.p, nil, true
	}
	if e, ok := c.bad[hash]; ok && now.Sub(e.fetched) < c.ttl {
		return Principal{}, e.err, true
	}
	return Principal{}, nil, false
}

// putGood remembers a valid token whose own expiry is expires (zero: none).
func (c *tokenCache) putGood(hash string, p Principal, expires, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.bad, hash)
	if _, ok := c.good[hash]; !ok && len(c.good) >= maxCachedPrincipals {
		sweep(c.good, func(e goodEntry) bool { return now.Sub(e.fetched) >= c.ttl })
		if len(c.good) >= maxCachedPrincipals {
			return // full of live entries: serve this one from the store
		}
	}
	c.good[hash] = goodEntry{p: p, expires: expires, fetched: now}
}

// putBad remembers a failed resolution.
func (c *tokenCache) putBad(hash string, err error, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putBadLocked(hash, err, now)
}

func (c *tokenCache) putBadLocked(hash string, err error, now time.Time) {
	delete(c.good, hash)
	if _, ok := c.bad[hash]; !ok && len(c.bad) >= maxCachedFailures {
		sweep(c.bad, func(e badEntry) bool { return now.Sub(e.fetched) >= c.ttl })
		if len(c.bad) >= maxCachedFailures {
			clear(c.bad) // a flood of made-up tokens: start over, valid ones untouched
		}
	}
	c.bad[hash] = badEntry{err: err, fetched: now}
}

func (c *tokenCache) flush() {
	c.mu.Lock()
	clear(c.good)
	clear(c.bad)
	c.mu.Unlock()
}

func sweep[E any](m map[string]E, stale func(E) bool) {
	for k, e := range m {
		if stale(e) {
			delete(m, k)
		}
	}
}
