package playlists

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
)

// Users resolves the collaborators an owner names; identity.Service
// implements it.
type Users interface {
	GetUser(ctx context.Context, id string) (identity.User, error)
	FindUserByUsername(ctx context.Context, username string) (identity.User, error)
}

var _ Users = (*identity.Service)(nil)

// Service manages playlists on the Playlists table.
type Service struct {
	st      store.Store
	blob    blob.Store // cover images; nil disables image updates
	catalog catalog.Source
	users   Users
	clock   clock.Clock
	ids     ids.Source
	log     *slog.Logger
	owned   *quota.Held // playlists per owner
	// maxOwned is MaxOwned; tests lower it.
	maxOwned int64
}

// heldScope names the counters of owned playlists (quota.Held).
const heldScope = "playlists"

// New returns a Service.
func New(st store.Store, bs blob.Store, cat catalog.Source, users Users, c clock.Clock, src ids.Source, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: st, blob: bs, catalog: cat, users: users, clock: c, ids: src, log: log,
		owned: quota.NewHeld(st, heldScope), maxOwned: MaxOwned}
}

const msgNotFound = "Not found."

func notFound(op string) error { return errs.E(op, errs.NotFound, msgNotFound) }

// View is a playlist as one caller sees it.
type View struct {
	*Playlist
	Permission Permission
	// Path is the segment that names this playlist in the caller's
	// /me/playlists/ paths (its url): the slug, or the playlist's id where
	// the slug names another playlist for this caller (their own playlist
	// of the same slug wins it, and of two shared ones the lower id does).
	Path string
}

// view is p as userID sees it with perm, its Path included.
func (s *Service) view(ctx context.Context, userID string, p *Playlist, perm Permission) (View, error) {
	v := View{Playlist: p, Permission: perm, Path: p.Slug}
	if p.Owner.ID == userID {
		return v, nil // an owner's slugs are unique: the own row is keyed by it
	}
	id, err := s.lookup(ctx, userID, p.Slug)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return View{}, err
	}
	if id != p.ID {
		v.Path = p.ID
	}
	return v, nil
}

// Get returns the playlist slug names for the caller: one of theirs, else
// one shared with them (a playlist's id is accepted as well, which stays
// unambiguous when an owner and a sharer picked the same slug).
// errs.NotFound when the caller cannot see it (no existence leak).
func (s *Service) Get(ctx context.Context, c Caller, slug string) (View, error) {
	const op = "playlists.Get"
	id, err := s.lookup(ctx, c.User.ID, slug)
	if err != nil {
		return View{}, err
	}
	p, err := s.load(ctx, id)
	if err != nil {
		return View{}, err
	}
	perm := p.PermissionOf(c.User.ID)
	if perm == "" {
		return View{}, notFound(op)
	}
	if slug == p.Slug {
		// lookup took the slug to this playlist: it is this reader's path.
		return View{Playlist: p, Permission: perm, Path: p.Slug}, nil
	}
	return s.view(ctx, c.User.ID, p, perm)
}

// lookup finds the id of the playlist slug names among the user's rows.
func (s *Service) lookup(ctx context.Context, userID, slug string) (string, error) {
	const op = "playlists.lookup"
	if slug == "" || len(slug) > 200 || strings.ContainsAny(slug, "#\x00") {
		return "", notFound(op)
	}
	it, err := s.st.Get(ctx, store.Playlists, store.Key{PK: viewerPK(userID), SK: "OWN#" + slug})
	if err == nil {
		return it.Str("playlist_id"), nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return "", errs.Wrap(op, err)
	}
	page, err := s.st.Query(ctx, store.Playlists, store.Query{PK: viewerPK(userID), SKPrefix: "SHR#" + slug + "#", Limit: 1})
	if err != nil {
		return "", errs.Wrap(op, err)
	}
	if len(page.Items) == 1 {
		return page.Items[0].Str("playlist_id"), nil
	}
	if id, ok := ids.CanonicalUUID(slug); ok {
		return id, nil // the caller's permission is checked on the record
	}
	return "", notFound(op)
}

