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
