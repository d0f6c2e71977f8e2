package idempotency_test

import (
	"context"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
)

// TestRequestIDIsTheSameForEveryRunOfARequest: a run whose claim was
// released (it failed) and the retry that claims the key again get the
// same RequestID, so what the first run wrote can be found; another
// fingerprint or principal gets another.
func TestRequestIDIsTheSameForEveryRunOfARequest(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store, c *clock.Manual) {
		ctx := context.Background()
		s := idempotency.New(st, c)
		id := func(scope, key, fp string) string {
			t.Helper()
			claim, _, err := s.Acquire(ctx, scope, key, fp, time.Second)
			if err != nil || claim == nil {
				t.Fatalf("Acquire %s %s %s: %v", scope, key, fp, err)
			}
			defer claim.Release(ctx)
			got := claim.RequestID()
			if !ids.IsUUID(got) {
				t.Fatalf("RequestID %q is not a UUID", got)
			}
			if from := idempotency.RequestIDFrom(idempotency.WithRequestID(ctx, got)); from != got {
				t.Fatalf("through the context: %q, want %q", from, got)
			}
			return got
		}
		first := id("user:a", "k1", "fp1")
		if again := id("user:a", "k1", "fp1"); again != first {
			t.Errorf("the retry's RequestID %s differs from the first run's %s", again, first)
		}
		for _, other := range [][3]string{{"user:a", "k1", "fp2"}, {"user:b", "k1", "fp1"}, {"user:a", "k2", "fp1"}} {
			if got := id(other[0], other[1], other[2]); got == first {
				t.Errorf("%v has the RequestID of user:a/k1/fp1", other)
			}
		}
		if got := idempotency.RequestIDFrom(ctx); got != "" {
			t.Errorf("a context without a claim: %q", got)
		}
	})
}
