// Package queue holds the message-queue adapters (DESIGN.md §3, Queue):
// sqsqueue sends to an SQS queue a Lambda function consumes; memqueue is
// its in-process twin, which hands each message to a handler in the
// background and redelivers it after a failure, as SQS would. The
// interface each consumer needs lives with it (render.MailQueue).
package queue
