package playlists

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/store"
)

func recordKey(id string) store.Key { return store.Key{PK: "PL#" + id, SK: "META"} }

func viewerPK(userID string) string { return "PLU#" + userID }

// viewerKey is the row that lets userID see playlist p: the owner's row
// is keyed by the slug alone, which makes slugs unique per owner.
func viewerKey(userID string, p *Playlist) store.Key {
	if userID == p.Owner.ID {
		return store.Key{PK: viewerPK(userID), SK: "OWN#" + p.Slug}
	}
	return store.Key{PK: viewerPK(userID), SK: "SHR#" + p.Slug + "#" + p.ID}
}

// viewerItem is the viewer row of userID, indexed newest first by GSI1.
func viewerItem(userID string, p *Playlist) store.Item {
	return store.Item{Key: viewerKey(userID, p), Attrs: map[string]any{
		"playlist_id": p.ID,
		"GSI1PK":      viewerPK(userID),
		// Zero-padded unix nanoseconds sort as strings in time order.
		"GSI1SK": fmt.Sprintf("%020d#%s", store.UnixNano(p.CreatedAt), p.ID),
	}}
}

func recordItem(p *Playlist) (store.Item, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return store.Item{}, err
	}
	return store.Item{Key: recordKey(p.ID), Attrs: map[string]any{
		"data": string(body), "items": encodeItems(p.Items), "version": p.Version,
		// Plain attributes for operators reading the table; the JSON is
		// the source of truth.
		"owner_id": p.Owner.ID, "slug": p.Slug, "tracks": int64(p.Tracks()), "duration": int64(p.Duration()),
	}}, nil
}

// clone copies p deeply enough to edit the copy.
func (p *Playlist) clone() *Playlist {
	c := *p
	c.Items = slices.Clone(p.Items)
	c.Collaborators = slices.Clone(p.Collaborators)
	if p.Image != nil {
		im := *p.Image
		c.Image = &im
	}
	return &c
}

func decodeRecord(it store.Item) (*Playlist, error) {
	var p Playlist
	if err := json.Unmarshal([]byte(it.Str("data")), &p); err != nil {
		return nil, fmt.Errorf("decode playlist %s: %w", it.PK, err)
	}
	items, err := decodeItems(it.Str("items"))
	if err != nil {
		return nil, fmt.Errorf("decode playlist %s items: %w", it.PK, err)
	}
	p.Items, p.Version = items, it.Int("version")
	return &p, nil
}

// Items are stored as "<kind letter><id>:<length>" joined by ",": every
// change reads and writes the whole list, and this costs a fraction of
// JSON objects to parse.
var (
	kindLetter = map[Kind]byte{KindTrack: 't', KindStem: 's', KindSoundFX: 'x'}
	letterKind = map[byte]Kind{'t': KindTrack, 's': KindStem, 'x': KindSoundFX}
)

func encodeItems(items []Item) string {
	var b strings.Builder
	b.Grow(len(items) * 44)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(kindLetter[it.Kind])
		b.WriteString(it.ID)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(it.Length))
	}
	return b.String()
}

func decodeItems(s string) ([]Item, error) {
	if s == "" {
		return []Item{}, nil
	}
	out := make([]Item, 0, strings.Count(s, ",")+1)
	for f := range strings.SplitSeq(s, ",") {
		if f == "" {
			return nil, fmt.Errorf("empty item in %q", s)
		}
		id, length, ok := strings.Cut(f[1:], ":")
		kind, known := letterKind[f[0]]
		n, err := strconv.Atoi(length)
		if !ok || !known || err != nil || id == "" {
			return nil, fmt.Errorf("bad item %q", f)
		}
		out = append(out, Item{Kind: kind, ID: id, Length: n})
	}
	return out, nil
}

// load reads a playlist record; errs.NotFound when absent.
func (s *Service) load(ctx context.Context, id string) (*Playlist, error) {
	it, err := s.st.Get(ctx, store.Playlists, recordKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("playlists.load")
	}
	if err != nil {
		return nil, errs.Wrap("playlists.load", err)
	}
	p, err := decodeRecord(it)
	return p, errs.Wrap("playlists.load", err)
}

// errUnchanged tells mutate that the change has nothing to write.
var errUnchanged = errors.New("unchanged")

// mutation is one optimistic change: apply edits p (read fresh on each
// attempt) and returns errUnchanged when there is nothing to write, or
// the error that ends the request; extra gives writes that must happen
// in the same transaction (viewer rows).
type mutation struct {
	apply func(p *Playlist) error
	extra func(before, after *Playlist) []store.TxOp
}

// retryable reports whether a write failed without writing anything
// because of a concurrent one: a condition on the state it read, or a
// transaction that kept colliding (store.ErrContention).
func retryable(err error) bool {
	return errors.Is(err, store.ErrConditionFailed) || errors.Is(err, store.ErrContention)
}

// mutate applies m to playlist first (as the caller just read it) with an
// optimistic version check, re-reading and retrying with jittered backoff
// when a concurrent writer got there first. It returns the playlist as
// written (or as read when unchanged).
func (s *Service) mutate(ctx context.Context, first *Playlist, m mutation) (*Playlist, error) {
	const op = "playlists.mutate"
	backoff := time.Millisecond
	before := first
	for attempt := 0; attempt < maxMutateAttempts; attempt++ {
		if attempt > 0 {
			var err error
			if before, err = s.load(ctx, first.ID); err != nil {
				return nil, err
			}
		}
		after := before.clone()
		if err := m.apply(after); errors.Is(err, errUnchanged) {
			return before, nil
		} else if err != nil {
			return nil, err
		}
		after.Version = before.Version + 1
		after.UpdatedAt = s.clock.Now().UTC()
		rec, err := recordItem(after)
		if err != nil {
			return nil, errs.Wrap(op, err)
		}
		cond := store.Equals("version", before.Version)
		if m.extra == nil {
			err = s.st.Put(ctx, store.Playlists, rec, cond)
		} else {
			ops := append([]store.TxOp{store.TxPut(store.Playlists, rec, cond)}, m.extra(before, after)...)
			err = s.st.Transact(ctx, ops)
		}
		if err == nil {
			return after, nil
		}
		if !retryable(err) {
			return nil, errs.Wrap(op, err)
		}
		// Lost the race (or the transaction kept colliding with others on
		// the same record, and wrote nothing): wait a little (random,
		// growing) and redo the change on the current version.
		sleep := time.Duration(rand.Int64N(int64(backoff))) + time.Millisecond/2
		select {
		case <-ctx.Done():
			return nil, errs.Wrap(op, ctx.Err())
		case <-time.After(sleep):
		}
		backoff = min(2*backoff, 25*time.Millisecond)
	}
	return nil, &errs.Error{Op: op, Kind: errs.RateLimited, RetryAfter: time.Second,
		Detail: "Too many changes to this playlist at once. Please retry in a moment."}
}