// CreateInput is the body of a create.
type CreateInput struct {
	Name        string
	Description string
	Items       ItemsInput
	// RequestID, when set, names this create the same way for every
	// retry of it (idempotency.Claim.RequestID, from the request's
	// Idempotency-Key): it becomes the playlist's id, so a retry whose
	// first attempt wrote the playlist but lost its answer (a crash, a
	// timeout, an error after the write) returns that playlist instead of
	// creating a second one.
	RequestID string
}

// Create makes a private playlist owned by the caller, with the items
// given (those the caller cannot add are skipped, repeats collapsed).
func (s *Service) Create(ctx context.Context, c Caller, in CreateInput) (View, ItemsResult, error) {
	const op = "playlists.Create"
	name := strings.TrimSpace(in.Name)
	bad := map[string][]string{}
	if msg := checkName(name, true); msg != "" {
		bad["name"] = []string{msg}
	}
	if msg := checkDescription(in.Description); msg != "" {
		bad["description"] = []string{msg}
	}
	refs, ferr := parseRefs(in.Items)
	for k, v := range ferr {
		bad[k] = v
	}
	if len(bad) > 0 {
		return View{}, ItemsResult{}, &errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}
	}
	lengths, skipped, err := s.resolve(ctx, c, refs)
	if err != nil {
		return View{}, ItemsResult{}, err
	}
	res := ItemsResult{Skipped: skipped, Duplicated: []string{}}
	var items []Item
	items, res.Added, res.Duplicated = appendNew([]Item{}, refs, lengths, res.Duplicated)
	if len(items) > MaxItems {
		return View{}, ItemsResult{}, tooManyItems(op)
	}
	id, prior, err := s.createID(ctx, c, in.RequestID)
	if err != nil {
		return View{}, ItemsResult{}, err
	}
	if prior != nil {
		return View{Playlist: prior, Permission: PermOwner, Path: prior.Slug}, res, nil
	}
	p := &Playlist{ID: id, ClientID: c.ClientID, Owner: c.User, Name: name,
		Description: in.Description, Items: items, Collaborators: []Collaborator{}}
	p.CreatedAt = s.clock.Now().UTC()
	p.UpdatedAt = p.CreatedAt
	base := Slugify(name)
	var pause backoff
	for attempt := 0; ; attempt++ {
		slug, err := s.freeSlug(ctx, c.User.ID, base)
		if err != nil {
			return View{}, ItemsResult{}, err
		}
		p.Slug = slug
		rec, err := recordItem(p)
		if err != nil {
			return View{}, ItemsResult{}, errs.Wrap(op, err)
		}
		take, err := s.owned.Take(ctx, c.User.ID, s.maxOwned,
			quota.Counting(s.st, store.Playlists, store.Query{PK: viewerPK(c.User.ID), SKPrefix: "OWN#"}))
		if errors.Is(err, quota.ErrFull) {
			return View{}, ItemsResult{}, errs.E(op, errs.Invalid, "You already own "+strconv.FormatInt(s.maxOwned, 10)+
				" playlists, the most one user can own. Delete one to create another.")
		}
		if errors.Is(err, store.ErrContention) {
			return View{}, ItemsResult{}, tooManyCreates(op) // deletes kept landing while it counted
		}
		if err != nil {
			return View{}, ItemsResult{}, errs.Wrap(op, err)
		}
		err = s.st.Transact(ctx, []store.TxOp{
			store.TxPut(store.Playlists, rec, store.NotExists()),
			store.TxPut(store.Playlists, viewerItem(c.User.ID, p), store.NotExists()),
			take,
		})
		if err == nil {
			return View{Playlist: p, Permission: PermOwner, Path: p.Slug}, res, nil
		}
		if !retryable(err) {
			return View{}, ItemsResult{}, errs.Wrap(op, err)
		}
		if attempt == 20 {
			return View{}, ItemsResult{}, tooManyCreates(op)
		}
		if p.ID == in.RequestID {
			// Another run of this very request may have written it.
			if p.ID, prior, err = s.createID(ctx, c, in.RequestID); err != nil {
				return View{}, ItemsResult{}, err
			}
			if prior != nil {
				return View{Playlist: prior, Permission: PermOwner, Path: prior.Slug}, res, nil
			}
		}
		// Another create of the same name took the slug (or collided with
		// this one and nothing was written): pick again, after a pause.
		if err := pause.wait(ctx); err != nil {
			return View{}, ItemsResult{}, errs.Wrap(op, err)
		}
	}
}

