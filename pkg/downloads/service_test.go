package downloads_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

type fixed struct{ c *catalog.Catalog }

func (f fixed) Current(context.Context) (*catalog.Catalog, error) { return f.c, nil }

// TestCountsAreExactOnBothTwins downloads 30 tracks concurrently, six
// times each, on both sides of a month boundary, and checks every count on
// the bolt twin and on DynamoDB Local.
func TestCountsAreExactOnBothTwins(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		bs := catalogtest.NewStore(t)
		cc := catalogtest.Contents(30, 0)
		for _, tr := range cc.Tracks {
			for _, k := range []string{tr.Audio.MP3Key, tr.Audio.WAVKey} {
				if err := bs.Put(ctx, k, strings.NewReader("audio"), -1, "audio/mpeg"); err != nil {
					t.Fatal(err)
				}
			}
		}
		cat, err := catalog.New(cc)
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.NewManual(time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC))
		svc, err := downloads.New(downloads.Config{Store: st, Blob: bs, Catalog: fixed{cat}, Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanCommercial, Status: identity.StatusActive}}
		const perTrack = 6
		run := func() {
			var wg sync.WaitGroup
			errc := make(chan error, len(cc.Tracks)*perTrack)
			for i, tr := range cc.Tracks {
				for j := range perTrack {
					wg.Add(1)
					go func() {
						defer wg.Done()
						req := downloads.Request{Type: "track", ConfirmPersonalUse: j == 0}
						if (i+j)%2 == 1 {
							req.Formats = []string{"wav"}
						}
						_, err := svc.Audio(ctx, p, tr.ID, req)
						errc <- err
					}()
				}
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		run()
		clk.Advance(2 * time.Minute) // November
		run()
		run()
		for month, times := range map[string]int64{"2026-10": 1, "2026-11": 2} {
			rows, err := svc.Report(ctx, "c1", month)
			if err != nil || len(rows) != len(cc.Tracks) {
				t.Fatalf("%s: %d rows, %v", month, len(rows), err)
			}
			for _, r := range rows {
				if r.Downloads != perTrack*times || r.MP3+r.WAV != r.Downloads || r.MP3 != perTrack/2*times || r.PersonalUseConfirmed != times {
					t.Errorf("%s: %+v", month, r)
				}
			}
		}
	})
}
