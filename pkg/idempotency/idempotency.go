package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
)

// Limits of idempotency keys and records (issue 14, item 3).
const (
	// Retention is how long a stored response is replayed, counted from
	// the first request.
	Retention = 24 * time.Hour
	// Lease is how long a claim outlives its last heartbeat: a request
	// whose instance died holds its key for at most this long.
	Lease = 60 * time.Second
	// MaxKeyLength bounds a key, in bytes (printable ASCII only).
	MaxKeyLength = 255
	// MaxBody is the largest response body kept; a DynamoDB item holds
	// 400 KB, and the responses of the endpoints that take keys are a few
	// hundred bytes.
	MaxBody = 256 << 10
)

// Errors of Acquire and Complete (test with errors.Is).
var (
	// ErrInvalidKey: the key is empty, too long or not printable ASCII.
	ErrInvalidKey = errors.New("idempotency: invalid key")
	// ErrMismatch: the key was first used for a different request.
	ErrMismatch = errors.New("idempotency: key reused for a different request")
	// ErrInProgress: the first request with the key is still running.
	ErrInProgress = errors.New("idempotency: request with this key in progress")
	// ErrLost: the claim's lease ran out and the record is no longer ours.
	ErrLost = errors.New("idempotency: claim lost")
	// ErrTooLarge: the response is over MaxBody and cannot be kept.
	ErrTooLarge = errors.New("idempotency: response too large to keep")
)

// ValidateKey checks the key format: 1 to MaxKeyLength bytes of printable
// ASCII (space to tilde).
func ValidateKey(key string) error {
	if key == "" || len(key) > MaxKeyLength {
		return ErrInvalidKey
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return ErrInvalidKey
		}
	}
	return nil
}

// Response is a stored response: what a replay sends again.
type Response struct {
	Status int
	Header map[string][]string
	Body   []byte
}

// Record attributes in the Jobs table.
const (
	attrState       = "state"
	attrFingerprint = "fingerprint"
	attrToken       = "token"
	attrCreated     = "created_at"
	attrStatus      = "status"
	attrHeader      = "header"
	attrBody        = "body"
	statePending    = "pending"
	stateDone       = "done"
)

// recordKey addresses the record of one key of one principal. The key is
// hashed: any printable characters, a bounded partition key.
func recordKey(scope, key string) store.Key {
	sum := sha256.Sum256([]byte(key))
	return store.Key{PK: "IDEMPOTENCY#" + scope + "#" + hex.EncodeToString(sum[:]), SK: "REQUEST"}
}

// Service claims keys and keeps responses in the Jobs table.
type Service struct {
	st    store.Store
	clock clock.Clock
	lease time.Duration
	beat  time.Duration // heartbeat interval

	mu   sync.Mutex
	held map[store.Key]chan struct{} // claims of this process; closed when they end
}

// Option configures a Service.
type Option func(*Service)

// WithLease sets the claim lease and the heartbeat interval (tests); the
// default is Lease, renewed every third of it.
func WithLease(lease, heartbeat time.Duration) Option {
	return func(s *Service) { s.lease, s.beat = lease, heartbeat }
}