// createID is the id of a new playlist: requestID when set, else a fresh
// one. When an earlier run of the same request (the caller's, within
// idempotency.Retention) already wrote the playlist requestID names, that
// playlist comes back as prior; one that is not (a key reused much
// later) leaves the new playlist a fresh id.
func (s *Service) createID(ctx context.Context, c Caller, requestID string) (string, *Playlist, error) {
	id, prior, err := idempotency.CreateID(ctx, requestID, c.User.ID, s.clock.Now(), s.ids.UUID,
		func(ctx context.Context, id string) (*Playlist, idempotency.Earlier, bool, error) {
			p, err := s.load(ctx, id)
			if errs.Is(err, errs.NotFound) {
				return nil, idempotency.Earlier{}, false, nil
			}
			if err != nil {
				return nil, idempotency.Earlier{}, false, err
			}
			return p, idempotency.Earlier{Owner: p.Owner.ID, Created: p.CreatedAt}, true, nil
		})
	if prior != nil {
		return id, *prior, err
	}
	return id, nil, err
}

// freeSlug returns base, or base-2, base-3, ... whichever the owner has
// used neither for a playlist of theirs nor sees on a playlist shared with
// them: a new playlist must not take the path of one the owner already
// reaches by its slug. (A playlist shared later under a slug the user owns
// keeps its id as its path; see View.Path.)
func (s *Service) freeSlug(ctx context.Context, ownerID, base string) (string, error) {
	taken := map[string]bool{}
	for _, prefix := range []string{"OWN#", "SHR#"} {
		cursor := ""
		for {
			page, err := s.st.Query(ctx, store.Playlists, store.Query{PK: viewerPK(ownerID), SKPrefix: prefix + base, Cursor: cursor, Limit: 500})
			if err != nil {
				return "", errs.Wrap("playlists.freeSlug", err)
			}
			for _, it := range page.Items {
				slug := strings.TrimPrefix(it.SK, prefix)
				if prefix == "SHR#" {
					slug = slug[:max(0, strings.LastIndexByte(slug, '#'))] // SHR#slug#id
				}
				taken[slug] = true
			}
			if cursor = page.Cursor; cursor == "" {
				break
			}
		}
	}
	if _, uuid := ids.CanonicalUUID(base); uuid {
		// A playlist's id is also a path to it (lookup tries slugs first):
		// a slug shaped like an id could take another playlist's path.
		taken[base] = true
	}
	return pickSlug(base, taken), nil
}

// msgNotUTF8 refuses text that is not UTF-8 (a multipart field can carry any bytes).
const msgNotUTF8 = "Must be UTF-8 text."

func checkName(name string, required bool) string {
	switch {
	case name == "" && required:
		return "This field is required."
	case strings.TrimSpace(name) == "":
		return "This field may not be blank."
	case !utf8.ValidString(name):
		return msgNotUTF8
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "Ensure this field has no more than " + strconv.Itoa(MaxNameLength) + " characters."
	case strings.IndexFunc(name, unicode.IsControl) >= 0: // a title is one line of text
		return "Must not contain control characters."
	}
	return ""
}

func checkDescription(d string) string {
	if !utf8.ValidString(d) {
		return msgNotUTF8
	}
	if strings.ContainsRune(d, 0) { // free text keeps its line breaks and tabs, never NUL
		return "Null characters are not allowed."
	}
	if utf8.RuneCountInString(d) > MaxDescription {
		return "Ensure this field has no more than " + strconv.Itoa(MaxDescription) + " characters."
	}
	return ""
}

func tooManyItems(op string) error {
	return errs.E(op, errs.Invalid, "A playlist holds at most "+strconv.Itoa(MaxItems)+" items.")
}

