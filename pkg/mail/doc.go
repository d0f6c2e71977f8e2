// Package mail delivers the service's emails (DESIGN.md §3, Mail): a
// Message travels as JSON through a queue to the mailer, which sends it
// exactly once per Message.ID through a Sender – SES on AWS (sesmail), an
// .eml file in the outbox directory locally (outboxmail).
package mail
