package boltstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"musiccatalog/pkg/store"
)

var _ store.Store = (*Store)(nil)

const (
	defaultLockTimeout   = time.Second
	defaultSweepInterval = 5 * time.Minute
)

// ErrLocked is returned by Open when another process holds the file.
var ErrLocked = errors.New("boltstore: database file is in use by another process")

// Store is store.Store on a bbolt file. It is safe for concurrent use.
type Store struct {
	db  *bolt.DB
	now func() time.Time

	stopSweep chan struct{}
	sweepDone chan struct{}
	closeOnce sync.Once
	closeErr  error
}

type config struct {
	now         func() time.Time
	sweepEvery  time.Duration
	lockTimeout time.Duration
}

// Option configures Open.
type Option func(*config)

// WithClock replaces time.Now as the source of the current time, which
// decides whether an item has expired.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithSweepInterval sets how often a background goroutine deletes expired
// items (default 5 minutes); zero or less disables it.
func WithSweepInterval(d time.Duration) Option { return func(c *config) { c.sweepEvery = d } }

// WithLockTimeout sets how long Open waits for a file another process
// holds before failing with ErrLocked (default 1 second).
func WithLockTimeout(d time.Duration) Option { return func(c *config) { c.lockTimeout = d } }

// Open opens or creates the store file at path.
func Open(path string, opts ...Option) (*Store, error) {
	cfg := config{now: time.Now, sweepEvery: defaultSweepInterval, lockTimeout: defaultLockTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: cfg.lockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s (waited %v)", ErrLocked, path, cfg.lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, t := range store.AllTables {
			if _, err := tx.CreateBucketIfNotExists(tableBucket(t)); err != nil {
				return err
			}
			for _, ix := range store.Indexes[t] {
				if _, err := tx.CreateBucketIfNotExists(indexBucket(t, ix)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: prepare %s: %w", path, err)
	}
	db.MaxBatchDelay = batchDelay
	s := &Store{db: db, now: cfg.now}
	if cfg.sweepEvery > 0 {
		s.stopSweep = make(chan struct{})
		s.sweepDone = make(chan struct{})
		go s.sweepLoop(cfg.sweepEvery)
	}
	return s, nil
}

// Close stops the background sweep and closes the file.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.stopSweep != nil {
			close(s.stopSweep)
			<-s.sweepDone
		}
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

func (s *Store) sweepLoop(every time.Duration) {
	defer close(s.sweepDone)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-s.stopSweep:
			return
		case <-tick.C:
			// Reads already hide expired items, so a failed sweep only
			// delays reclaiming space; the next tick tries again.
			if _, err := s.Sweep(context.Background()); err != nil {
				slog.Warn("boltstore: sweep failed", "err", err)
			}
		}
	}
}

