package playlists_test

import (
	"testing"

	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
)

// TestRetriedLeaveAnswersTheCommittedOne: a collaborator leaves a
// playlist under an Idempotency-Key and the answer is lost after the
// write committed. The retry answers what the committed leave did (204),
// not 404: leaving took the playlist out of the collaborator's sight, so
// the retry cannot reach the marker beside the playlist and must find one
// of its own. Nothing is changed twice.
func TestRetriedLeaveAnswersTheCommittedOne(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			st := &lostAnswer{Store: inner}
			f := newFixture(t, st, 2)
			ctx := t.Context()
			p, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Shared Mix"})
			if err != nil {
				t.Fatal(err)
			}
			friend := f.user(t, "friend")
			if _, _, err := f.svc.AddCollaborator(ctx, f.owner, p.Slug, playlists.CollaboratorInput{UserID: friend.User.ID}); err != nil {
				t.Fatal(err)
			}
			shared, err := f.svc.Get(ctx, f.owner, p.Slug)
			if err != nil {
				t.Fatal(err)
			}
			leave := idempotency.WithRequestID(ctx, ids.NewUUID())
			st.armed.Store(true)
			if err := f.svc.RemoveCollaborator(leave, friend, p.Slug, friend.User.ID); err == nil {
				t.Fatal("the lost answer was not an error")
			}
			if err := f.svc.RemoveCollaborator(leave, friend, p.Slug, friend.User.ID); err != nil {
				t.Errorf("retried leave: %v; want the committed leave's success", err)
			}
			// Another request (another key, or none) still finds nothing to leave.
			if err := f.svc.RemoveCollaborator(ctx, friend, p.Slug, friend.User.ID); err == nil {
				t.Errorf("a new leave of a playlist already left succeeded")
			}
			after, err := f.svc.Get(ctx, f.owner, p.Slug)
			if err != nil || len(after.Collaborators) != 0 || after.Version != shared.Version+1 {
				t.Errorf("after the retried leave: %d collaborators, version %d (%v); want none, %d", len(after.Collaborators), after.Version, err, shared.Version+1)
			}
			if _, n, err := f.svc.List(ctx, friend, 10, 0); err != nil || n != 0 {
				t.Errorf("the friend still lists %d playlists (%v)", n, err)
			}
		})
	}
}

// TestRetriedDeleteAnswersTheCommittedOne: an owner deletes a playlist
// under an Idempotency-Key, the answer is lost after the delete
// committed, and the owner makes a new playlist under the same name (so
// the same slug) before the retry. The retry answers the committed
// delete's success (not 404) and leaves the new playlist alone.
func TestRetriedDeleteAnswersTheCommittedOne(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			st := &lostAnswer{Store: inner}
			f := newFixture(t, st, 2)
			ctx := t.Context()
			p, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Road Trip"})
			if err != nil {
				t.Fatal(err)
			}
			del := idempotency.WithRequestID(ctx, ids.NewUUID())
			st.armed.Store(true)
			if err := f.svc.Delete(del, f.owner, p.Slug); err == nil {
				t.Fatal("the lost answer was not an error")
			}
			again, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Road Trip"})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.svc.Delete(del, f.owner, again.Slug); err != nil {
				t.Errorf("retried delete: %v; want the committed delete's success", err)
			}
			if got, err := f.svc.Get(ctx, f.owner, again.Slug); err != nil || got.ID != again.ID {
				t.Errorf("the playlist made after the delete is gone (%v): the retry deleted it", err)
			}
			if _, n, err := f.svc.List(ctx, f.owner, 10, 0); err != nil || n != 1 {
				t.Errorf("the owner lists %d playlists (%v); want 1", n, err)
			}
			// Another request (another key) deletes as usual.
			if err := f.svc.Delete(idempotency.WithRequestID(ctx, ids.NewUUID()), f.owner, again.Slug); err != nil {
				t.Errorf("a new delete: %v", err)
			}
		})
	}
}

// TestRetriedLeaveWhenTheSlugNamesAnotherPlaylist: a friend collaborates
// on two playlists of the same slug (two owners' "Mix") and leaves one
// under an Idempotency-Key whose answer is lost. The retry's slug now
// names the other playlist; the retry answers the committed leave's
// success and leaves the other playlist shared. Before, the retry tried
// to leave the other one, met its own marker and answered "too many
// changes" for as long as the marker lived.
func TestRetriedLeaveWhenTheSlugNamesAnotherPlaylist(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			st := &lostAnswer{Store: inner}
			f := newFixture(t, st, 2)
			ctx := t.Context()
			friend := f.user(t, "friend")
			other := f.user(t, "other")
			var shared []playlists.View
			for _, owner := range []playlists.Caller{f.owner, other} {
				p, _, err := f.svc.Create(ctx, owner, playlists.CreateInput{Name: "Mix"})
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := f.svc.AddCollaborator(ctx, owner, p.Slug, playlists.CollaboratorInput{UserID: friend.User.ID}); err != nil {
					t.Fatal(err)
				}
				v, err := f.svc.Get(ctx, owner, p.Slug)
				if err != nil {
					t.Fatal(err)
				}
				shared = append(shared, v)
			}
			slug := shared[0].Slug
			first, err := f.svc.Get(ctx, friend, slug)
			if err != nil {
				t.Fatal(err)
			}
			leave := idempotency.WithRequestID(ctx, ids.NewUUID())
			st.armed.Store(true)
			if err := f.svc.RemoveCollaborator(leave, friend, slug, friend.User.ID); err == nil {
				t.Fatal("the lost answer was not an error")
			}
			if err := f.svc.RemoveCollaborator(leave, friend, slug, friend.User.ID); err != nil {
				t.Errorf("retried leave: %v; want the committed leave's success", err)
			}
			if _, n, err := f.svc.List(ctx, friend, 10, 0); err != nil || n != 1 {
				t.Errorf("the friend lists %d playlists (%v); want the one not left", n, err)
			}
			for _, v := range shared {
				after, err := f.svc.Get(ctx, playlists.Caller{User: v.Owner, ClientID: f.owner.ClientID, Plan: f.owner.Plan}, v.Slug)
				if err != nil {
					t.Fatal(err)
				}
				want := 1
				if v.ID == first.ID {
					want = 0
				}
				if len(after.Collaborators) != want {
					t.Errorf("playlist %s has %d collaborators; want %d", v.ID, len(after.Collaborators), want)
				}
			}
		})
	}
}
