package playlists_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/buckket/go-blurhash"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/playlists"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/store/dynamostore"
)

type fixedCatalog struct{ cat *catalog.Catalog }

func (f fixedCatalog) Current(context.Context) (*catalog.Catalog, error) { return f.cat, nil }

// twins returns the item stores the tests run on: bbolt always, DynamoDB
// Local when the integration tier's endpoint is set (with-stack.sh).
func twins(t *testing.T) map[string]store.Store {
	t.Helper()
	out := map[string]store.Store{"bolt": bolt(t)}
	ep := os.Getenv("TEST_DYNAMODB_ENDPOINT")
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TEST_DYNAMODB_ENDPOINT is not set; run under infra/local/with-stack.sh")
		}
		t.Log("DynamoDB Local not running (TEST_DYNAMODB_ENDPOINT unset): bolt only")
		return out
	}
	ds := dynamostore.New(dynamostore.LocalClient(ep, ""), dynamostore.TableNames("playlists-"+rand.Text()[:10]+"-"))
	if err := ds.CreateTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ds.DeleteTables(context.Background()) })
	out["dynamodb"] = ds
	return out
}

func bolt(t *testing.T) store.Store {
	t.Helper()
	bs, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close() })
	return bs
}

type fixture struct {
	blob   blob.Store
	svc    *playlists.Service
	cat    *catalog.Catalog
	ids    *identity.Service
	client identity.Client
	owner  playlists.Caller
}

func newFixture(t *testing.T, st store.Store, nTracks int) *fixture {
	t.Helper()
	c := catalogtest.Contents(nTracks, 4)
	c.Tracks[1].AccessTier = catalog.TierEnterprise
	cat, err := catalog.New(c)
	if err != nil {
		t.Fatal(err)
	}
	idsvc := identity.New(st, clock.Real{}, ids.Random{}, 0)
	cl, _, err := idsvc.CreateClient(t.Context(), identity.NewClient{Name: "P", Plan: identity.PlanSubscriber})
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := idsvc.CreateUser(t.Context(), cl.ID, "owner-"+rand.Text()[:6], "Owner")
	if err != nil {
		t.Fatal(err)
	}
	bs := catalogtest.NewStore(t)
	f := &fixture{cat: cat, ids: idsvc, client: cl, blob: bs,
		svc: playlists.New(st, bs, fixedCatalog{cat}, idsvc, clock.Real{}, ids.Random{}, slog.New(slog.DiscardHandler)),
		owner: playlists.Caller{User: playlists.User{ID: u.ID, Username: u.Username, Name: u.Name}, ClientID: cl.ID,
			Plan: string(cl.Plan)}}
	return f
}

func (f *fixture) user(t *testing.T, name string) playlists.Caller {
	t.Helper()
	u, _, err := f.ids.CreateUser(t.Context(), f.client.ID, name+"-"+rand.Text()[:6], name)
	if err != nil {
		t.Fatal(err)
	}
	return playlists.Caller{User: playlists.User{ID: u.ID, Username: u.Username}, ClientID: f.client.ID, Plan: string(f.client.Plan)}
}

func (f *fixture) trackID(i int) string { return f.cat.Tracks()[i].ID }

