package licensing_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/licensing"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// staticCatalog serves one catalog snapshot.
type staticCatalog struct{ c *catalog.Catalog }

func (s staticCatalog) Current(context.Context) (*catalog.Catalog, error) { return s.c, nil }

// seqIDs makes distinct, recognisable license ids.
type seqIDs struct{ n atomic.Int64 }

func (s *seqIDs) Hex32() string { return fmt.Sprintf("%032x", s.n.Add(1)) }

// fixture is a service over st with a small catalog: track 0 free,
// track 1 subscriber, track 2 enterprise-only.
type fixture struct {
	svc    *licensing.Service
	st     store.Store
	clock  *clock.Manual
	tracks []*catalog.Track
}

func newFixture(t testing.TB, st store.Store, ids licensing.IDSource) *fixture {
	t.Helper()
	c := catalogtest.Contents(4, 0)
	c.Tracks[1].AccessTier = catalog.TierSubscriber
	c.Tracks[2].AccessTier = catalog.TierEnterprise
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Date(2030, 11, 24, 10, 30, 0, 0, time.UTC))
	svc, err := licensing.New(licensing.Config{Store: st, Catalog: staticCatalog{cat}, Clock: clk, IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: svc, st: st, clock: clk, tracks: cat.Tracks()}
}

func client(id string, plan identity.Plan, q identity.Quotas) identity.Client {
	return identity.Client{ID: id, Name: "Partner " + id, Plan: plan, Status: identity.StatusActive,
		Scopes: []string{identity.ScopeLicenses}, Quotas: q}
}

// counterValue reads a quota counter directly from the Quotas table.
func counterValue(t testing.TB, st store.Store, clientID string, w quota.Window, now time.Time) int64 {
	t.Helper()
	u, err := quota.New(st, clock.NewManual(now)).Peek(context.Background(), licensing.QuotaScope, clientID, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	return u.Used
}

func TestConcurrentIdenticalCallsMakeOneLicense(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, nil)
		c := client("c-idem", identity.PlanEnterprise, identity.Quotas{LicenseBurst: 100})
		in := licensing.Input{UserID: " creator-1 ", TrackID: strings.ToUpper(f.tracks[0].ID), ProjectName: "Summer vlog"}
		const callers = 30
		var wg sync.WaitGroup
		results := make([]licensing.Result, callers)
		failures := make([]error, callers)
		for i := range callers {
			wg.Go(func() { results[i], failures[i] = f.svc.Generate(context.Background(), c, in) })
		}
		wg.Wait()
		created := 0
		for i := range callers {
			if failures[i] != nil {
				t.Fatalf("call %d: %v", i, failures[i])
			}
			if results[i].License.ID != results[0].License.ID {
				t.Errorf("call %d got license %s, call 0 %s", i, results[i].License.ID, results[0].License.ID)
			}
			if results[i].Created {
				created++
			}
			if results[i].Usage.DailyUsed != 1 || results[i].Usage.MonthlyUsed != 1 {
				t.Errorf("call %d usage %+v; want 1 used", i, results[i].Usage)
			}
		}
		if created != 1 {
			t.Errorf("%d calls created the license; want exactly 1", created)
		}
		l := results[0].License
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(l.ID) || l.UserID != "creator-1" ||
			l.TrackID != f.tracks[0].ID || l.ProjectName != "Summer vlog" || l.ClientName != "Partner c-idem" {
			t.Errorf("license %+v", l)
		}
		all, total, err := f.svc.List(context.Background(), c.ID, licensing.Filter{}, 100, 0)
		if err != nil || total != 1 || len(all) != 1 {
			t.Fatalf("listing after 30 identical calls: %d %v %v", total, all, err)
		}
		for _, w := range []quota.Window{licensing.BurstWindow, quota.Daily, quota.Monthly} {
			if n := counterValue(t, st, c.ID, w, f.clock.Now()); n != 1 {
				t.Errorf("%s counter %d; want 1", w, n)
			}
		}
		// A later repeat counts nothing either.
		again, err := f.svc.Generate(context.Background(), c, in)
		if err != nil || again.Created || again.License.ID != l.ID || again.Usage.DailyUsed != 1 {
			t.Errorf("repeat: %+v %v", again, err)
		}
	})
}

