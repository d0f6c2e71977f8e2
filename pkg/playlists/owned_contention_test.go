package playlists_test

import (
	"context"
	"errors"
	"testing"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
)

// fenceMover is a store on which every count of a user's owned playlists
// (the query quota.Held's first Take makes) meets a delete of one of
// them landing meanwhile: the counter's fence moves each time, so the
// counter can never be created.
type fenceMover struct {
	store.Store
	user string
}

func (f *fenceMover) Query(ctx context.Context, t store.Table, q store.Query) (store.Page, error) {
	page, err := f.Store.Query(ctx, t, q)
	if t == store.Playlists && q.PK == "PLU#"+f.user && q.SKPrefix == "OWN#" {
		rel, rerr := quota.NewHeld(f.Store, playlists.HeldScope).Release(ctx, f.user)
		if rerr == nil {
			rerr = f.Store.Transact(ctx, []store.TxOp{rel})
		}
		if rerr != nil {
			return page, rerr
		}
	}
	return page, err
}

// TestCreateThatCannotCountOwnedPlaylistsIsRetryable: a create whose
// owned-playlists counter cannot be set up because deletes keep landing
// while it counts is a transient conflict, answered like every other lost
// race of a playlist write (429 with Retry-After, nothing written), not a
// 500.
func TestCreateThatCannotCountOwnedPlaylistsIsRetryable(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			st := &fenceMover{Store: inner}
			f := newFixture(t, st, 2)
			st.user = f.owner.User.ID
			_, _, err := f.svc.Create(t.Context(), f.owner, playlists.CreateInput{Name: "Mix"})
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.RateLimited || e.RetryAfter <= 0 {
				t.Fatalf("create while the count keeps moving: %v; want 429 with Retry-After", err)
			}
			st.user = ""
			if _, n, err := f.svc.List(t.Context(), f.owner, 10, 0); err != nil || n != 0 {
				t.Errorf("after the refused create: %d playlists (%v); want none", n, err)
			}
			if _, _, err := f.svc.Create(t.Context(), f.owner, playlists.CreateInput{Name: "Mix"}); err != nil {
				t.Errorf("create once the deletes stop: %v", err)
			}
		})
	}
}
