package blob

import (
	"fmt"
	"io"
)

// ExactReader reads r, which must yield exactly n bytes; otherwise a read
// fails with an error wrapping ErrInvalid. A longer r is noticed before the
// n-th byte is handed out, so a consumer that stops at n bytes (an HTTP body
// of Content-Length n) never sees a complete, truncated object.
func ExactReader(r io.Reader, n int64) io.Reader {
	return &exactReader{r: r, left: n, size: n}
}

type exactReader struct {
	r          io.Reader
	left, size int64
	err        error
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.left == 0 {
		return 0, e.probeEnd()
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	switch {
	case e.left == 0 && err == nil:
		if err := e.probeEnd(); err != io.EOF {
			return 0, err
		}
		return n, nil
	case err == io.EOF && e.left > 0:
		e.err = fmt.Errorf("%w: body shorter than the declared %d bytes", ErrInvalid, e.size)
		return n, e.err
	}
	return n, err
}

// probeEnd returns io.EOF when r has nothing beyond the declared size.
func (e *exactReader) probeEnd() error {
	var one [1]byte
	for range 100 {
		m, err := e.r.Read(one[:])
		if m > 0 {
			e.err = fmt.Errorf("%w: body longer than the declared %d bytes", ErrInvalid, e.size)
			return e.err
		}
		if err != nil {
			if err == io.EOF {
				return io.EOF
			}
			e.err = err
			return err
		}
	}
	e.err = io.ErrNoProgress
	return e.err
}
