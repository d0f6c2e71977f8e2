package lambdarun

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

// S3Object is an object an S3 event notification reports as created.
type S3Object struct {
	Bucket string
	// Key is decoded: notifications URL-encode it, with '+' for spaces.
	Key string
	// ETag is as the notification gives it, without quotes.
	ETag string
	Size int64
}

// S3ObjectFunc handles one created object. An error makes SQS deliver
// the message that named it again (and, after the queue's
// maxReceiveCount, move it to the dead-letter queue), so it should mean
// "may succeed later"; what can never succeed should be logged and
// return nil.
type S3ObjectFunc func(ctx context.Context, obj S3Object) error

// SQSBatchResponse is the partial batch response of an SQS event source
// with ReportBatchItemFailures: only the listed messages are delivered
// again, the rest of the batch is deleted from the queue.
type SQSBatchResponse struct {
	BatchItemFailures []SQSBatchItemFailure `json:"batchItemFailures"`
}

// SQSBatchItemFailure names one message to deliver again.
type SQSBatchItemFailure struct {
	ItemIdentifier string `json:"itemIdentifier"`
}

// S3QueueHandler is the Lambda handler of a function fed S3 event
// notifications through an SQS queue (S3 → SQS → Lambda).
type S3QueueHandler func(context.Context, events.SQSEvent) (SQSBatchResponse, error)

// NewS3QueueHandler calls fn for every object-created record of every
// message and reports the messages whose records failed, so one bad
// object does not redeliver its whole batch. S3's s3:TestEvent (sent
// once when the notification is configured) and records of other event
// types are skipped. A message body that is not an S3 notification is
// reported failed: it ends in the dead-letter queue, where someone can
// look at it, instead of vanishing.
func NewS3QueueHandler(fn S3ObjectFunc, log *slog.Logger) S3QueueHandler {
	return NewQueueHandler(func(ctx context.Context, msg events.SQSMessage) error {
		return handleS3Message(ctx, msg, fn)
	}, log)
}

// NewQueueHandler calls fn for every message of an SQS batch and reports
// the messages it failed, so only those are delivered again.
func NewQueueHandler(fn func(ctx context.Context, msg events.SQSMessage) error, log *slog.Logger) S3QueueHandler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, ev events.SQSEvent) (SQSBatchResponse, error) {
		resp := SQSBatchResponse{BatchItemFailures: []SQSBatchItemFailure{}}
		for _, msg := range ev.Records {
			if err := fn(ctx, msg); err != nil {
				log.Warn("queue message failed; it will be delivered again",
					slog.String("message_id", msg.MessageId), slog.Any("error", err))
				resp.BatchItemFailures = append(resp.BatchItemFailures, SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
			}
		}
		return resp, nil
	}
}

// StartS3Queue serves fn as the Lambda function's handler; it never returns.
func StartS3Queue(fn S3ObjectFunc, log *slog.Logger) { lambda.Start(NewS3QueueHandler(fn, log)) }

// s3Notification is the union of an event notification and the test
// event S3 sends when a notification configuration is saved.
type s3Notification struct {
	Records []events.S3EventRecord `json:"Records"`
	Event   string                 `json:"Event"`
}

func handleS3Message(ctx context.Context, msg events.SQSMessage, fn S3ObjectFunc) error {
	var n s3Notification
	if err := json.Unmarshal([]byte(msg.Body), &n); err != nil {
		return fmt.Errorf("not an S3 event notification: %w", err)
	}
	if n.Event == "s3:TestEvent" {
		return nil
	}
	if n.Records == nil {
		return fmt.Errorf("not an S3 event notification: no Records")
	}
	for _, rec := range n.Records {
		if rec.EventSource != "aws:s3" || !strings.HasPrefix(rec.EventName, "ObjectCreated:") {
			continue
		}
		key, err := url.QueryUnescape(rec.S3.Object.Key)
		if err != nil {
			return fmt.Errorf("undecodable key %q: %w", rec.S3.Object.Key, err)
		}
		obj := S3Object{Bucket: rec.S3.Bucket.Name, Key: key, ETag: strings.Trim(rec.S3.Object.ETag, `"`), Size: rec.S3.Object.Size}
		if err := fn(ctx, obj); err != nil {
			return fmt.Errorf("s3://%s/%s: %w", obj.Bucket, obj.Key, err)
		}
	}
	return nil
}
