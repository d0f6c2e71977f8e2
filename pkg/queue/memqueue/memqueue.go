// Package memqueue is the in-process twin of an SQS queue with a Lambda
// consumer: Send returns at once and a worker hands the message to the
// handler, delivering it again after a failure (up to MaxReceives, like a
// redrive policy) with a growing pause.
package memqueue

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Handler consumes one message; an error asks for a redelivery.
type Handler func(ctx context.Context, body []byte) error

// Defaults of a Queue.
const (
	DefaultMaxReceives = 5
	DefaultRetryDelay  = 200 * time.Millisecond
	capacity           = 1024
)

// Queue delivers messages to a handler on one worker.
type Queue struct {
	handler    Handler
	log        *slog.Logger
	maxRecv    int
	retryDelay time.Duration

	ch     chan []byte
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
}

// New starts a queue consumed by h; Close stops it.
func New(h Handler, log *slog.Logger, retryDelay time.Duration) *Queue {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if retryDelay <= 0 {
		retryDelay = DefaultRetryDelay
	}
	q := &Queue{handler: h, log: log, maxRecv: DefaultMaxReceives, retryDelay: retryDelay, ch: make(chan []byte, capacity)}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	q.wg.Go(q.work)
	return q
}

// ErrClosed is returned by Send after Close.
var ErrClosed = errors.New("memqueue: closed")

// Send queues a copy of body.
func (q *Queue) Send(ctx context.Context, body []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	select {
	case q.ch <- append([]byte(nil), body...):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *Queue) work() {
	for body := range q.ch { // until Close, then what is left
		q.deliver(body)
	}
}

func (q *Queue) deliver(body []byte) {
	delay := q.retryDelay
	for n := 1; ; n++ {
		err := q.handle(body)
		if err == nil {
			return
		}
		if n >= q.maxRecv || q.ctx.Err() != nil {
			q.log.Error("memqueue: message dropped after its last delivery", slog.Int("receives", n), slog.Any("error", err))
			return
		}
		q.log.Warn("memqueue: delivery failed, will retry", slog.Int("receive", n), slog.Any("error", err))
		select {
		case <-q.ctx.Done():
			return
		case <-time.After(delay):
		}
		delay *= 2
	}
}

func (q *Queue) handle(body []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("memqueue: handler panicked")
			q.log.Error("memqueue: handler panicked", slog.Any("panic", p))
		}
	}()
	return q.handler(context.Background(), body)
}

// DrainTimeout bounds how long Close keeps delivering what is queued.
const DrainTimeout = 5 * time.Second

// Close refuses new messages and delivers those already queued (each
// once more at least; retries stop after DrainTimeout), then stops.
func (q *Queue) Close() error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
	q.mu.Unlock()
	stop := time.AfterFunc(DrainTimeout, q.cancel)
	defer stop.Stop()
	q.wg.Wait()
	q.cancel()
	return nil
}