// TestConcurrentEdits: 20 clients (owner and collaborators) add, remove
// and reorder the same playlist at once. No item may be lost or doubled,
// and tracks/duration must equal the items afterwards.
func TestConcurrentEdits(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) {
			const clients, perClient = 20, 3
			// Tracks: 0 and 1 are kept aside (1 is enterprise-only), 2..61
			// start in the playlist (each client removes 3 of them),
			// 62..121 are added (3 per client), 122..124 are added by every
			// client (all but one report them duplicated).
			f := newFixture(t, st, 125)
			var initial []string
			for i := 2; i < 2+clients*perClient; i++ {
				initial = append(initial, f.trackID(i))
			}
			v, _, err := f.svc.Create(t.Context(), f.owner, playlists.CreateInput{Name: "Busy", Items: playlists.ItemsInput{Tracks: initial}})
			if err != nil {
				t.Fatal(err)
			}
			callers := []playlists.Caller{f.owner}
			for i := 1; i < clients; i++ {
				c := f.user(t, fmt.Sprint("col", i))
				if _, _, err := f.svc.AddCollaborator(t.Context(), f.owner, v.Slug, playlists.CollaboratorInput{UserID: c.User.ID}); err != nil {
					t.Fatal(err)
				}
				callers = append(callers, c)
			}
			shared := []string{f.trackID(122), f.trackID(123), f.trackID(124)}
			var wg sync.WaitGroup
			var mu sync.Mutex
			sharedAdded := 0
			failures := make(chan error, clients*10)
			for i, c := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mine := []string{f.trackID(62 + i*perClient), f.trackID(63 + i*perClient), f.trackID(64 + i*perClient)}
					gone := initial[i*perClient : (i+1)*perClient]
					ctx := context.Background()
					do := func(err error) {
						if err != nil {
							failures <- err
						}
					}
					res, err := f.svc.ChangeItems(ctx, c, v.Slug, true, playlists.ItemsInput{Tracks: append(slices.Clone(mine), shared...)})
					do(err)
					mu.Lock()
					sharedAdded += res.Added - len(mine)
					mu.Unlock()
					_, err = f.svc.Reorder(ctx, c, v.Slug, playlists.ReorderInput{Item: mine[0], Position: 0})
					do(err)
					_, err = f.svc.ChangeItems(ctx, c, v.Slug, false, playlists.ItemsInput{Tracks: gone})
					do(err)
					_, err = f.svc.Reorder(ctx, c, v.Slug, playlists.ReorderInput{
						Move: []playlists.Ref{{Kind: playlists.KindTrack, ID: mine[1]}, {Kind: playlists.KindTrack, ID: mine[2]}}, Offset: -(i + 1)})
					do(err)
					// A retried add changes nothing.
					res, err = f.svc.ChangeItems(ctx, c, v.Slug, true, playlists.ItemsInput{Tracks: mine})
					do(err)
					if err == nil && (res.Added != 0 || len(res.Duplicated) != len(mine)) {
						failures <- fmt.Errorf("retried add: %+v", res)
					}
				}()
			}
			wg.Wait()
			close(failures)
			for err := range failures {
				t.Error(err)
			}
			if sharedAdded != len(shared) {
				t.Errorf("shared tracks added %d times in total, want %d", sharedAdded, len(shared))
			}
			got, err := f.svc.Get(t.Context(), f.owner, v.Slug)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for i := 62; i < 125; i++ {
				want[f.trackID(i)] = true
			}
			seen := map[string]bool{}
			wantDuration := 0
			for _, it := range got.Items {
				if seen[it.ID] {
					t.Errorf("item %s twice", it.ID)
				}
				seen[it.ID] = true
				if !want[it.ID] {
					t.Errorf("item %s should not be there", it.ID)
				}
				tr, _ := f.cat.Track(it.ID)
				wantDuration += tr.Length
			}
			if len(seen) != len(want) {
				t.Errorf("%d distinct items, want %d", len(seen), len(want))
			}
			if got.Tracks() != len(want) || got.Duration() != wantDuration {
				t.Errorf("tracks %d duration %d; want %d and %d", got.Tracks(), got.Duration(), len(want), wantDuration)
			}
		})
	}
}

func TestSlugsPerOwnerAndStable(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) { testSlugs(t, st) })
	}
}

