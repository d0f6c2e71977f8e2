package allowlist_test

import (
	"sync"
	"testing"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// TestCountDoesNotDriftUnderChurn: concurrent adds and removes of the same
// few channels around the cap (repeated adds that are no-ops, removes
// that miss, adds refused as full) leave the count equal to what is
// listed: afterwards exactly cap minus the listed number of new channels
// can be added, no more and no fewer.
func TestCountDoesNotDriftUnderChurn(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		svc := allowlist.New(st, clock.Real{})
		const limit = 3
		allowlist.SetMaxChannels(svc, limit)
		o := allowlist.Owner{ClientID: "c1"}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 12 {
					ch := channel((g + i) % 5)
					if (g+i)%3 == 0 {
						c, _, err := svc.Add(ctx, o, ch)
						if err == nil {
							err = svc.Remove(ctx, o, c.ID)
						}
						if err != nil && !errs.Is(err, errs.NotFound) && !errs.Is(err, errs.Invalid) && !errs.Is(err, errs.Unavailable) {
							t.Error(err)
						}
						continue
					}
					if _, _, err := svc.Add(ctx, o, ch); err != nil && !errs.Is(err, errs.Invalid) && !errs.Is(err, errs.Unavailable) {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		_, listed, err := svc.List(ctx, o, 50, 0)
		if err != nil {
			t.Fatal(err)
		}
		added := 0
		for i := 50; i < 60; i++ {
			_, created, err := svc.Add(ctx, o, channel(i))
			switch {
			case err == nil && created:
				added++
			case !errs.Is(err, errs.Invalid):
				t.Fatal(err)
			}
		}
		if listed+added != limit {
			t.Errorf("after the churn %d listed, then %d more added; want %d in all (the count drifted)", listed, added, limit)
		}
	})
}
