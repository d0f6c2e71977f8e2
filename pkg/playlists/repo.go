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
	"musiccatalog/pkg/idempotency"
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
	// result, when set, points to what the change answers besides the
	// playlist (set by apply). Under an Idempotency-Key it is kept with
	// the change's marker and given back to a retry (see mutate).
	result any
}

// retryable reports whether a write failed without writing anything
// because of a concurrent one: a condition on the state it read, or a
// transaction that kept colliding (store.ErrContention).
func retryable(err error) bool {
	return errors.Is(err, store.ErrConditionFailed) || errors.Is(err, store.ErrContention)
}

// unsureWrite marks mutate's failure on a record write that may still
// commit: the store answered with neither ErrConditionFailed nor
// ErrContention (both say nothing was written) but a timeout, a cancelled
// context, a dropped connection or a service fault.
type unsureWrite struct{ error }

func (u unsureWrite) Unwrap() error { return u.error }

// writeMayCommit reports whether err (from mutate) leaves the write's
// outcome unknown. Every other mutate error is definite: an apply (domain)
// error, a failed read, or running out of attempts all follow writes that
// the store refused.
func writeMayCommit(err error) bool {
	var u unsureWrite
	return errors.As(err, &u)
}

// mutate applies m to playlist first (as the caller just read it) with an
// optimistic version check, re-reading and retrying with jittered backoff
// when a concurrent writer got there first. It returns the playlist as
// written (or as read when unchanged).
//
// Under an Idempotency-Key (idempotency.RequestIDFrom(ctx)), the write
// also stores a marker of the request in the same transaction
// (idempotency.AppliedOp), with *m.result. A run of a request whose
// marker exists (an earlier run committed, then answered an error) does
// not apply the change again: it sets *m.result to what that run answered
// and returns the playlist as it is now.
func (s *Service) mutate(ctx context.Context, first *Playlist, m mutation) (*Playlist, error) {
	const op = "playlists.mutate"
	var pause backoff
	before := first
	request := idempotency.RequestIDFrom(ctx)
	for attempt := 0; attempt < maxMutateAttempts; attempt++ {
		if attempt > 0 {
			var err error
			if before, err = s.load(ctx, first.ID); err != nil {
				return nil, err
			}
		}
		if request != "" {
			if done, err := s.applied(ctx, before.ID, request, m.result); err != nil || done {
				return before, err
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
		ops := []store.TxOp{store.TxPut(store.Playlists, rec, cond)}
		if m.extra != nil {
			ops = append(ops, m.extra(before, after)...)
		}
		if request != "" {
			var result []byte
			if m.result != nil {
				if result, err = json.Marshal(m.result); err != nil {
					return nil, errs.Wrap(op, err)
				}
			}
			ops = append(ops, idempotency.AppliedOp(store.Playlists, recordKey(after.ID).PK, request, after.UpdatedAt, result))
		}
		if len(ops) == 1 {
			err = s.st.Put(ctx, store.Playlists, rec, cond)
		} else {
			err = s.st.Transact(ctx, ops)
		}
		if err == nil {
			return after, nil
		}
		if !retryable(err) {
			return nil, errs.Wrap(op, unsureWrite{err})
		}
		// Lost the race (or the transaction kept colliding with others on
		// the same record, and wrote nothing): wait a little and redo the
		// change on the current version.
		if err := pause.wait(ctx); err != nil {
			return nil, errs.Wrap(op, err)
		}
	}
	return nil, tooManyChanges(op)
}

// applied reports whether a run of request already changed playlist id,
// and then decodes what it answered into result (when set).
func (s *Service) applied(ctx context.Context, id, request string, result any) (bool, error) {
	const op = "playlists.applied"
	data, done, err := idempotency.FindApplied(ctx, s.st, store.Playlists, recordKey(id).PK, request)
	if err != nil || !done {
		return false, errs.Wrap(op, err)
	}
	if result != nil && len(data) > 0 {
		if err := json.Unmarshal(data, result); err != nil {
			return false, errs.Wrap(op, err)
		}
	}
	return true, nil
}

// tooManyChanges answers a change that lost the race maxMutateAttempts
// times.
func tooManyChanges(op string) error {
	return &errs.Error{Op: op, Kind: errs.RateLimited, RetryAfter: time.Second,
		Detail: "Too many changes to this playlist at once. Please retry in a moment."}
}

// tooManyCreates answers a create that lost its race too often: its slug
// kept being taken, or the owner's deletes kept moving the count of what
// they own (quota.Held). Nothing was written; like tooManyChanges it is
// transient.
func tooManyCreates(op string) error {
	return &errs.Error{Op: op, Kind: errs.RateLimited, RetryAfter: time.Second,
		Detail: "Too many playlists created or deleted at once. Please retry in a moment."}
}

// backoff is the pause between attempts of a write that lost a race:
// random (so that the racers spread out), growing from up to 1 ms to up
// to 25 ms.
type backoff struct{ max time.Duration }

// wait sleeps the next pause; ctx's error when it ends first.
func (b *backoff) wait(ctx context.Context) error {
	if b.max == 0 {
		b.max = time.Millisecond
	}
	sleep := time.Duration(rand.Int64N(int64(b.max))) + time.Millisecond/2
	b.max = min(2*b.max, 25*time.Millisecond)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(sleep):
		return nil
	}
}