func testSlugs(t *testing.T, st store.Store) {
	f := newFixture(t, st, 4)
	ctx := t.Context()
	a, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Road Trip!"})
	if err != nil || a.Slug != "road-trip" {
		t.Fatalf("first: %q %v", a.Slug, err)
	}
	b, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "road   trip"})
	if err != nil || b.Slug != "road-trip-2" {
		t.Fatalf("second: %q %v", b.Slug, err)
	}
	other := f.user(t, "other")
	c, _, err := f.svc.Create(ctx, other, playlists.CreateInput{Name: "Road trip"})
	if err != nil || c.Slug != "road-trip" {
		t.Fatalf("another owner: %q %v", c.Slug, err)
	}
	name := "Winter"
	if _, err := f.svc.Update(ctx, f.owner, "road-trip", playlists.UpdateInput{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if v, err := f.svc.Get(ctx, f.owner, "road-trip"); err != nil || v.Name != "Winter" || v.Slug != "road-trip" {
		t.Fatalf("after rename: %+v %v", v, err)
	}
	// A shared playlist whose slug the collaborator also uses is reached
	// by its id; the collaborator's own one wins the slug.
	if _, _, err := f.svc.AddCollaborator(ctx, f.owner, "road-trip", playlists.CollaboratorInput{Username: other.User.Username}); err != nil {
		t.Fatal(err)
	}
	if v, err := f.svc.Get(ctx, other, "road-trip"); err != nil || v.ID != c.ID || v.Permission != playlists.PermOwner {
		t.Fatalf("collaborator's own slug: %+v %v", v.Playlist, err)
	}
	if v, err := f.svc.Get(ctx, other, a.ID); err != nil || v.ID != a.ID || v.Permission != playlists.PermCanEdit {
		t.Fatalf("shared by id: %+v %v", v.Playlist, err)
	}
	for in, want := range map[string]string{"Ça va — Été 2024": "ca-va-ete-2024", "!!!": "playlist", "日本": "playlist"} {
		if got := playlists.Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReorderForms(t *testing.T) {
	for name, st := range twins(t) {
		t.Run(name, func(t *testing.T) { testReorder(t, st) })
	}
}

func testReorder(t *testing.T, st store.Store) {
	f := newFixture(t, st, 8)
	ctx := t.Context()
	var all []string
	for i := 2; i < 8; i++ {
		all = append(all, f.trackID(i))
	}
	v, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "R", Items: playlists.ItemsInput{Tracks: all}})
	if err != nil {
		t.Fatal(err)
	}
	order := func() []string {
		got, err := f.svc.Get(ctx, f.owner, v.Slug)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range got.Items {
			out = append(out, it.ID)
		}
		return out
	}
	ref := func(id string) playlists.Ref { return playlists.Ref{Kind: playlists.KindTrack, ID: id} }
	// gaps.md: the listed items move offset places, clamped.
	if _, err := f.svc.Reorder(ctx, f.owner, v.Slug, playlists.ReorderInput{Move: []playlists.Ref{ref(all[0]), ref(all[1])}, Offset: 2}); err != nil {
		t.Fatal(err)
	}
	want := []string{all[2], all[3], all[0], all[1], all[4], all[5]}
	if got := order(); !slices.Equal(got, want) {
		t.Fatalf("offset +2: %v, want %v", got, want)
	}
	if _, err := f.svc.Reorder(ctx, f.owner, v.Slug, playlists.ReorderInput{Move: []playlists.Ref{ref(all[5])}, Offset: -100}); err != nil {
		t.Fatal(err)
	}
	want = []string{all[5], all[2], all[3], all[0], all[1], all[4]}
	if got := order(); !slices.Equal(got, want) {
		t.Fatalf("offset -100: %v, want %v", got, want)
	}
	if _, err := f.svc.Reorder(ctx, f.owner, v.Slug, playlists.ReorderInput{Item: all[5], Position: 5}); err != nil {
		t.Fatal(err)
	}
	want = []string{all[2], all[3], all[0], all[1], all[4], all[5]}
	if got := order(); !slices.Equal(got, want) {
		t.Fatalf("position 5: %v, want %v", got, want)
	}
	if _, err := f.svc.Reorder(ctx, f.owner, v.Slug, playlists.ReorderInput{Order: all}); err != nil {
		t.Fatal(err)
	}
	if got := order(); !slices.Equal(got, all) {
		t.Fatalf("permutation: %v, want %v", got, all)
	}
	_, err = f.svc.Reorder(ctx, f.owner, v.Slug, playlists.ReorderInput{Order: append(slices.Clone(all[1:]), f.trackID(0))})
	var e *errs.Error
	if !errs.Is(err, errs.Invalid) || !errorsAs(err, &e) || len(e.Fields["items"]) != 2 {
		t.Fatalf("bad permutation: %v", err)
	}
	if got := order(); !slices.Equal(got, all) {
		t.Fatalf("a refused reorder changed the order: %v", got)
	}
	if _, err := f.svc.Reorder(ctx, f.owner, v.Slug, playlists.ReorderInput{Move: []playlists.Ref{ref(f.trackID(0))}, Offset: 1}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("item not in the playlist: %v", err)
	}
}

func errorsAs(err error, e **errs.Error) bool {
	x, ok := err.(*errs.Error)
	*e = x
	return ok
}

func TestPlanRules(t *testing.T) {
	f := newFixture(t, bolt(t), 4)
	ctx := t.Context()
	fx := f.cat.SoundFXs()[0].ID
	stem := f.cat.Tracks()[0].Stems[0].ID
	in := playlists.ItemsInput{Tracks: []string{f.trackID(0), f.trackID(1), f.trackID(0)}, SoundFXs: []string{fx}, Stems: []string{stem}}
	free := f.owner
	free.Plan = string(identity.PlanFree)
	v, res, err := f.svc.Create(ctx, free, playlists.CreateInput{Name: "Free", Items: in})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 2 || !slices.Equal(res.Skipped, []string{f.trackID(1), fx}) || !slices.Equal(res.Duplicated, []string{f.trackID(0)}) {
		t.Errorf("free without sound effects: %+v", res)
	}
	if v.Tracks() != 2 || v.Duration() != f.cat.Tracks()[0].Length+f.cat.Tracks()[0].Stems[0].Length {
		t.Errorf("totals %d %d", v.Tracks(), v.Duration())
	}
	ent := f.owner
	ent.Plan, ent.SFX = string(identity.PlanEnterprise), true
	_, res, err = f.svc.Create(ctx, ent, playlists.CreateInput{Name: "Ent", Items: in})
	if err != nil || res.Added != 4 || len(res.Skipped) != 0 {
		t.Errorf("enterprise with sound effects: %+v %v", res, err)
	}
}

func encodePNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCoverImages(t *testing.T) {
	f := newFixture(t, bolt(t), 2)
	ctx := t.Context()
	v, _, err := f.svc.Create(ctx, f.owner, playlists.CreateInput{Name: "Cover"})
	if err != nil {
		t.Fatal(err)
	}
	webp, err := os.ReadFile("testdata/cover.webp")
	if err != nil {
		t.Fatal(err)
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 50, 20)), nil); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"png": encodePNG(t, 1600, 900), "webp": webp, "jpeg": jpg.Bytes()} {
		got, err := f.svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: data})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if x, y, err := blurhash.Components(got.Image.Blurhash); err != nil || x != 4 || y != 3 {
			t.Errorf("%s: blurhash %q: %d×%d %v", name, got.Image.Blurhash, x, y, err)
		}
		urls, err := f.svc.ImageURLs(ctx, got.Image)
		if err != nil || len(urls) != 3 {
			t.Fatalf("%s: urls %v %v", name, urls, err)
		}
	}
	// The stored sizes are JPEGs no larger than their box.
	got, _ := f.svc.Get(ctx, f.owner, v.Slug)
	if got.Image == nil {
		t.Fatal("no image")
	}
	for key, side := range map[string]int{got.Image.Small: 160, got.Image.Medium: 480, got.Image.Large: 1200} {
		rc, _, err := f.blob.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(rc)
		rc.Close()
		if err != nil || format != "jpeg" || max(cfg.Width, cfg.Height) > side {
			t.Errorf("%s: %s %dx%d %v", key, format, cfg.Width, cfg.Height, err)
		}
	}
	for _, bad := range [][]byte{[]byte("GIF89a not really"), []byte("<svg/>"), {}, bytes.Repeat([]byte{0xff}, 100)} {
		_, err := f.svc.Update(ctx, f.owner, v.Slug, playlists.UpdateInput{Image: bad})
		if !errs.Is(err, errs.Invalid) {
			t.Errorf("non-image %q: %v", bad[:min(len(bad), 8)], err)
		}
	}
	if after, _ := f.svc.Get(ctx, f.owner, v.Slug); after.Image.Large != got.Image.Large {
		t.Error("a refused image replaced the cover")
	}
}

