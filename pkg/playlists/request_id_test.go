package playlists_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/store"
)

// TestCreateWithARequestIDRunsOnce: a create run again with the same
// RequestID (a retry of a request whose answer was lost) returns the
// playlist the first run wrote, with its items result, and writes
// nothing; a create without one, or with another, makes a new playlist.
func TestCreateWithARequestIDRunsOnce(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, st, 4)
			ctx := t.Context()
			in := playlists.CreateInput{Name: "Mix", Items: playlists.ItemsInput{Tracks: []string{f.trackID(0), f.trackID(1), f.trackID(0)}},
				RequestID: ids.NewUUID()}
			first, res1, err := f.svc.Create(ctx, f.owner, in)
			if err != nil {
				t.Fatal(err)
			}
			if first.ID != in.RequestID {
				t.Errorf("id %s, want the RequestID %s", first.ID, in.RequestID)
			}
			again, res2, err := f.svc.Create(ctx, f.owner, in)
			if err != nil || again.ID != first.ID || again.Slug != "mix" || again.Version != first.Version ||
				res2.Added != res1.Added || len(res2.Skipped) != len(res1.Skipped) || len(res2.Duplicated) != len(res1.Duplicated) {
				t.Fatalf("run again: %+v %+v %v; want %+v %+v", again.Playlist, res2, err, first.Playlist, res1)
			}
			in.RequestID = ids.NewUUID()
			other, _, err := f.svc.Create(ctx, f.owner, in)
			if err != nil || other.ID == first.ID || other.Slug != "mix-2" {
				t.Fatalf("another request: %+v %v", other.Playlist, err)
			}
			if _, n, err := f.svc.List(ctx, f.owner, 10, 0); err != nil || n != 2 {
				t.Errorf("%d playlists (%v); want 2", n, err)
			}
		})
	}
}

// lostAnswer is a store whose next playlist write commits and then
// answers an error, as a DynamoDB call that timed out after the commit.
type lostAnswer struct {
	store.Store
	armed atomic.Bool
}

func (l *lostAnswer) lose(err error) error {
	if err == nil && l.armed.CompareAndSwap(true, false) {
		return context.DeadlineExceeded
	}
	return err
}

func (l *lostAnswer) Put(ctx context.Context, t store.Table, it store.Item, c store.Condition) error {
	return l.lose(l.Store.Put(ctx, t, it, c))
}

func (l *lostAnswer) Transact(ctx context.Context, ops []store.TxOp) error {
	return l.lose(l.Store.Transact(ctx, ops))
}

// TestChangesWithARequestIDApplyOnce: an add, a remove, a reorder, a
// rename and a share whose write committed but whose answer was an error
// are retried with the same RequestID (an Idempotency-Key's): the retry
// answers what the committed run did and applies nothing again, even
// after other requests changed the playlist meanwhile.
func TestChangesWithARequestIDApplyOnce(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			st := &lostAnswer{Store: inner}
			f := newFixture(t, st, 8)
			ctx := t.Context()
			p, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Mix",
				Items: playlists.ItemsInput{Tracks: []string{f.trackID(2), f.trackID(3), f.trackID(4)}}})
			if err != nil {
				t.Fatal(err)
			}
			keyed := func() context.Context { return idempotency.WithRequestID(ctx, ids.NewUUID()) }
			order := func() []string {
				t.Helper()
				got, err := f.svc.TrackIDs(ctx, f.owner, p.Slug)
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			// once runs change twice under one RequestID, the first time
			// with its answer lost.
			once := func(what string, rctx context.Context, change func(context.Context) error) {
				t.Helper()
				st.armed.Store(true)
				if err := change(rctx); err == nil {
					t.Fatalf("%s: the lost answer was not an error", what)
				}
				if err := change(rctx); err != nil {
					t.Fatalf("%s retried: %v", what, err)
				}
			}

			add := keyed()
			var res playlists.ItemsResult
			once("add", add, func(c context.Context) (err error) {
				res, err = f.svc.ChangeItems(c, f.owner, p.Slug, true, playlists.ItemsInput{Tracks: []string{f.trackID(5), f.trackID(6)}})
				return err
			})
			if res.Added != 2 || len(res.Duplicated) != 0 {
				t.Errorf("retried add answered %+v; want the committed run's: 2 added, none duplicated", res)
			}

			rm := keyed()
			once("remove", rm, func(c context.Context) (err error) {
				if res, err = f.svc.ChangeItems(c, f.owner, p.Slug, false, playlists.ItemsInput{Tracks: []string{f.trackID(6)}}); err == nil || res.Removed != 0 {
					return err
				}
				// Before the retry, someone adds the track again.
				_, aerr := f.svc.ChangeItems(ctx, f.owner, p.Slug, true, playlists.ItemsInput{Tracks: []string{f.trackID(6)}})
				if aerr != nil {
					t.Fatal(aerr)
				}
				return err
			})
			if res.Removed != 1 {
				t.Errorf("retried remove answered %+v; want 1 removed", res)
			}
			want := []string{f.trackID(2), f.trackID(3), f.trackID(4), f.trackID(5), f.trackID(6)}
			if got := order(); !slices.Equal(got, want) {
				t.Fatalf("after the retried remove: %v; want %v (the track added since stays)", got, want)
			}

			var total int
			once("reorder", keyed(), func(c context.Context) (err error) {
				total, err = f.svc.Reorder(c, f.owner, p.Slug, playlists.ReorderInput{
					Move: []playlists.Ref{{Kind: playlists.KindTrack, ID: f.trackID(2)}}, Offset: 1})
				return err
			})
			want = []string{f.trackID(3), f.trackID(2), f.trackID(4), f.trackID(5), f.trackID(6)}
			if got := order(); total != 5 || !slices.Equal(got, want) {
				t.Errorf("after a retried move by 1: %v (total %d); want %v, moved once", got, total, want)
			}

			rename, other := "Renamed", "Other"
			var v playlists.View
			once("rename", keyed(), func(c context.Context) (err error) {
				if v, err = f.svc.Update(c, f.owner, p.Slug, playlists.UpdateInput{Name: &rename}); err == nil {
					return nil
				}
				if _, uerr := f.svc.Update(ctx, f.owner, p.Slug, playlists.UpdateInput{Name: &other}); uerr != nil {
					t.Fatal(uerr)
				}
				return err
			})
			if v.Name != other {
				t.Errorf("retried rename answered %q; want %q (the later rename stays)", v.Name, other)
			}

			friend := f.user(t, "friend")
			var created bool
			once("share", keyed(), func(c context.Context) (err error) {
				_, created, err = f.svc.AddCollaborator(c, f.owner, p.Slug, playlists.CollaboratorInput{UserID: friend.User.ID})
				return err
			})
			if !created {
				t.Errorf("retried share answered created=false; want the committed run's true")
			}
			final, err := f.svc.Get(ctx, f.owner, p.Slug)
			if err != nil || final.Version != p.Version+7 {
				t.Errorf("version %d (%v); want %d: each change written once", final.Version, err, p.Version+7)
			}
		})
	}
}
