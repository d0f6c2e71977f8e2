// Package mailapp wires the mailer: the function that consumes the mail
// queue and sends each message once with SES (MAIL_FROM is the verified
// sender, the stack's MailSender parameter).
package mailapp

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/lambdarun"
	"musiccatalog/pkg/mail"
	"musiccatalog/pkg/mail/sesmail"
)

// FnMailer is the mailer function's name.
const FnMailer = "mailer"

// Handler is the mailer's SQS handler on m: each message body is a
// mail.Message; the ones that fail are delivered again.
func Handler(m *mail.Mailer, log *slog.Logger) lambdarun.S3QueueHandler {
	return lambdarun.NewQueueHandler(func(ctx context.Context, msg events.SQSMessage) error {
		return m.Handle(ctx, []byte(msg.Body))
	}, log)
}

// RunLambda is the whole main of the mailer.
func RunLambda() {
	c := core.MustOpenAWS(FnMailer, nil)
	m := &mail.Mailer{Store: c.Store, Clock: c.Clock, Log: c.Log,
		Sender: &sesmail.SES{Client: sesv2.NewFromConfig(c.AWS), From: os.Getenv("MAIL_FROM"), Clock: c.Clock}}
	lambda.Start(Handler(m, c.Log))
}