// New returns a Service on st; c dates records and their expiry.
func New(st store.Store, c clock.Clock, opts ...Option) *Service {
	s := &Service{st: st, clock: c, lease: Lease, beat: Lease / 3, held: map[store.Key]chan struct{}{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Claim is the right to run the request of one key; end it with Complete
// or Release.
type Claim struct {
	s       *Service
	key     store.Key
	fp      string
	token   string
	created time.Time
	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
}

// Acquire claims key for the request with fingerprint fp. It returns
// either a claim (run the request, then Complete or Release) or the stored
// response of an earlier request with the same key and fingerprint. While
// another request holds the key with the same fingerprint, Acquire waits up
// to wait for it to end, then returns ErrInProgress; a different
// fingerprint is ErrMismatch at once.
func (s *Service) Acquire(ctx context.Context, scope, key, fp string, wait time.Duration) (*Claim, *Response, error) {
	if err := ValidateKey(key); err != nil {
		return nil, nil, err
	}
	k := recordKey(scope, key)
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	poll := 20 * time.Millisecond
	for {
		c, resp, err := s.try(ctx, k, fp)
		if !errors.Is(err, ErrInProgress) {
			return c, resp, err
		}
		// Wake on the end of a claim in this process, or poll for one
		// held by another instance.
		tick := time.NewTimer(poll)
		select {
		case <-s.waiter(k):
		case <-tick.C:
		case <-deadline.C:
			tick.Stop()
			return nil, nil, ErrInProgress
		case <-ctx.Done():
			tick.Stop()
			return nil, nil, ctx.Err()
		}
		tick.Stop()
		poll = min(2*poll, 500*time.Millisecond)
	}
}

// try makes one attempt: claim the key, or read what holds it.
func (s *Service) try(ctx context.Context, k store.Key, fp string) (*Claim, *Response, error) {
	const attempts = 5 // a record can expire or be released between our put and get
	for range attempts {
		now := s.clock.Now()
		tok, err := newToken()
		if err != nil {
			return nil, nil, err
		}
		it := store.Item{Key: k, ExpiresAt: now.Add(s.lease), Attrs: map[string]any{
			attrState: statePending, attrFingerprint: fp, attrToken: tok, attrCreated: store.UnixNano(now)}}
		err = s.st.Put(ctx, store.Jobs, it, store.NotExists())
		if err == nil {
			return s.newClaim(k, fp, tok, now), nil, nil
		}
		if !errors.Is(err, store.ErrConditionFailed) {
			return nil, nil, fmt.Errorf("idempotency: claim: %w", err)
		}
		cur, err := s.st.Get(ctx, store.Jobs, k)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("idempotency: read: %w", err)
		}
		switch {
		case cur.Str(attrFingerprint) != fp:
			return nil, nil, ErrMismatch
		case cur.Str(attrState) == stateDone:
			resp, err := decodeResponse(cur)
			return nil, resp, err
		default:
			return nil, nil, ErrInProgress
		}
	}
	return nil, nil, ErrInProgress
}

func decodeResponse(it store.Item) (*Response, error) {
	r := &Response{Status: int(it.Int(attrStatus)), Body: it.Bytes(attrBody)}
	if h := it.Str(attrHeader); h != "" {
		if err := json.Unmarshal([]byte(h), &r.Header); err != nil {
			return nil, fmt.Errorf("idempotency: stored header: %w", err)
		}
	}
	return r, nil
}

func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// waiter returns a channel closed when the claim of k ends, if this
// process holds it; nil (never ready) when another instance does.
func (s *Service) waiter(k store.Key) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[k]
}

func (s *Service) wake(k store.Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.held[k]; ok {
		close(ch)
		delete(s.held, k)
	}
}

func (s *Service) newClaim(k store.Key, fp, tok string, now time.Time) *Claim {
	c := &Claim{s: s, key: k, fp: fp, token: tok, created: now, stop: make(chan struct{})}
	s.mu.Lock()
	if old, ok := s.held[k]; ok { // a lapsed claim of ours was taken over
		close(old)
	}
	s.held[k] = make(chan struct{})
	s.mu.Unlock()
	c.stopped.Add(1)
	go c.heartbeat()
	return c
}

// RequestID names the claimed request the same way for every run of it:
// the same principal, key and fingerprint give the same UUID, also when
// an earlier run's claim was released (it failed) or lapsed (its instance
// died). A handler that names what it creates with it lets a retry find
// what an earlier run wrote and did not answer, instead of creating it
// twice.
func (c *Claim) RequestID() string { return ids.NameUUID("idempotency", c.key.PK+"\x00"+c.fp) }

type requestIDKey struct{}

// WithRequestID returns ctx carrying a claim's RequestID for the handler.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom returns the RequestID of the claim ctx runs under, or ""
// for a request sent without a key.
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// ours is the condition of every write under a claim.
func (c *Claim) ours() store.Condition {
	return store.And(store.Exists(), store.Equals(attrToken, c.token), store.Equals(attrState, statePending))
}

// heartbeat extends the lease while the request runs, so a request may
// take longer than one lease without its key being taken over.
func (c *Claim) heartbeat() {
	defer c.stopped.Done()
	t := time.NewTicker(c.s.beat)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			exp := c.s.clock.Now().Add(c.s.lease)
			_, err := c.s.st.Update(context.Background(), store.Jobs, c.key, store.Update{ExpiresAt: &exp}, c.ours())
			if errors.Is(err, store.ErrConditionFailed) {
				return // lost: Complete will say so
			}
		}
	}
}

func (c *Claim) end() {
	c.once.Do(func() {
		close(c.stop)
		c.stopped.Wait()
	})
}

// Complete stores resp as the answer to every later request with the key,
// until Retention after the first. It fails with ErrTooLarge (the claim
// is released) or ErrLost.
func (c *Claim) Complete(ctx context.Context, resp Response) error {
	c.end()
	defer c.s.wake(c.key)
	if len(resp.Body) > MaxBody {
		if err := c.release(ctx); err != nil {
			return err
		}
		return ErrTooLarge
	}
	header, err := json.Marshal(resp.Header)
	if err != nil {
		return fmt.Errorf("idempotency: header: %w", err)
	}
	set := map[string]any{attrState: stateDone, attrStatus: int64(resp.Status), attrHeader: string(header)}
	if len(resp.Body) > 0 {
		set[attrBody] = resp.Body
	}
	exp := c.created.Add(Retention)
	_, err = c.s.st.Update(ctx, store.Jobs, c.key, store.Update{Set: set, ExpiresAt: &exp}, c.ours())
	if errors.Is(err, store.ErrConditionFailed) {
		return ErrLost
	}
	if err != nil {
		return fmt.Errorf("idempotency: store response: %w", err)
	}
	return nil
}

// Release gives the key up without a response, so the next request with
// it runs afresh (after a failure or a response not worth keeping).
func (c *Claim) Release(ctx context.Context) error {
	c.end()
	defer c.s.wake(c.key)
	return c.release(ctx)
}

func (c *Claim) release(ctx context.Context) error {
	err := c.s.st.Delete(ctx, store.Jobs, c.key, c.ours())
	if errors.Is(err, store.ErrConditionFailed) {
		return ErrLost
	}
	if err != nil {
		return fmt.Errorf("idempotency: release: %w", err)
	}
	return nil
}
