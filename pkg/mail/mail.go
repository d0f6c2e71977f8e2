package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/store"
)

// Message is one email: a plain-text and an HTML rendering of the same
// content. ID makes delivery idempotent: the mailer sends one message per
// ID, however often it is queued or delivered.
type Message struct {
	ID      string `json:"id"`
	To      string `json:"to"`
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html"`
}

// Validate checks what a Sender needs.
func (m Message) Validate() error {
	if m.ID == "" || m.Subject == "" || m.Text == "" || m.HTML == "" {
		return errors.New("mail: message needs id, subject, text and html")
	}
	if _, err := mail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("mail: recipient %q: %w", m.To, err)
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return errors.New("mail: subject holds a line break")
	}
	return nil
}

// IsAddress reports whether s is one plain email address (no display name).
func IsAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// MIME renders m as an RFC 5322 message from sender: multipart/alternative
// with the text part first and the HTML part last (the preferred one), both
// UTF-8 quoted-printable. SES sends these bytes as they are; the outbox
// stores them.
func (m Message) MIME(from string, date time.Time) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, part := range []struct{ typ, content string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.typ + "; charset=UTF-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(w)
		if _, err := qp.Write([]byte(part.content)); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	header := [][2]string{
		{"From", from},
		{"To", m.To},
		{"Subject", mime.QEncoding.Encode("UTF-8", m.Subject)},
		{"Date", date.UTC().Format(time.RFC1123Z)},
		{"Message-ID", "<" + m.ID + "@musiccatalog>"},
		{"MIME-Version", "1.0"},
		{"Content-Type", "multipart/alternative; boundary=" + mw.Boundary()},
	}
	for _, h := range header {
		fmt.Fprintf(&out, "%s: %s\r\n", h[0], h[1])
	}
	out.WriteString("\r\n")
	out.Write(body.Bytes())
	return out.Bytes(), nil
}

// Sender hands one rendered message to its transport.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Mailer sends queued messages exactly once per ID: a delivery record in
// the Jobs table is claimed with a conditional write before sending and
// marked sent after. A message whose record is sent is dropped; one whose
// claim is held by a delivery still running (within Lease) is left for
// the queue to redeliver; a claim older than Lease (its mailer died) is
// taken over. A Sender failure releases the claim and is returned, so the
// queue delivers the message again.
type Mailer struct {
	Store  store.Store
	Sender Sender
	Clock  clock.Clock // default clock.Real
	Log    *slog.Logger
	// Keep is how long a delivery record is kept (default 7 days, longer
	// than any redelivery of the queue).
	Keep time.Duration
	// Lease is how long a claim holds before another delivery may take it.
	Lease time.Duration
}

// Defaults of a Mailer.
const (
	DefaultKeep  = 7 * 24 * time.Hour
	DefaultLease = 2 * time.Minute
)

// ErrClaimed means another delivery of the same message is under way;
// the queue should deliver it again later.
var ErrClaimed = errors.New("mail: another delivery of this message is under way")

func deliveryKey(id string) store.Key { return store.Key{PK: "MAIL#" + id, SK: "DELIVERY"} }

// Handle delivers one queued message body (Message as JSON). A malformed
// body can never be delivered: it is logged and dropped (nil).
func (ml *Mailer) Handle(ctx context.Context, body []byte) error {
	log := ml.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		log.Error("mail: dropping an unreadable message", slog.Any("error", err))
		return nil
	}
	if err := m.Validate(); err != nil {
		log.Error("mail: dropping an invalid message", slog.String("id", m.ID), slog.Any("error", err))
		return nil
	}
	clk := ml.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	keep, lease := cmpOr(ml.Keep, DefaultKeep), cmpOr(ml.Lease, DefaultLease)
	now := clk.Now()
	token := newToken()
	k := deliveryKey(m.ID)
	// Claim: no record yet, or a claim (not a sent one) whose lease ran out.
	_, err := ml.Store.Update(ctx, store.Jobs, k, store.Update{
		Set:       map[string]any{"status": "sending", "claim": token, "lease_until": store.UnixNano(now.Add(lease))},
		ExpiresAt: ptr(now.Add(keep)),
	}, store.Or(store.NotExists(), store.And(store.Equals("status", "sending"), store.LessThan("lease_until", store.UnixNano(now)))))
	if errors.Is(err, store.ErrConditionFailed) {
		it, gerr := ml.Store.Get(ctx, store.Jobs, k)
		if gerr == nil && it.Str("status") == "sent" {
			log.Info("mail: already sent", slog.String("id", m.ID))
			return nil
		}
		return ErrClaimed
	}
	if err != nil {
		return fmt.Errorf("mail: claim %s: %w", m.ID, err)
	}
	if err := ml.Sender.Send(ctx, m); err != nil {
		// Released only if still ours, so a later claim is never undone.
		if derr := ml.Store.Delete(context.WithoutCancel(ctx), store.Jobs, k, store.Equals("claim", token)); derr != nil && !errors.Is(derr, store.ErrConditionFailed) {
			log.Warn("mail: releasing a claim", slog.String("id", m.ID), slog.Any("error", derr))
		}
		return fmt.Errorf("mail: send %s: %w", m.ID, err)
	}
	_, err = ml.Store.Update(context.WithoutCancel(ctx), store.Jobs, k, store.Update{
		Set: map[string]any{"status": "sent", "sent_at": store.UnixNano(clk.Now())}}, store.Equals("claim", token))
	if err != nil {
		// Sent, but not recorded: a redelivery after the lease could send
		// it again. Logged; the queue is not asked to redeliver.
		log.Warn("mail: sent but not recorded", slog.String("id", m.ID), slog.Any("error", err))
	}
	log.Info("mail: sent", slog.String("id", m.ID))
	return nil
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func ptr[T any](v T) *T { return &v }

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
