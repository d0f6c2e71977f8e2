package playlists_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/store"
)

// failingPuts makes the next playlist record write fail: after the store
// committed it (commit=true: a timeout after the commit, the answer lost)
// or before it reached the store.
type failingPuts struct {
	store.Store
	armed  atomic.Bool
	commit bool
}

func (f *failingPuts) Put(ctx context.Context, t store.Table, it store.Item, cond store.Condition) error {
	if t != store.Playlists || it.SK != "META" || !f.armed.CompareAndSwap(true, false) {
		return f.Store.Put(ctx, t, it, cond)
	}
	if f.commit {
		if err := f.Store.Put(ctx, t, it, cond); err != nil {
			return err
		}
	}
	return errors.New("operation error DynamoDB: PutItem: context deadline exceeded")
}

// TestFailedCoverUpdateKeepsTheCoverItWrote: an update with a new cover
// whose write fails ambiguously (it committed, the answer was lost) must
// not delete the new cover's blobs, which the playlist now shows (before,
// every failed update deleted them); the cover it replaced is the one
// left over. A write that failed before reaching the store leaves no
// blob of the new cover behind and keeps the old one.
func TestFailedCoverUpdateKeepsTheCoverItWrote(t *testing.T) {
	for name, inner := range twins(t) {
		t.Run(name, func(t *testing.T) {
			for _, commit := range []bool{true, false} {
				st := &failingPuts{Store: inner, commit: commit}
				f := newFixture(t, st, 2)
				ctx := t.Context()
				v, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Cover"})
				if err != nil {
					t.Fatal(err)
				}
				first, err := f.svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: encodePNG(t, 64, 48)})
				if err != nil {
					t.Fatal(err)
				}
				st.armed.Store(true)
				if _, err := f.svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: encodePNG(t, 80, 40)}); err == nil {
					t.Fatalf("commit=%v: the failing write was not reported", commit)
				}
				got, err := f.svc.Get(ctx, f.owner, v.Slug)
				if err != nil {
					t.Fatal(err)
				}
				if (got.Image.Large != first.Image.Large) != commit {
					t.Fatalf("commit=%v: cover after the failed update %s (first %s)", commit, got.Image.Large, first.Image.Large)
				}
				list, err := f.blob.List(ctx, "playlists/"+v.ID+"/")
				if err != nil {
					t.Fatal(err)
				}
				var keys []string
				for _, a := range list {
					keys = append(keys, a.Key)
				}
				want := []string{got.Image.Small, got.Image.Medium, got.Image.Large}
				slices.Sort(keys)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("commit=%v: stored cover blobs %v, want exactly the cover's %v", commit, keys, want)
				}
			}
		})
	}
}
