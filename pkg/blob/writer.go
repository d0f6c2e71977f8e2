package blob

import (
	"context"
	"errors"
	"io"
	"sync"
)

// Writer is an object being written as a stream: Close commits it (the
// object appears whole, or not at all), Abort discards what was written.
// After either, the Writer is done; Abort after Close does nothing.
type Writer interface {
	io.Writer
	Close() error
	Abort()
}

// Creator is a store that takes an object of unknown size as a stream
// without holding it whole in memory or on disk (S3: a multipart upload).
// A store without it is written through Put (NewWriter).
type Creator interface {
	Create(ctx context.Context, key, contentType string) (Writer, error)
}

// NewWriter returns a Writer of key on s: the store's own when it is a
// Creator, else one that feeds Put of unknown size through a pipe (for
// stores whose Put streams, as fileblob's does).
func NewWriter(ctx context.Context, s Store, key, contentType string) (Writer, error) {
	if c, ok := s.(Creator); ok {
		return c.Create(ctx, key, contentType)
	}
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	if err := ValidateContentType(contentType); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	w := &pipeWriter{pw: pw, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = s.Put(ctx, key, pr, -1, contentType)
		pr.CloseWithError(w.err) // unblock a writer when Put stopped early
	}()
	return w, nil
}

// errAborted ends the pipe of an aborted pipeWriter, so Put stores nothing.
var errAborted = errors.New("blob: write aborted")

type pipeWriter struct {
	pw     *io.PipeWriter
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	once   sync.Once
}

func (w *pipeWriter) Write(p []byte) (int, error) { return w.pw.Write(p) }

func (w *pipeWriter) Close() error {
	closed := false
	w.once.Do(func() { closed = true; w.pw.Close() })
	<-w.done
	w.cancel()
	if !closed {
		return errAborted
	}
	return w.err
}

func (w *pipeWriter) Abort() {
	w.once.Do(func() {
		w.pw.CloseWithError(errAborted)
		w.cancel()
	})
	<-w.done
}