// List returns one page of the playlists the caller owns or collaborates
// on, newest first, and how many there are.
func (s *Service) List(ctx context.Context, c Caller, limit, offset int) ([]View, int, error) {
	const op = "playlists.List"
	rows, shadowed, err := s.visibleRows(ctx, c.User.ID, 0)
	if err != nil {
		return nil, 0, errs.Wrap(op, err)
	}
	total := len(rows)
	if offset >= total {
		return []View{}, total, nil
	}
	page := rows[offset:min(total, offset+limit)]
	recs, err := s.loadMany(ctx, page)
	if err != nil {
		return nil, 0, err
	}
	out := make([]View, 0, len(recs))
	for _, p := range recs {
		if p == nil {
			continue // deleted between the index read and the record read
		}
		if perm := p.PermissionOf(c.User.ID); perm != "" {
			v := View{Playlist: p, Permission: perm, Path: p.Slug}
			if shadowed[p.ID] {
				v.Path = p.ID
			}
			out = append(out, v)
		}
	}
	return out, total, nil
}

// visibleIDs lists the ids of the playlists userID can see, newest first
// (at most limit when limit > 0).
func (s *Service) visibleIDs(ctx context.Context, userID string, limit int) ([]string, error) {
	ids, _, err := s.visibleRows(ctx, userID, limit)
	return ids, err
}

// visibleRows is visibleIDs, and the ids among them whose slug names
// another playlist for userID (View.Path), read off the same rows as
// lookup would decide: an own row of the slug wins it, else the shared
// row of the lowest id (the first in sort-key order).
func (s *Service) visibleRows(ctx context.Context, userID string, limit int) ([]string, map[string]bool, error) {
	var out []string
	own := map[string]bool{}           // slugs of the user's own playlists
	firstShared := map[string]string{} // slug → the lowest id shared under it
	var shared [][2]string             // {slug, id} of the shared rows
	cursor := ""
	for {
		page, err := s.st.Query(ctx, store.Playlists, store.Query{Index: "GSI1", PK: viewerPK(userID),
			Descending: true, Cursor: cursor, Limit: 500})
		if err != nil {
			return nil, nil, err
		}
		for _, it := range page.Items {
			id := it.Str("playlist_id")
			out = append(out, id)
			if slug, ok := strings.CutPrefix(it.SK, "OWN#"); ok {
				own[slug] = true
			} else if rest, ok := strings.CutPrefix(it.SK, "SHR#"); ok {
				slug := rest[:max(0, strings.LastIndexByte(rest, '#'))] // SHR#slug#id
				if f, seen := firstShared[slug]; !seen || id < f {
					firstShared[slug] = id
				}
				shared = append(shared, [2]string{slug, id})
			}
			if limit > 0 && len(out) == limit {
				return out, nil, nil
			}
		}
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	shadowed := map[string]bool{}
	for _, r := range shared {
		if own[r[0]] || firstShared[r[0]] != r[1] {
			shadowed[r[1]] = true
		}
	}
	return out, shadowed, nil
}

// loadMany reads records in parallel; a missing one is nil.
func (s *Service) loadMany(ctx context.Context, idsIn []string) ([]*Playlist, error) {
	out := make([]*Playlist, len(idsIn))
	errsOut := make([]error, len(idsIn))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, id := range idsIn {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p, err := s.load(ctx, id)
			if errs.Is(err, errs.NotFound) {
				return
			}
			out[i], errsOut[i] = p, err
		}()
	}
	wg.Wait()
	return out, errors.Join(errsOut...)
}

// UpdateInput is a partial update; nil fields stay as they are.
type UpdateInput struct {
	Name        *string
	Description *string
	Image       []byte // raw JPEG/PNG/WebP; nil keeps the current cover
}

