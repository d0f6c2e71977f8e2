package playlists_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
)

// pausingDeletes holds the first Delete of a key holding match until
// release is closed: the latency of an S3 delete, made long.
type pausingDeletes struct {
	blob.Store
	mu               sync.Mutex
	match            string
	entered, release chan struct{}
	once             sync.Once
}

func (p *pausingDeletes) Delete(ctx context.Context, key string) error {
	p.mu.Lock()
	m := p.match
	p.mu.Unlock()
	if m != "" && strings.Contains(key, m) {
		p.once.Do(func() { close(p.entered) })
		<-p.release
	}
	return p.Store.Delete(ctx, key)
}

// TestCoverSurvivesConcurrentUpdates: one request replaces cover A by B
// and, after its commit, deletes A's blobs; meanwhile another sets A
// again. The playlist must not end pointing at deleted blobs (with keys
// named by the content alone it did: the second upload of A was the
// first's files).
func TestCoverSurvivesConcurrentUpdates(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, st, 2)
			ctx := t.Context()
			pd := &pausingDeletes{Store: f.blob, entered: make(chan struct{}), release: make(chan struct{})}
			svc := playlists.New(st, pd, fixedCatalog{f.cat}, f.ids, clock.Real{}, ids.Random{}, slog.New(slog.DiscardHandler))
			v, _, err := svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Cover"})
			if err != nil {
				t.Fatal(err)
			}
			imgA, imgB := encodePNG(t, 64, 48), encodePNG(t, 80, 40)
			first, err := svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: imgA})
			if err != nil {
				t.Fatal(err)
			}
			large := first.Image.Large
			pd.mu.Lock()
			pd.match = strings.TrimSuffix(large[strings.LastIndex(large, "/cover-")+1:], "-large.jpg")
			pd.mu.Unlock()
			done := make(chan error, 1)
			go func() { // A → B; its delete of A's blobs waits
				_, err := svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: imgB})
				done <- err
			}()
			select {
			case <-pd.entered:
			case err := <-done: // the update ended before deleting A's blobs
				t.Fatalf("the A → B update did not delete A's blobs: %v", err)
			}
			pd.mu.Lock()
			pd.match = ""
			pd.mu.Unlock()
			if _, err := svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: imgA}); err != nil { // B → A
				t.Fatal(err)
			}
			close(pd.release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			final, err := svc.Get(ctx, f.owner, v.Slug)
			if err != nil {
				t.Fatal(err)
			}
			if final.Image == nil {
				t.Fatal("the playlist lost its cover")
			}
			for _, k := range []string{final.Image.Small, final.Image.Medium, final.Image.Large} {
				if _, err := f.blob.Head(ctx, k); err != nil {
					t.Errorf("the cover's blob %s: %v", k, err)
				}
			}
		})
	}
}