func TestConcurrentCallsStopAtTheDailyLimit(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, nil)
		c := client("c-quota", identity.PlanEnterprise, identity.Quotas{LicenseBurst: 100, LicenseDaily: 5})
		const callers = 50
		var wg sync.WaitGroup
		failures := make([]error, callers)
		results := make([]licensing.Result, callers)
		for i := range callers {
			wg.Go(func() {
				results[i], failures[i] = f.svc.Generate(context.Background(), c,
					licensing.Input{UserID: fmt.Sprintf("user-%02d", i), TrackID: f.tracks[i%4%2].ID})
			})
		}
		wg.Wait()
		ok, throttled := map[string]bool{}, 0
		for i, err := range failures {
			var qe *quota.ExceededError
			switch {
			case err == nil:
				ok[results[i].License.ID] = true
			case asExceeded(err, &qe) && errs.Is(err, errs.RateLimited):
				throttled++
				if qe.Usage.Window != quota.Daily || qe.Usage.Cap != 5 || !qe.Usage.ResetsAt.Equal(time.Date(2030, 11, 25, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("call %d: throttled by %+v", i, qe.Usage)
				}
			default:
				t.Errorf("call %d: %v", i, err)
			}
		}
		if len(ok) != 5 || throttled != 45 {
			t.Fatalf("%d licenses, %d throttled; want 5 and 45", len(ok), throttled)
		}
		all, total, err := f.svc.List(context.Background(), c.ID, licensing.Filter{}, 100, 0)
		if err != nil || total != 5 || len(all) != 5 {
			t.Fatalf("listing: %d %d %v", total, len(all), err)
		}
		for _, l := range all {
			if !ok[l.ID] {
				t.Errorf("listed license %s that no caller got", l.ID)
			}
			if _, err := f.svc.Get(context.Background(), c.ID, l.ID); err != nil {
				t.Errorf("license %s: %v", l.ID, err)
			}
		}
		for _, w := range []quota.Window{licensing.BurstWindow, quota.Daily, quota.Monthly} {
			if n := counterValue(t, st, c.ID, w, f.clock.Now()); n != 5 {
				t.Errorf("%s counter %d; want 5 (one per license)", w, n)
			}
		}
	})
}

func asExceeded(err error, qe **quota.ExceededError) bool { return errors.As(err, qe) }

func TestWindowsAndRetryAfterReset(t *testing.T) {
	f := newFixture(t, twintest.Bolt(t), nil)
	ctx := context.Background()
	c := client("c-win", identity.PlanEnterprise, identity.Quotas{LicenseBurst: 2, LicenseDaily: 3, LicenseMonthly: 4})
	gen := func(user string) error {
		_, err := f.svc.Generate(ctx, c, licensing.Input{UserID: user, TrackID: f.tracks[0].ID})
		return err
	}
	window := func(err error) quota.Window {
		var qe *quota.ExceededError
		if !errors.As(err, &qe) {
			t.Fatalf("not throttled: %v", err)
		}
		return qe.Usage.Window
	}
	for _, u := range []string{"a", "b"} {
		if err := gen(u); err != nil {
			t.Fatal(err)
		}
	}
	if w := window(gen("c")); w != licensing.BurstWindow {
		t.Errorf("third call in a minute hit %s; want the burst window", w)
	}
	f.clock.Advance(time.Minute)
	if err := gen("c"); err != nil {
		t.Fatalf("after the burst window: %v", err)
	}
	f.clock.Advance(time.Minute)
	if w := window(gen("d")); w != quota.Daily {
		t.Errorf("fourth call of the day hit %s", w)
	}
	f.clock.Advance(24 * time.Hour)
	if err := gen("d"); err != nil {
		t.Fatalf("next day: %v", err)
	}
	f.clock.Advance(24 * time.Hour)
	if w := window(gen("e")); w != quota.Monthly {
		t.Errorf("fifth call of the month hit %s", w)
	}
	// An existing license is returned even with every window used up.
	res, err := f.svc.Generate(ctx, c, licensing.Input{UserID: "a", TrackID: f.tracks[0].ID})
	if err != nil || res.Created || res.Usage.MonthlyUsed != 4 || res.Usage.MonthlyLimit != 4 || res.Usage.DailyLimit != 3 {
		t.Errorf("repeat over quota: %+v %v", res, err)
	}
}

