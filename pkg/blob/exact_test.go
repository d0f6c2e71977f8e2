package blob_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"musiccatalog/pkg/blob"
)

func TestExactReader(t *testing.T) {
	shapes := map[string]func(io.Reader) io.Reader{
		"plain":          func(r io.Reader) io.Reader { return r },
		"one byte":       iotest.OneByteReader,
		"data with EOF":  iotest.DataErrReader,
		"half reads":     iotest.HalfReader,
		"plain, no size": func(r io.Reader) io.Reader { return struct{ io.Reader }{r} },
	}
	for name, shape := range shapes {
		for _, c := range []struct {
			data string
			size int64
			ok   bool
		}{
			{"0123456789", 10, true},
			{"", 0, true},
			{"01234", 10, false},
			{"", 3, false},
			{"0123456789x", 10, false},
			{"x", 0, false},
		} {
			var delivered []byte
			r := blob.ExactReader(shape(strings.NewReader(c.data)), c.size)
			buf := make([]byte, 4)
			var err error
			for {
				var n int
				n, err = r.Read(buf)
				delivered = append(delivered, buf[:n]...)
				if err != nil {
					break
				}
			}
			if c.ok {
				if err != io.EOF || string(delivered) != c.data {
					t.Errorf("%s: %q as %d bytes: got %q, %v", name, c.data, c.size, delivered, err)
				}
				continue
			}
			if !errors.Is(err, blob.ErrInvalid) {
				t.Errorf("%s: %q as %d bytes: error %v, want ErrInvalid", name, c.data, c.size, err)
			}
			// A longer source must not hand out all the declared bytes.
			if int64(len(c.data)) > c.size && int64(len(delivered)) >= c.size && c.size > 0 {
				t.Errorf("%s: %q as %d bytes: delivered %q before failing", name, c.data, c.size, delivered)
			}
		}
	}
}