// Update changes name, description and cover (owner and collaborators).
// The slug never changes, so the playlist's url keeps working. An update
// that sends no field, or only the values the playlist has, writes
// nothing and returns the playlist as it is (updated_at unchanged).
func (s *Service) Update(ctx context.Context, c Caller, slug string, in UpdateInput) (View, error) {
	const op = "playlists.Update"
	bad := map[string][]string{}
	var name string
	if in.Name != nil {
		name = strings.TrimSpace(*in.Name)
		if msg := checkName(name, false); msg != "" {
			bad["name"] = []string{msg}
		}
	}
	if in.Description != nil {
		if msg := checkDescription(*in.Description); msg != "" {
			bad["description"] = []string{msg}
		}
	}
	var img *processedImage
	if in.Image != nil {
		var err error
		if img, err = processImage(in.Image); err != nil {
			bad["image"] = []string{err.Error()}
		}
	}
	if len(bad) > 0 {
		return View{}, &errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}
	}
	v, err := s.Get(ctx, c, slug)
	if err != nil || (in.Name == nil && in.Description == nil && img == nil) {
		return v, err // no field sent: nothing to write, updated_at stays
	}
	var newImage *Image
	if img != nil {
		if s.blob == nil {
			return View{}, errs.E(op, errs.Unavailable, "Image uploads are not configured.")
		}
		if newImage, err = s.storeImage(ctx, v.ID, img); err != nil {
			return View{}, err
		}
	}
	var oldImage *Image
	p, err := s.mutate(ctx, v.Playlist, mutation{apply: func(p *Playlist) error {
		if p.PermissionOf(c.User.ID) == "" {
			return notFound(op)
		}
		changed := false
		if in.Name != nil && p.Name != name {
			p.Name, changed = name, true
		}
		if in.Description != nil && p.Description != *in.Description {
			p.Description, changed = *in.Description, true
		}
		oldImage = nil
		if newImage != nil && !sameCover(p.Image, newImage) {
			oldImage, p.Image, changed = p.Image, newImage, true
		}
		if !changed {
			return errUnchanged // the same values again (a retry): updated_at stays
		}
		return nil
	}})
	if err != nil {
		if newImage != nil {
			s.dropUnwrittenImage(ctx, v.ID, newImage, oldImage, err)
		}
		return View{}, err
	}
	if oldImage != nil && oldImage.Large != newImage.Large {
		s.deleteImage(ctx, oldImage)
	}
	if newImage != nil && (p.Image == nil || p.Image.Large != newImage.Large) {
		// An earlier run of this request made its change (mutate found its
		// marker) and the cover has moved on since: this upload is no one's.
		s.deleteImage(ctx, newImage)
	}
	return View{Playlist: p, Permission: p.PermissionOf(c.User.ID), Path: v.Path}, nil // the slug never changes
}

// Delete removes a playlist, its viewer rows and its cover (owner only).
// Under a request id (Idempotency-Key) the delete also marks the owner's
// own partition, so a retry whose answer was lost answers the committed
// delete's success, not 404.
func (s *Service) Delete(ctx context.Context, c Caller, slug string) error {
	const op = "playlists.Delete"
	request := idempotency.RequestIDFrom(ctx)
	var pause backoff
	for attempt := 0; attempt < maxMutateAttempts; attempt++ {
		if request != "" {
			// Looked up before the slug (on every attempt: another run of
			// the request may commit meanwhile): a playlist made since under
			// the same slug is not the one this request deleted.
			if _, done, err := idempotency.FindApplied(ctx, s.st, store.Playlists, viewerPK(c.User.ID), request); err != nil {
				return errs.Wrap(op, err)
			} else if done {
				return nil
			}
		}
		v, err := s.Get(ctx, c, slug)
		if err != nil {
			return err
		}
		if v.Permission != PermOwner {
			return errs.E(op, errs.Forbidden, "Only the owner can delete this playlist.")
		}
		release, err := s.owned.Release(ctx, v.Owner.ID)
		if err != nil {
			return errs.Wrap(op, err)
		}
		ops := []store.TxOp{
			store.TxDelete(store.Playlists, recordKey(v.ID), store.Equals("version", v.Version)),
			store.TxDelete(store.Playlists, viewerKey(v.Owner.ID, v.Playlist), nil),
			release,
		}
		for _, col := range v.Collaborators {
			ops = append(ops, store.TxDelete(store.Playlists, viewerKey(col.ID, v.Playlist), nil))
		}
		if request != "" {
			ops = append(ops, idempotency.AppliedOp(store.Playlists, viewerPK(v.Owner.ID), request, s.clock.Now(), nil))
		}
		err = s.st.Transact(ctx, ops)
		if err == nil {
			s.deleteImage(ctx, v.Image)
			return nil
		}
		if !retryable(err) {
			return errs.Wrap(op, err)
		}
		if err := pause.wait(ctx); err != nil {
			return errs.Wrap(op, err)
		}
	}
	return tooManyChanges(op)
}

