// Package sqsqueue sends messages to an Amazon SQS queue.
package sqsqueue

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// API is the part of the SQS client used.
type API interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Queue sends to the queue at URL.
type Queue struct {
	Client API
	URL    string
}

// Send sends one message body.
func (q *Queue) Send(ctx context.Context, body []byte) error {
	if q.URL == "" {
		return fmt.Errorf("sqsqueue: no queue URL configured")
	}
	_, err := q.Client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(string(body))})
	if err != nil {
		return fmt.Errorf("sqsqueue: %w", err)
	}
	return nil
}
