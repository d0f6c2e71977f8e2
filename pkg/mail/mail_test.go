package mail_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/mail"
	"musiccatalog/pkg/store/boltstore"
)

type countingSender struct {
	sent atomic.Int32
	fail atomic.Bool
}

func (s *countingSender) Send(ctx context.Context, m mail.Message) error {
	if s.fail.Load() {
		return errors.New("transport down")
	}
	time.Sleep(5 * time.Millisecond) // a send takes a while: concurrent deliveries overlap
	s.sent.Add(1)
	return nil
}

func message() []byte {
	b, _ := json.Marshal(mail.Message{ID: "render-k-b", To: "ana@example.com", Subject: "Ready: Clip «1».mp4", Text: "Link: https://x.example/a?b=1&c=2\n", HTML: "<p>Ready – <a href=\"https://x.example/a?b=1&amp;c=2\">link</a></p>"})
	return b
}

// TestMailerSendsOnce: 20 concurrent deliveries of one message and later
// redeliveries send it once; a failed or interrupted send releases the
// message for the next delivery.
func TestMailerSendsOnce(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := clock.NewManual(time.Date(2030, 11, 24, 12, 0, 0, 0, time.UTC))
	s := &countingSender{}
	m := &mail.Mailer{Store: st, Sender: s, Clock: clk}
	ctx := context.Background()

	// A failed send is retried by the next delivery.
	s.fail.Store(true)
	if err := m.Handle(ctx, message()); err == nil {
		t.Fatal("a failed send reported success")
	}
	s.fail.Store(false)

	var wg sync.WaitGroup
	var claimed atomic.Int32
	for range 20 {
		wg.Go(func() {
			if err := m.Handle(ctx, message()); errors.Is(err, mail.ErrClaimed) {
				claimed.Add(1)
			} else if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for range 3 {
		if err := m.Handle(ctx, message()); err != nil {
			t.Errorf("redelivery: %v", err)
		}
	}
	if n := s.sent.Load(); n != 1 {
		t.Errorf("sent %d times; want 1 (%d deliveries found it claimed)", n, claimed.Load())
	}
	// Garbage is dropped, not retried forever.
	if err := m.Handle(ctx, []byte("{")); err != nil {
		t.Errorf("malformed: %v", err)
	}

	// A mailer stopped mid-send (its context cancelled) releases its claim:
	// the next delivery sends the message.
	other, _ := json.Marshal(mail.Message{ID: "other", To: "bo@example.com", Subject: "s", Text: "t", HTML: "<p>h</p>"})
	crashed := &mail.Mailer{Store: st, Sender: blockingSender{}, Clock: clk}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_ = crashed.Handle(cctx, other) // claims, then its send fails on the cancelled context; released
	if err := m.Handle(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n := s.sent.Load(); n != 2 {
		t.Errorf("sent %d; want 2", n)
	}
}

type blockingSender struct{}

func (blockingSender) Send(ctx context.Context, m mail.Message) error { return ctx.Err() }

// TestMIME: the rendered message parses back into its text and HTML parts.
func TestMIME(t *testing.T) {
	var msg mail.Message
	json.Unmarshal(message(), &msg)
	raw, err := msg.MIME("Music Catalog <no-reply@example.com>", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if subj, _ := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject")); subj != msg.Subject {
		t.Errorf("subject %q", subj)
	}
	_, params, _ := mime.ParseMediaType(parsed.Header.Get("Content-Type"))
	mr := multipart.NewReader(parsed.Body, params["boundary"])
	var got []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		got = append(got, strings.ReplaceAll(string(b), "\r\n", "\n")) // quoted-printable lines end in CRLF
	}
	if len(got) != 2 || got[0] != msg.Text || got[1] != msg.HTML {
		t.Errorf("parts %q", got)
	}
	if _, err := (mail.Message{ID: "x", To: "a@b.c", Subject: "a\r\nBcc: evil@x", Text: "t", HTML: "h"}).MIME("f@x.y", time.Now()); err == nil {
		t.Error("a subject with a line break was rendered")
	}
}
