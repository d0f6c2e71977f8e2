// Package sesmail sends messages with Amazon SES (v2 SendEmail, raw
// content: the same MIME bytes the local outbox stores).
package sesmail

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/mail"
)

var _ mail.Sender = (*SES)(nil)

// API is the part of the SES client used.
type API interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, opts ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

// SES sends from a verified sender address (the stack's MailSender
// parameter).
type SES struct {
	Client API
	From   string
	Clock  clock.Clock // default clock.Real
}

// Send sends m.
func (s *SES) Send(ctx context.Context, m mail.Message) error {
	clk := s.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	raw, err := m.MIME(s.From, clk.Now())
	if err != nil {
		return err
	}
	_, err = s.Client.SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(s.From),
		Destination:      &types.Destination{ToAddresses: []string{m.To}},
		Content:          &types.EmailContent{Raw: &types.RawMessage{Data: raw}},
	})
	if err != nil {
		return fmt.Errorf("sesmail: %w", err)
	}
	return nil
}
