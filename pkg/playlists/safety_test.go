package playlists_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/store/twintest"
)

// TestUpdateWithNothingNewWritesNothing: a PATCH without fields, or with
// the values the playlist already has (a retry), changes nothing: same
// version, same updated_at, as read back from the store.
func TestUpdateWithNothingNewWritesNothing(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, st, 2)
			ctx := t.Context()
			created, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Calm", Description: "quiet"})
			if err != nil {
				t.Fatal(err)
			}
			same, desc := "Calm", "quiet"
			for _, in := range []playlists.UpdateInput{{}, {Name: &same}, {Name: &same, Description: &desc}} {
				got, err := f.svc.Update(ctx, f.owner, created.Slug, in)
				if err != nil {
					t.Fatal(err)
				}
				stored, err := f.svc.Get(ctx, f.owner, created.Slug)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range []playlists.View{got, stored} {
					if v.Version != created.Version || !v.UpdatedAt.Equal(created.UpdatedAt) || v.Name != "Calm" || v.Description != "quiet" {
						t.Errorf("update %+v: version %d updated_at %v, want %d %v unchanged",
							in, v.Version, v.UpdatedAt, created.Version, created.UpdatedAt)
					}
				}
			}
			// A real change still writes.
			other := "Loud"
			got, err := f.svc.Update(ctx, f.owner, created.Slug, playlists.UpdateInput{Name: &other})
			if err != nil || got.Version != created.Version+1 || got.Name != "Loud" {
				t.Fatalf("rename: %+v %v", got.Playlist, err)
			}
		})
	}
}

// TestConcurrentRenameAndEditsKeepEveryChange: renames, description
// changes, item adds and shares of one playlist at once; every change
// survives (no write is based on a stale copy).
func TestConcurrentRenameAndEditsKeepEveryChange(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, st, 12)
			ctx := t.Context()
			p, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Mix"})
			if err != nil {
				t.Fatal(err)
			}
			friends := []playlists.Caller{f.user(t, "a"), f.user(t, "b"), f.user(t, "c")}
			desc := "shared mix"
			var wg sync.WaitGroup
			fail := make(chan error, 32)
			run := func(fn func() error) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := fn(); err != nil {
						fail <- err
					}
				}()
			}
			for i := 2; i < 12; i++ { // track 1 is enterprise-only
				run(func() error {
					_, err := f.svc.ChangeItems(ctx, f.owner, p.Slug, true, playlists.ItemsInput{Tracks: []string{f.trackID(i)}})
					return err
				})
			}
			for _, u := range friends {
				run(func() error {
					_, _, err := f.svc.AddCollaborator(ctx, f.owner, p.Slug, playlists.CollaboratorInput{UserID: u.User.ID})
					return err
				})
			}
			run(func() error {
				_, err := f.svc.Update(ctx, f.owner, p.Slug, playlists.UpdateInput{Description: &desc})
				return err
			})
			wg.Wait()
			close(fail)
			for err := range fail {
				t.Fatal(err)
			}
			v, err := f.svc.Get(ctx, f.owner, p.Slug)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Items) != 10 || len(v.Collaborators) != 3 || v.Description != desc || v.Version != p.Version+14 {
				t.Fatalf("after concurrent edits: %d items, %d collaborators, %q, version %d (want 10, 3, %q, %d)",
					len(v.Items), len(v.Collaborators), v.Description, v.Version, desc, p.Version+14)
			}
			for _, u := range friends {
				if _, err := f.svc.Get(ctx, u, p.ID); err != nil {
					t.Errorf("collaborator %s cannot see the playlist: %v", u.User.Username, err)
				}
			}
		})
	}
}

// TestContendedTransactionsAreRetried: a transaction that kept colliding
// (DynamoDB TransactionConflict through the adapter's retries) wrote
// nothing, so create, share and delete try again instead of a 500.
func TestContendedTransactionsAreRetried(t *testing.T) {
	st := &twintest.Contended{Store: bolt(t)}
	f := newFixture(t, st, 2)
	ctx := t.Context()
	friend := f.user(t, "friend")
	st.N.Store(2)
	p, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Busy"})
	if err != nil || p.Slug != "busy" {
		t.Fatalf("create: %+v %v", p.Playlist, err)
	}
	st.N.Store(2)
	if _, created, err := f.svc.AddCollaborator(ctx, f.owner, "busy", playlists.CollaboratorInput{UserID: friend.User.ID}); err != nil || !created {
		t.Fatalf("share: %v %v", created, err)
	}
	if _, err := f.svc.Get(ctx, friend, p.ID); err != nil {
		t.Fatalf("the collaborator cannot see it: %v", err)
	}
	st.N.Store(2)
	if err := f.svc.Delete(ctx, f.owner, "busy"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	for _, c := range []playlists.Caller{f.owner, friend} {
		if _, err := f.svc.Get(ctx, c, p.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("after delete: %v", err)
		}
	}
}

// TestOwnedPlaylistsAreCapped: concurrent creates stop exactly at the
// number one user may own (counted in each create's transaction, not
// before it); one over is 400 with the reason and writes nothing; a
// delete makes room; playlists shared with a user do not count for them.
func TestOwnedPlaylistsAreCapped(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, st, 2)
			playlists.SetMaxOwned(f.svc, 3)
			ctx := t.Context()
			friend := f.user(t, "friend")
			var wg sync.WaitGroup
			var created atomic.Int64
			fail := make(chan error, 10)
			for i := range 10 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: fmt.Sprint("Mix ", i%4)})
					var e *errs.Error
					switch {
					case err == nil:
						created.Add(1)
					case errors.As(err, &e) && e.Kind == errs.Invalid && strings.Contains(e.Detail, "own 3 playlists"):
					default:
						fail <- err
					}
				}()
			}
			wg.Wait()
			close(fail)
			for err := range fail {
				t.Error(err)
			}
			views, n, err := f.svc.List(ctx, f.owner, 50, 0)
			if err != nil || n != 3 || created.Load() != 3 {
				t.Fatalf("after 10 concurrent creates: %d listed, %d created (%v); want 3", n, created.Load(), err)
			}
			for _, v := range views {
				if _, _, err := f.svc.AddCollaborator(ctx, f.owner, v.Slug, playlists.CollaboratorInput{UserID: friend.User.ID}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 3 {
				if _, _, err := f.svc.Create(ctx, friend, playlists.CreateInput{Name: fmt.Sprint("Own ", i)}); err != nil {
					t.Fatalf("the collaborator's own playlist %d: %v", i, err)
				}
			}
			if err := f.svc.Delete(ctx, f.owner, views[0].Slug); err != nil {
				t.Fatal(err)
			}
			if _, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Again"}); err != nil {
				t.Fatalf("create after a delete: %v", err)
			}
			if _, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Over"}); !errs.Is(err, errs.Invalid) {
				t.Errorf("create over the cap: %v", err)
			}
		})
	}
}