func TestStoredRecordIsReadBack(t *testing.T) {
	st := bolt(t)
	f := newFixture(t, st, 6)
	fx := f.cat.SoundFXs()[0].ID
	c := f.owner
	c.SFX = true
	v, _, err := f.svc.Create(t.Context(), c, playlists.CreateInput{Name: "Mixed", Description: "ünïcode, \"quotes\"",
		Items: playlists.ItemsInput{Tracks: []string{f.trackID(2), f.trackID(0)}, SoundFXs: []string{fx}, Stems: []string{f.cat.Tracks()[0].Stems[0].ID}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Get(t.Context(), f.owner, v.Slug)
	if err != nil || !slices.Equal(got.Items, v.Items) || got.Description != v.Description || len(got.Items) != 4 {
		t.Fatalf("read back %+v, wrote %+v (%v)", got.Items, v.Items, err)
	}
	// A damaged record is an error, never a silently shorter playlist.
	it, _ := st.Get(t.Context(), store.Playlists, store.Key{PK: "PL#" + v.ID, SK: "META"})
	for _, bad := range []string{"t" + f.trackID(2) + ":x", "q" + f.trackID(2) + ":3", "t" + f.trackID(2) + ":3,,", "t:3"} {
		it.Attrs["items"] = bad
		if err := st.Put(t.Context(), store.Playlists, it, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Get(t.Context(), f.owner, v.Slug); err == nil {
			t.Errorf("items %q read without error", bad)
		}
	}
}