func TestValidationNamesEachField(t *testing.T) {
	f := newFixture(t, twintest.Bolt(t), nil)
	c := client("c-val", identity.PlanEnterprise, identity.Quotas{})
	cases := []struct {
		in   licensing.Input
		want []string
	}{
		{licensing.Input{UserID: "u"}, []string{"track_id"}},
		{licensing.Input{UserID: "u", TrackID: "not-a-uuid"}, []string{"track_id"}},
		{licensing.Input{UserID: "u", TrackID: f.tracks[0].ID, ProjectName: strings.Repeat("é", 256)}, []string{"project_name"}},
		{licensing.Input{UserID: "u", TrackID: f.tracks[0].ID, ProjectName: "a\x00b"}, []string{"project_name"}},
		{licensing.Input{UserID: "   ", TrackID: f.tracks[0].ID}, []string{"X-User-ID"}},
		{licensing.Input{UserID: strings.Repeat("ü", 256), TrackID: f.tracks[0].ID}, []string{"X-User-ID"}},
		{licensing.Input{UserID: "tab\tinside", TrackID: f.tracks[0].ID}, []string{"X-User-ID"}},
		{licensing.Input{UserID: "", TrackID: "x", ProjectName: strings.Repeat("p", 300)}, []string{"X-User-ID", "project_name", "track_id"}},
	}
	for _, tc := range cases {
		_, err := f.svc.Generate(context.Background(), c, tc.in)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != licensing.CodeValidation {
			t.Errorf("%+v: %v; want validation_error", tc.in, err)
			continue
		}
		for _, field := range tc.want {
			if len(e.Fields[field]) == 0 {
				t.Errorf("%+v: details %v lack %s", tc.in, e.Fields, field)
			}
		}
		if len(e.Fields) != len(tc.want) {
			t.Errorf("%+v: details %v; want only %v", tc.in, e.Fields, tc.want)
		}
	}
	// 255 characters, whatever their byte length, are fine.
	if _, err := f.svc.Generate(context.Background(), c, licensing.Input{UserID: strings.Repeat("ü", 255),
		TrackID: f.tracks[0].ID, ProjectName: strings.Repeat("é", 255)}); err != nil {
		t.Errorf("255 characters: %v", err)
	}
	if _, total, _ := f.svc.List(context.Background(), c.ID, licensing.Filter{}, 10, 0); total != 1 {
		t.Errorf("%d licenses after the invalid calls and one valid; want 1", total)
	}
}

func TestTrackNotFoundForUnknownAndUnlicensableTracks(t *testing.T) {
	f := newFixture(t, twintest.Bolt(t), nil)
	cases := []struct {
		plan  identity.Plan
		track string
		ok    bool
	}{
		{identity.PlanEnterprise, "7c9e6679-7425-40de-944b-e07fc1f90ae7", false},
		{identity.PlanEnterprise, f.tracks[2].ID, true},
		{identity.PlanCommercial, f.tracks[2].ID, false}, // enterprise-only: not even visible
		{identity.PlanCommercial, f.tracks[1].ID, true},
		{identity.PlanFree, f.tracks[1].ID, false}, // visible, but the free plan does not cover it
		{identity.PlanFree, f.tracks[0].ID, true},
	}
	for i, tc := range cases {
		c := client(fmt.Sprint("c-plan-", i), tc.plan, identity.Quotas{})
		_, err := f.svc.Generate(context.Background(), c, licensing.Input{UserID: "u", TrackID: tc.track})
		var e *errs.Error
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s plan, track %s: %v", tc.plan, tc.track, err)
		case !tc.ok && (!errors.As(err, &e) || e.Code != licensing.CodeTrackNotFound || e.Kind != errs.NotFound):
			t.Errorf("%s plan, track %s: %v; want track_not_found", tc.plan, tc.track, err)
		}
		if !tc.ok && counterValue(t, f.st, c.ID, quota.Daily, f.clock.Now()) != 0 {
			t.Errorf("a refused call counted against the quota")
		}
	}
}