// Sweep deletes every expired item and returns how many it deleted.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	now := s.now()
	deleted := 0
	for _, t := range store.AllTables {
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		err := s.db.Update(func(tx *bolt.Tx) error {
			var dead []store.Item
			err := tx.Bucket(tableBucket(t)).ForEach(func(k, v []byte) error {
				it, err := decodeItem(k, v)
				if err != nil {
					return err
				}
				if expired(it, now) {
					dead = append(dead, it)
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, it := range dead {
				if err := removeItem(tx, t, it); err != nil {
					return err
				}
			}
			deleted += len(dead)
			return nil
		})
		if err != nil {
			return deleted, fmt.Errorf("boltstore: sweep %s: %w", t, err)
		}
	}
	return deleted, nil
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, t store.Table, k store.Key) (store.Item, error) {
	if err := checkCall(ctx, t); err != nil {
		return store.Item{}, err
	}
	if err := store.CheckKey(k); err != nil {
		return store.Item{}, err
	}
	var it *store.Item
	err := s.db.View(func(tx *bolt.Tx) error {
		cur, err := loadLive(tx, t, k, s.now())
		it = cur
		return err
	})
	if err != nil {
		return store.Item{}, err
	}
	if it == nil {
		return store.Item{}, fmt.Errorf("boltstore: get %s %q/%q: %w", t, k.PK, k.SK, store.ErrNotFound)
	}
	return *it, nil
}

// batchDelay is how long a write waits for others to share its commit.
// Every bolt commit is an fsync, and bolt commits one at a time: under
// concurrent writes, group commit (bolt's Batch) turns N fsyncs into one,
// for at most this much added latency on a lone write.
const batchDelay = 500 * time.Microsecond

// write runs fn in a read-write transaction that may be committed together
// with concurrent writes. fn may run more than once (bolt reruns a batch
// without the call that failed), so it must only read and write through
// tx and set its results afresh each time. A failed condition is not a
// failure of the batch: fn returns it before writing anything (apply
// checks first; Transact checks every op before applying one), so the
// others' writes commit and the caller gets ErrConditionFailed — without
// this, every lost optimistic race would roll the whole batch back.
func (s *Store) write(fn func(*bolt.Tx) error) error {
	var condErr error
	err := s.db.Batch(func(tx *bolt.Tx) error {
		condErr = nil
		err := fn(tx)
		if errors.Is(err, store.ErrConditionFailed) {
			condErr = err
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return condErr
}

// Put implements store.Store.
func (s *Store) Put(ctx context.Context, t store.Table, it store.Item, cond store.Condition) error {
	if err := checkCall(ctx, t); err != nil {
		return err
	}
	op, err := store.NormalizeOp(store.TxPut(t, it, cond))
	if err != nil {
		return err
	}
	return s.write(func(tx *bolt.Tx) error {
		_, err := apply(tx, op, s.now())
		return err
	})
}

// Update implements store.Store.
func (s *Store) Update(ctx context.Context, t store.Table, k store.Key, u store.Update, cond store.Condition) (store.Item, error) {
	if err := checkCall(ctx, t); err != nil {
		return store.Item{}, err
	}
	op, err := store.NormalizeOp(store.TxUpdate(t, k, u, cond))
	if err != nil {
		return store.Item{}, err
	}
	var out store.Item
	err = s.write(func(tx *bolt.Tx) error {
		out, err = apply(tx, op, s.now())
		return err
	})
	return out, err
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, t store.Table, k store.Key, cond store.Condition) error {
	if err := checkCall(ctx, t); err != nil {
		return err
	}
	op, err := store.NormalizeOp(store.TxDelete(t, k, cond))
	if err != nil {
		return err
	}
	return s.write(func(tx *bolt.Tx) error {
		_, err := apply(tx, op, s.now())
		return err
	})
}

// Transact implements store.Store. One bolt write transaction makes the
// ops atomic; returning an error from it rolls every op back.
func (s *Store) Transact(ctx context.Context, ops []store.TxOp) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ops, err := store.NormalizeTx(ops)
	if err != nil || len(ops) == 0 {
		return err
	}
	now := s.now()
	return s.write(func(tx *bolt.Tx) error {
		for i, op := range ops { // every condition before any write (see write)
			if err := check(tx, op, now); err != nil {
				return fmt.Errorf("transaction op %d: %w", i, err)
			}
		}
		for i, op := range ops {
			if _, err := apply(tx, op, now); err != nil {
				return fmt.Errorf("transaction op %d: %w", i, err)
			}
		}
		return nil
	})
}

func checkCall(ctx context.Context, t store.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return store.CheckTable(t)
}

// apply performs one normalized op inside tx and returns the item it
// wrote (for updates).
func apply(tx *bolt.Tx, op store.TxOp, now time.Time) (store.Item, error) {
	k := op.TargetKey()
	stored, cur, err := checked(tx, op, now)
	if err != nil {
		return store.Item{}, err
	}
	switch op.Kind {
	case store.TxKindPut:
		return op.Item, writeItem(tx, op.Table, stored, op.Item)
	case store.TxKindUpdate:
		it, err := applyUpdate(k, cur, op.Update)
		if err != nil {
			return store.Item{}, err
		}
		return it, writeItem(tx, op.Table, stored, it)
	case store.TxKindDelete:
		if stored == nil {
			return store.Item{}, nil
		}
		return store.Item{}, removeItem(tx, op.Table, *stored)
	}
	return store.Item{}, nil
}

// check evaluates op's condition without writing.
func check(tx *bolt.Tx, op store.TxOp, now time.Time) error {
	_, _, err := checked(tx, op, now)
	return err
}

// checked loads op's target (stored: as on disk, cur: nil when expired)
// and evaluates the condition on it.
func checked(tx *bolt.Tx, op store.TxOp, now time.Time) (stored, cur *store.Item, err error) {
	k := op.TargetKey()
	stored, err = load(tx, op.Table, k)
	if err != nil {
		return nil, nil, err
	}
	cur = stored
	if cur != nil && expired(*cur, now) {
		cur = nil
	}
	if ok, err := store.Eval(op.Cond, cur); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("boltstore: %s %s %q/%q: %w", opName(op.Kind), op.Table, k.PK, k.SK, store.ErrConditionFailed)
		}
		return nil, nil, err
	}
	return stored, cur, nil
}

func opName(k store.TxKind) string {
	switch k {
	case store.TxKindPut:
		return "put"
	case store.TxKindUpdate:
		return "update"
	case store.TxKindDelete:
		return "delete"
	}
	return "check"
}

// applyUpdate computes the item u makes of cur (nil when absent or expired).
func applyUpdate(k store.Key, cur *store.Item, u store.Update) (store.Item, error) {
	it := store.Item{Key: k, Attrs: map[string]any{}}
	if cur != nil {
		maps.Copy(it.Attrs, cur.Attrs)
		it.ExpiresAt = cur.ExpiresAt
	}
	maps.Copy(it.Attrs, u.Set)
	for name, n := range u.Add {
		sum, err := addNumber(it.Attrs[name], n)
		if err != nil {
			return store.Item{}, fmt.Errorf("%w: Add to %q: %v", store.ErrInvalid, name, err)
		}
		it.Attrs[name] = sum
	}
	for _, name := range u.Remove {
		delete(it.Attrs, name)
	}
	if u.ExpiresAt != nil {
		it.ExpiresAt = *u.ExpiresAt
	}
	return it, store.CheckItemSize(it)
}

// addNumber adds like DynamoDB's ADD: a missing attribute counts as 0 and
// a sum beyond int64 carries on as a float.
func addNumber(v any, n int64) (any, error) {
	switch x := v.(type) {
	case nil:
		return n, nil
	case int64:
		sum := x + n
		if (n > 0 && sum < x) || (n < 0 && sum > x) {
			return store.NormalizeValue(float64(x) + float64(n))
		}
		return sum, nil
	case float64:
		return store.NormalizeValue(x + float64(n))
	}
	return nil, fmt.Errorf("attribute holds %T, not a number", v)
}

func expired(it store.Item, now time.Time) bool {
	return !it.ExpiresAt.IsZero() && !now.Before(it.ExpiresAt)
}

// load returns the stored item, expired or not, or nil when there is none.
func load(tx *bolt.Tx, t store.Table, k store.Key) (*store.Item, error) {
	key := tableKey(k)
	v := tx.Bucket(tableBucket(t)).Get(key)
	if v == nil {
		return nil, nil
	}
	it, err := decodeItem(key, v)
	return &it, err
}

// loadLive is load with expired items treated as absent.
func loadLive(tx *bolt.Tx, t store.Table, k store.Key, now time.Time) (*store.Item, error) {
	it, err := load(tx, t, k)
	if err != nil || it == nil || expired(*it, now) {
		return nil, err
	}
	return it, nil
}

// writeItem stores it in place of old (nil when there was none), moving
// its index entries along.
func writeItem(tx *bolt.Tx, t store.Table, old *store.Item, it store.Item) error {
	v, err := encodeItem(it)
	if err != nil {
		return err
	}
	if err := tx.Bucket(tableBucket(t)).Put(tableKey(it.Key), v); err != nil {
		return err
	}
	for _, ix := range store.Indexes[t] {
		b := tx.Bucket(indexBucket(t, ix))
		newKey := indexKey(it, ix)
		if old != nil {
			if oldKey := indexKey(*old, ix); oldKey != nil && !bytes.Equal(oldKey, newKey) {
				if err := b.Delete(oldKey); err != nil {
					return err
				}
			}
		}
		if newKey != nil {
			if err := b.Put(newKey, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func removeItem(tx *bolt.Tx, t store.Table, it store.Item) error {
	if err := tx.Bucket(tableBucket(t)).Delete(tableKey(it.Key)); err != nil {
		return err
	}
	for _, ix := range store.Indexes[t] {
		if key := indexKey(it, ix); key != nil {
			if err := tx.Bucket(indexBucket(t, ix)).Delete(key); err != nil {
				return err
			}
		}
	}
	return nil
}

// Query implements store.Store. The cursor is the bucket key of the last
// item returned; a page ends early only when a further live item exists,
// so the last page always has an empty cursor.
func (s *Store) Query(ctx context.Context, t store.Table, q store.Query) (store.Page, error) {
	if err := ctx.Err(); err != nil {
		return store.Page{}, err
	}
	if err := store.CheckQuery(t, q); err != nil {
		return store.Page{}, err
	}
	sp := querySpan(q)
	var after []byte
	if q.Cursor != "" {
		var err error
		after, err = base64.RawURLEncoding.DecodeString(q.Cursor)
		if err != nil || !sp.contains(after) {
			return store.Page{}, fmt.Errorf("%w: cursor does not belong to this query", store.ErrInvalid)
		}
	}
	now := s.now()
	var page store.Page
	err := s.db.View(func(tx *bolt.Tx) error {
		bucket := tableBucket(t)
		if q.Index != "" {
			bucket = indexBucket(t, q.Index)
		}
		c := tx.Bucket(bucket).Cursor()
		var last []byte
		for k, v := sp.first(c, q.Descending, after); k != nil && sp.contains(k); k, v = sp.next(c, q.Descending) {
			it, err := resolve(tx, t, q.Index != "", k, v)
			if err != nil {
				return err
			}
			if it == nil || expired(*it, now) {
				continue
			}
			if q.Limit > 0 && len(page.Items) == q.Limit {
				page.Cursor = base64.RawURLEncoding.EncodeToString(last)
				return nil
			}
			page.Items = append(page.Items, *it)
			last = k
		}
		return nil
	})
	if err != nil {
		return store.Page{}, fmt.Errorf("boltstore: query %s: %w", t, err)
	}
	return page, nil
}

// resolve turns a bucket entry into its item: table entries hold it,
// index entries point at it.
func resolve(tx *bolt.Tx, t store.Table, index bool, k, v []byte) (*store.Item, error) {
	if !index {
		it, err := decodeItem(k, v)
		return &it, err
	}
	parts, err := splitParts(k)
	if err != nil || len(parts) != 4 {
		return nil, fmt.Errorf("corrupt index key %q", k)
	}
	return load(tx, t, store.Key{PK: parts[2], SK: parts[3]})
}

// span is the range [lo, hi) of bucket keys a query reads; hi == nil is
// unbounded.
type span struct{ lo, hi []byte }

func querySpan(q store.Query) span {
	p := appendPart(nil, q.PK)
	switch {
	case q.SKPrefix != "":
		lo := appendEscaped(bytes.Clone(p), q.SKPrefix)
		return span{lo, successor(lo)}
	default:
		sp := span{p, successor(p)}
		if q.SKFrom != "" {
			sp.lo = appendEscaped(bytes.Clone(p), q.SKFrom)
		}
		if q.SKTo != "" {
			// Every part equal to SKTo continues with the terminator 0x00 0x01
			// and every greater one with 0x00 0xFF or a non-zero byte.
			sp.hi = append(appendEscaped(bytes.Clone(p), q.SKTo), 0, 2)
		}
		return sp
	}
}

func (sp span) contains(k []byte) bool {
	return bytes.Compare(k, sp.lo) >= 0 && (sp.hi == nil || bytes.Compare(k, sp.hi) < 0)
}

// first positions c at the first key of the span in the query's order,
// or right after the cursor key when there is one.
func (sp span) first(c *bolt.Cursor, descending bool, after []byte) ([]byte, []byte) {
	if !descending {
		if after == nil {
			return c.Seek(sp.lo)
		}
		k, v := c.Seek(after)
		if bytes.Equal(k, after) {
			return c.Next()
		}
		return k, v
	}
	bound := sp.hi
	if after != nil {
		bound = after
	}
	if bound == nil {
		return c.Last()
	}
	if k, _ := c.Seek(bound); k == nil {
		return c.Last()
	}
	return c.Prev()
}

func (sp span) next(c *bolt.Cursor, descending bool) ([]byte, []byte) {
	if descending {
		return c.Prev()
	}
	return c.Next()
}

func tableBucket(t store.Table) []byte { return []byte("table/" + string(t)) }

func indexBucket(t store.Table, ix string) []byte {
	return []byte("index/" + string(t) + "/" + ix)
}

func tableKey(k store.Key) []byte { return appendPart(appendPart(nil, k.PK), k.SK) }

// indexKey is it's entry in index ix, or nil when it is not in the index.
func indexKey(it store.Item, ix string) []byte {
	pk, okPK := it.Attrs[ix+"PK"].(string)
	sk, okSK := it.Attrs[ix+"SK"].(string)
	if !okPK || !okSK {
		return nil
	}
	return append(appendPart(appendPart(nil, pk), sk), tableKey(it.Key)...)
}

// appendPart appends s so that concatenated parts sort like the tuple of
// strings: 0x00 is escaped as 0x00 0xFF and a part ends with 0x00 0x01.
func appendPart(b []byte, s string) []byte {
	return append(appendEscaped(b, s), 0, 1)
}

func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			b = append(b, 0, 0xFF)
		} else {
			b = append(b, s[i])
		}
	}
	return b
}

func splitParts(k []byte) ([]string, error) {
	var parts []string
	var cur []byte
	for i := 0; i < len(k); i++ {
		if k[i] != 0 {
			cur = append(cur, k[i])
			continue
		}
		if i+1 == len(k) {
			return nil, errors.New("truncated key")
		}
		i++
		switch k[i] {
		case 0xFF:
			cur = append(cur, 0)
		case 1:
			parts = append(parts, string(cur))
			cur = cur[:0]
		default:
			return nil, errors.New("bad escape in key")
		}
	}
	if len(cur) > 0 {
		return nil, errors.New("unterminated key part")
	}
	return parts, nil
}

// successor is the smallest key greater than every key with prefix p, or
// nil when there is none.
func successor(p []byte) []byte {
	s := bytes.Clone(p)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < 0xFF {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}

// record is the stored form of an item; each value keeps its type, like a
// DynamoDB AttributeValue.
type record struct {
	Attrs     map[string]value `json:"a,omitempty"`
	ExpiresAt int64            `json:"e,omitempty"`
}

type value struct {
	S *string  `json:"s,omitempty"`
	I *int64   `json:"i,omitempty"`
	F *float64 `json:"f,omitempty"`
	B *bool    `json:"b,omitempty"`
	Y *[]byte  `json:"y,omitempty"`
}

func encodeItem(it store.Item) ([]byte, error) {
	r := record{Attrs: make(map[string]value, len(it.Attrs))}
	if !it.ExpiresAt.IsZero() {
		r.ExpiresAt = it.ExpiresAt.Unix()
	}
	for name, v := range it.Attrs {
		switch x := v.(type) {
		case string:
			r.Attrs[name] = value{S: &x}
		case int64:
			r.Attrs[name] = value{I: &x}
		case float64:
			r.Attrs[name] = value{F: &x}
		case bool:
			r.Attrs[name] = value{B: &x}
		case []byte:
			r.Attrs[name] = value{Y: &x}
		default:
			return nil, fmt.Errorf("attribute %q holds unnormalized %T", name, v)
		}
	}
	return json.Marshal(r)
}

func decodeItem(k, v []byte) (store.Item, error) {
	parts, err := splitParts(k)
	if err != nil || len(parts) != 2 {
		return store.Item{}, fmt.Errorf("corrupt table key %q", k)
	}
	var r record
	if err := json.Unmarshal(v, &r); err != nil {
		return store.Item{}, fmt.Errorf("corrupt item %q: %w", k, err)
	}
	it := store.Item{Key: store.Key{PK: parts[0], SK: parts[1]}, Attrs: make(map[string]any, len(r.Attrs))}
	if r.ExpiresAt != 0 {
		it.ExpiresAt = time.Unix(r.ExpiresAt, 0).UTC()
	}
	for name, x := range r.Attrs {
		switch {
		case x.S != nil:
			it.Attrs[name] = *x.S
		case x.I != nil:
			it.Attrs[name] = *x.I
		case x.F != nil:
			it.Attrs[name] = *x.F
		case x.B != nil:
			it.Attrs[name] = *x.B
		case x.Y != nil:
			it.Attrs[name] = *x.Y
		default:
			return store.Item{}, fmt.Errorf("corrupt item %q: attribute %q has no value", k, name)
		}
	}
	return it, nil
}
