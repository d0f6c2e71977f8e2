package playlists_test

import (
	"testing"

	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
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