func TestListNewestFirstWithFilters(t *testing.T) {
	f := newFixture(t, twintest.Bolt(t), nil)
	ctx := context.Background()
	c := client("c-list", identity.PlanEnterprise, identity.Quotas{})
	other := client("c-other", identity.PlanEnterprise, identity.Quotas{})
	var made []licensing.License
	for i := range 7 {
		f.clock.Advance(time.Second)
		res, err := f.svc.Generate(ctx, c, licensing.Input{UserID: []string{"ann", "bob"}[i%2], TrackID: f.tracks[i%3].ID,
			ProjectName: fmt.Sprint("project ", i)})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, res.License)
	}
	if _, err := f.svc.Generate(ctx, other, licensing.Input{UserID: "ann", TrackID: f.tracks[0].ID}); err != nil {
		t.Fatal(err)
	}
	ids := func(ls []licensing.License) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.ProjectName[len("project "):])
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		f             licensing.Filter
		limit, offset int
		want          string
		total         int
	}{
		{licensing.Filter{}, 10, 0, "6,5,4,3,2,1,0", 7},
		{licensing.Filter{}, 3, 2, "4,3,2", 7},
		{licensing.Filter{}, 3, 6, "0", 7},
		{licensing.Filter{}, 3, 7, "", 7},
		{licensing.Filter{UserID: " ann "}, 10, 0, "6,4,2,0", 4},
		{licensing.Filter{UserID: "bob"}, 1, 1, "3", 3},
		{licensing.Filter{TrackID: strings.ToUpper(f.tracks[0].ID)}, 10, 0, "6,3,0", 3},
		{licensing.Filter{UserID: "ann", TrackID: f.tracks[0].ID}, 10, 0, "6,0", 2},
		{licensing.Filter{UserID: "ann", TrackID: f.tracks[0].ID}, 1, 1, "0", 2},
		{licensing.Filter{UserID: "nobody"}, 10, 0, "", 0},
	}
	for _, tc := range cases {
		got, total, err := f.svc.List(ctx, c.ID, tc.f, tc.limit, tc.offset)
		if err != nil || ids(got) != tc.want || total != tc.total {
			t.Errorf("List(%+v, %d, %d) = %s (%d), %v; want %s (%d)", tc.f, tc.limit, tc.offset, ids(got), total, err, tc.want, tc.total)
		}
	}
	if _, _, err := f.svc.List(ctx, c.ID, licensing.Filter{TrackID: "nope"}, 10, 0); errs.KindOf(err) != errs.Invalid {
		t.Errorf("bad track filter: %v", err)
	}
	// Lookups: the issuing client only; the public record for anyone.
	if _, err := f.svc.Get(ctx, other.ID, made[0].ID); errs.KindOf(err) != errs.NotFound {
		t.Errorf("another client's license: %v", err)
	}
	got, err := f.svc.Get(ctx, c.ID, made[0].ID)
	if err != nil || got.ID != made[0].ID || !got.CreatedAt.Equal(made[0].CreatedAt) || got.TrackName != f.tracks[0].DisplayName() {
		t.Errorf("Get = %+v, %v", got, err)
	}
	for _, id := range []string{"", "xyz", strings.Repeat("0", 32)} {
		if _, err := f.svc.Public(ctx, id); errs.KindOf(err) != errs.NotFound {
			t.Errorf("Public(%q): %v", id, err)
		}
	}
	// Hex ids are case-insensitive, as every other id of the API is.
	if got, err := f.svc.Public(ctx, strings.ToUpper(made[0].ID)); err != nil || got.ID != made[0].ID {
		t.Errorf("Public(upper case) = %+v, %v", got, err)
	}
}

func TestRandomLicenseIDs(t *testing.T) {
	f := newFixture(t, twintest.Bolt(t), nil) // the production id source
	c := client("c-ids", identity.PlanEnterprise, identity.Quotas{})
	seen := map[string]bool{}
	for i := range 20 {
		res, err := f.svc.Generate(context.Background(), c, licensing.Input{UserID: fmt.Sprint("u", i), TrackID: f.tracks[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		if !licensing.ValidID(res.License.ID) || seen[res.License.ID] {
			t.Errorf("license id %q", res.License.ID)
		}
		seen[res.License.ID] = true
	}
}

func TestIDCollisionNeverOverwrites(t *testing.T) {
	ids := &seqIDs{}
	f := newFixture(t, twintest.Bolt(t), ids)
	c := client("c-coll", identity.PlanEnterprise, identity.Quotas{})
	first, err := f.svc.Generate(context.Background(), c, licensing.Input{UserID: "a", TrackID: f.tracks[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	ids.n.Store(0) // the next id repeats the first one, then moves on
	second, err := f.svc.Generate(context.Background(), c, licensing.Input{UserID: "b", TrackID: f.tracks[0].ID})
	if err != nil || second.License.ID == first.License.ID {
		t.Fatalf("second license %+v, %v", second.License, err)
	}
	if l, _ := f.svc.Public(context.Background(), first.License.ID); l.UserID != "a" {
		t.Errorf("first license overwritten: %+v", l)
	}
	if n := counterValue(t, f.st, c.ID, quota.Daily, f.clock.Now()); n != 2 {
		t.Errorf("daily counter %d after two licenses and one collided attempt", n)
	}
}

func TestContentionIsRetried(t *testing.T) {
	st := &twintest.Contended{Store: twintest.Bolt(t)}
	f := newFixture(t, st, nil)
	c := client("c-cont", identity.PlanEnterprise, identity.Quotas{})
	st.N.Store(2)
	res, err := f.svc.Generate(context.Background(), c, licensing.Input{UserID: "u", TrackID: f.tracks[0].ID})
	if err != nil || !res.Created || res.Usage.DailyUsed != 1 {
		t.Fatalf("after two contended attempts: %+v %v", res, err)
	}
	st.N.Store(100)
	_, err = f.svc.Generate(context.Background(), c, licensing.Input{UserID: "v", TrackID: f.tracks[0].ID})
	if errs.KindOf(err) != errs.Internal || !errors.Is(err, store.ErrContention) {
		t.Errorf("contended on every attempt: %v; want an internal error", err)
	}
	if _, total, _ := f.svc.List(context.Background(), c.ID, licensing.Filter{}, 10, 0); total != 1 {
		t.Errorf("%d licenses; want 1", total)
	}
}
