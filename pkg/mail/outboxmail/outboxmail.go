// Package outboxmail is the local twin of sesmail: each message becomes
// an .eml file (the very bytes SES would send) in an outbox directory,
// DATA_DIR/outbox on the devserver.
package outboxmail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/mail"
)

var _ mail.Sender = (*Outbox)(nil)

// Outbox writes messages under Dir.
type Outbox struct {
	Dir   string
	From  string
	Clock clock.Clock // default clock.Real
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// Send writes m as Dir/<id>-<unix nanoseconds>.eml, atomically (a reader
// never sees half a message). Every send is a file of its own, as every
// SES send is an email: a duplicate would show.
func (o *Outbox) Send(_ context.Context, m mail.Message) error {
	clk := o.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	raw, err := m.MIME(o.From, clk.Now())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("outboxmail: %w", err)
	}
	f, err := os.CreateTemp(o.Dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("outboxmail: %w", err)
	}
	_, err = f.Write(raw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(o.Dir, fmt.Sprintf("%s-%d.eml", unsafeName.ReplaceAllString(m.ID, "_"), clk.Now().UnixNano())))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("outboxmail: %w", err)
	}
	return nil
}
