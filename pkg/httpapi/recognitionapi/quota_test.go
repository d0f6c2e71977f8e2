package recognitionapi

import (
	"errors"
	"testing"
	"time"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/quota"
)

// TestQuotaErrorUsesTheInjectedClock: the 429 of §7.2 says when the
// daily quota resets (resets_in, Retry-After) by the clock the quota was
// taken with, not the wall clock (which made them disagree with resets_at
// under any other clock), and never tells a client to wait 0 or less.
func TestQuotaErrorUsesTheInjectedClock(t *testing.T) {
	now := time.Date(2031, 3, 4, 22, 0, 0, 0, time.UTC)
	exceeded := &quota.ExceededError{Usage: quota.Usage{Scope: "compliance_check", Window: quota.Daily, Cap: 2, Used: 2,
		ResetsAt: time.Date(2031, 3, 5, 0, 0, 0, 0, time.UTC)}}
	var e *errs.Error
	if !errors.As(quotaError(exceeded, now), &e) {
		t.Fatal("not an errs.Error")
	}
	body, _ := e.Body.(quotaExceededBody)
	if e.Kind != errs.RateLimited || e.RetryAfter != 2*time.Hour || body.ResetsIn != "2h0m0s" ||
		body.ResetsAt != "2031-03-05T00:00:00Z" || body.Cap != 2 || body.Used != 2 || body.Window != "daily" {
		t.Errorf("429 = %+v, body %+v", e, body)
	}
	if !errors.As(quotaError(exceeded, now.Add(3*time.Hour)), &e) || e.RetryAfter < time.Second {
		t.Errorf("a reset in the past: Retry-After %v", e.RetryAfter)
	}
}
