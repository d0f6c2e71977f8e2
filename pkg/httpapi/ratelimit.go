package httpapi

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
)

// RateLimits are requests per minute for the throttled areas (search,
// playlists; interface.md §5, §8). Zero disables that tier.
type RateLimits struct {
	AnonymousPerMinute     int
	AuthenticatedPerMinute int
	// AnalysesPerMinute bounds the calls per caller that may analyze
	// media (soundtrack uploads, by-url and by-video searches), each
	// seconds of ffmpeg and CPU, on top of the search rate.
	AnalysesPerMinute int
}

// limiter is a token bucket per caller, held in memory per instance.
//
// Request-rate limits protect the service; they are not a billing meter,
// so they are not worth a DynamoDB write (and its cost and latency) on
// every request. Contractual quotas (recognition, licenses) are exact
// counters in the Quotas table instead. On AWS, API Gateway's route
// throttling adds a global ceiling.
type limiter struct {
	clock   clock.Clock
	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(c clock.Clock) *limiter {
	return &limiter{clock: c, buckets: map[string]*bucket{}}
}

// allow takes one token from key's bucket of perMinute capacity refilled
// continuously; when empty it says how long until the next token.
func (l *limiter) allow(key string, perMinute int) (bool, time.Duration) {
	if perMinute <= 0 {
		return true, 0
	}
	now := l.clock.Now()
	rate := float64(perMinute) / 60 // tokens per second
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if now.Sub(b.last) > time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: float64(perMinute), last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(float64(perMinute), b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / rate * float64(time.Second))
	return false, wait
}

// Throttle applies the anonymous or authenticated request rate to r.
func (a *API) Throttle(r *http.Request, p *identity.Principal) error {
	key, limit := "ip:"+clientIP(r), a.Limits.AnonymousPerMinute
	if p != nil {
		key, limit = p.ID(), a.Limits.AuthenticatedPerMinute
	}
	return throttled(a.limiter.allow(key, limit))
}

// throttled is the 429 of a refused token, nil when allowed.
func throttled(ok bool, wait time.Duration) error {
	if ok {
		return nil
	}
	return &errs.Error{Op: "httpapi.Throttle", Kind: errs.RateLimited, RetryAfter: max(wait, time.Second),
		Detail: "Request was throttled. Expected available in " + strconv.Itoa(int(math.Ceil(wait.Seconds()))) + " seconds."}
}

// ThrottleAnalysis applies the analysis rate to a call that may analyze
// media, per client (per address when anonymous).
func (a *API) ThrottleAnalysis(r *http.Request, p *identity.Principal) error {
	key := "analysis:ip:" + clientIP(r)
	if p != nil {
		key = "analysis:" + p.ID()
	}
	return throttled(a.limiter.allow(key, a.Limits.AnalysesPerMinute))
}

func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