// ChangeItems adds (add=true) or removes the items of in (owner and
// collaborators). Adding what is already there reports it as duplicated,
// so a retried add changes nothing; removing what is not there reports
// it as skipped.
func (s *Service) ChangeItems(ctx context.Context, c Caller, slug string, add bool, in ItemsInput) (ItemsResult, error) {
	const op = "playlists.ChangeItems"
	if in.empty() {
		return ItemsResult{}, errs.E(op, errs.Invalid, "Send at least one of tracks, stems or soundfxs.")
	}
	refs, bad := parseRefs(in)
	if len(bad) > 0 {
		return ItemsResult{}, &errs.Error{Op: op, Kind: errs.Invalid, Fields: bad}
	}
	v, err := s.Get(ctx, c, slug)
	if err != nil {
		return ItemsResult{}, err
	}
	var lengths map[Ref]int
	skipped := []string{}
	if add {
		if lengths, skipped, err = s.resolve(ctx, c, refs); err != nil {
			return ItemsResult{}, err
		}
	}
	var res ItemsResult
	_, err = s.mutate(ctx, v.Playlist, mutation{apply: func(p *Playlist) error {
		if p.PermissionOf(c.User.ID) == "" {
			return notFound(op)
		}
		res = ItemsResult{Skipped: slices.Clone(skipped), Duplicated: []string{}}
		if add {
			p.Items, res.Added, res.Duplicated = appendNew(p.Items, refs, lengths, res.Duplicated)
			if len(p.Items) > MaxItems {
				return tooManyItems(op)
			}
		} else {
			p.Items, res.Removed, res.Skipped, res.Duplicated = removeRefs(p.Items, refs)
		}
		if res.Added == 0 && res.Removed == 0 {
			return errUnchanged
		}
		return nil
	}, result: &res})
	if err != nil {
		return ItemsResult{}, err
	}
	return res, nil
}

// appendNew appends the refs that have a length (addable) and are not in
// items yet, in request order; repeats go to dup.
func appendNew(items []Item, refs []Ref, lengths map[Ref]int, dup []string) ([]Item, int, []string) {
	have := make(map[Ref]bool, len(items)+len(refs))
	for _, it := range items {
		have[it.ref()] = true
	}
	added := 0
	for _, r := range refs {
		n, ok := lengths[r]
		if !ok {
			continue // skipped
		}
		if have[r] {
			dup = append(dup, r.ID)
			continue
		}
		have[r] = true
		items = append(items, Item{Kind: r.Kind, ID: r.ID, Length: n})
		added++
	}
	return items, added, dup
}

// removeRefs drops the refs from items.
func removeRefs(items []Item, refs []Ref) (kept []Item, removed int, missing, dup []string) {
	want := map[Ref]bool{}
	missing, dup = []string{}, []string{}
	present := map[Ref]bool{}
	for _, it := range items {
		present[it.ref()] = true
	}
	for _, r := range refs {
		switch {
		case want[r]:
			dup = append(dup, r.ID)
		case !present[r]:
			missing = append(missing, r.ID)
		}
		want[r] = true
	}
	kept = make([]Item, 0, len(items))
	for _, it := range items {
		if want[it.ref()] {
			removed++
			continue
		}
		kept = append(kept, it)
	}
	return kept, removed, missing, dup
}

// parseRefs validates the ids of an items input (canonical lower case),
// reporting malformed ones per field.
func parseRefs(in ItemsInput) ([]Ref, map[string][]string) {
	var refs []Ref
	bad := map[string][]string{}
	for _, f := range []struct {
		field string
		kind  Kind
		ids   []string
	}{{"tracks", KindTrack, in.Tracks}, {"stems", KindStem, in.Stems}, {"soundfxs", KindSoundFX, in.SoundFXs}} {
		for _, raw := range f.ids {
			id, ok := ids.CanonicalUUID(strings.TrimSpace(raw))
			switch {
			case !ok && strings.TrimSpace(raw) == "": // JSON null decodes as ""
				bad[f.field] = append(bad[f.field], "An id may not be null or blank.")
				continue
			case !ok:
				bad[f.field] = append(bad[f.field], "\""+raw+"\" is not a valid UUID.")
				continue
			}
			refs = append(refs, Ref{f.kind, id})
		}
	}
	if n := len(refs); n > MaxItems {
		bad["tracks"] = append(bad["tracks"], "Send at most "+strconv.Itoa(MaxItems)+" items at once.")
	}
	return refs, bad
}

// resolve looks the refs up in the catalog and applies the caller's plan
// (interface.md §5): an enterprise-only track (or its stems) only for
// enterprise accounts, sound effects only with sound effects enabled.
// It returns the length of each addable ref and the ids skipped.
func (s *Service) resolve(ctx context.Context, c Caller, refs []Ref) (map[Ref]int, []string, error) {
	lengths := map[Ref]int{}
	skipped := []string{}
	if len(refs) == 0 {
		return lengths, skipped, nil
	}
	if s.catalog == nil {
		return nil, nil, errs.E("playlists.resolve", errs.Unavailable, "The catalog is temporarily unavailable. Please retry.")
	}
	cat, err := s.catalog.Current(ctx)
	if err != nil {
		return nil, nil, &errs.Error{Op: "playlists.resolve", Kind: errs.Unavailable,
			Detail: "The catalog is temporarily unavailable. Please retry.", Err: err}
	}
	seen := map[Ref]bool{}
	for _, r := range refs {
		if seen[r] {
			continue
		}
		seen[r] = true
		n, ok := addable(cat, c, r)
		if !ok {
			skipped = append(skipped, r.ID)
			continue
		}
		lengths[r] = n
	}
	return lengths, skipped, nil
}

func addable(cat *catalog.Catalog, c Caller, r Ref) (int, bool) {
	switch r.Kind {
	case KindTrack:
		t, ok := cat.Track(r.ID)
		if !ok || !catalog.Covers(c.Plan, t) {
			return 0, false
		}
		return t.Length, true
	case KindStem:
		st, t, ok := cat.Stem(r.ID)
		if !ok || !catalog.Covers(c.Plan, t) {
			return 0, false
		}
		return st.Length, true
	case KindSoundFX:
		fx, ok := cat.SoundFX(r.ID)
		if !ok || !c.SFX {
			return 0, false
		}
		return fx.Length, true
	}
	return 0, false
}

// TrackIDs returns the ids of the playlist's tracks (items of kind track)
// in playlist order (owner and collaborators only).
func (s *Service) TrackIDs(ctx context.Context, c Caller, slug string) ([]string, error) {
	v, err := s.Get(ctx, c, slug)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, it := range v.Items {
		if it.Kind == KindTrack {
			out = append(out, it.ID)
		}
	}
	return out, nil
}

// PlaylistsHolding is the search port (search.PlaylistFinder): the ids of
// the user's playlists (owned or shared) holding any of trackIDs, those
// holding more of them first, then the newest.
func (s *Service) PlaylistsHolding(ctx context.Context, userID string, trackIDs []string) ([]string, error) {
	if userID == "" || len(trackIDs) == 0 {
		return nil, nil
	}
	idsSeen, err := s.visibleIDs(ctx, userID, maxSearchedLists)
	if err != nil || len(idsSeen) == 0 {
		return nil, err
	}
	recs, err := s.loadMany(ctx, idsSeen)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(trackIDs))
	for _, id := range trackIDs {
		want[id] = true
	}
	type hit struct {
		id    string
		n, at int
	}
	var hits []hit
	for i, p := range recs {
		if p == nil || p.PermissionOf(userID) == "" {
			continue
		}
		n := 0
		for _, it := range p.Items {
			if it.Kind == KindTrack && want[it.ID] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, hit{p.ID, n, i})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.at, b.at)) })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out, nil
}
