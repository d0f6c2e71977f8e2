package lambdastub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

const (
	// maxAsyncPayload is the largest event of an asynchronous invocation.
	maxAsyncPayload = 1 << 20
	// asyncAttempts: Lambda runs an asynchronous event up to three times.
	asyncAttempts = 3
	// asyncRetryDelay stands in for Lambda's one and two minutes between
	// attempts, shortened so a test sees the retries.
	asyncRetryDelay = time.Second
	// pollWait is the long-poll time of the SQS event source; Lambda's
	// pollers use 20 s, shorter here so stopping is quick.
	pollWait = 1
	// sqsMaxReceive is SQS's largest ReceiveMessage batch.
	sqsMaxReceive = 10
)

// invokeAsync runs an Event invocation in the background, retried as
// Lambda retries asynchronous invocations that fail.
func (s *Stack) invokeAsync(name string, payload []byte) {
	s.async.Add(1)
	go func() {
		defer s.async.Done()
		for attempt := 1; attempt <= asyncAttempts; attempt++ {
			res, err := s.Runtime.Invoke(s.ctx, name, payload)
			if err == nil && res.FunctionError == "" {
				return
			}
			s.logf("async %s attempt %d failed: %v %s", name, attempt, err, res.Payload)
			if s.ctx.Err() != nil {
				return
			}
			time.Sleep(asyncRetryDelay * time.Duration(attempt))
		}
	}()
}

// WaitAsync waits for the asynchronous invocations under way.
func (s *Stack) WaitAsync() { s.async.Wait() }

// sqsRecord is one record of an SQS event, as Lambda's pollers build it.
type sqsRecord struct {
	MessageID         string            `json:"messageId"`
	ReceiptHandle     string            `json:"receiptHandle"`
	Body              string            `json:"body"`
	Attributes        map[string]string `json:"attributes"`
	MessageAttributes map[string]any    `json:"messageAttributes"`
	MD5OfBody         string            `json:"md5OfBody"`
	EventSource       string            `json:"eventSource"`
	EventSourceARN    string            `json:"eventSourceARN"`
	AWSRegion         string            `json:"awsRegion"`
}

// StartEventSources starts polling every SQS event source mapping.
func (s *Stack) StartEventSources() {
	for _, f := range s.Functions {
		for _, src := range f.SQS {
			q := s.queue(src.QueueLogicalID)
			s.pollers.Add(1)
			go s.poll(src, q)
		}
	}
}

// poll is one event source mapping: receive a batch, invoke, delete what
// succeeded. A function error leaves the batch to come back after the
// visibility timeout, and the queue's redrive policy moves a message
// received maxReceiveCount times to its dead-letter queue.
func (s *Stack) poll(src SQSSource, q *Queue) {
	defer s.pollers.Done()
	concurrency := src.MaximumConcurrency
	if concurrency == 0 {
		concurrency = 2
	}
	sem := make(chan struct{}, concurrency)
	for s.ctx.Err() == nil {
		sem <- struct{}{}
		out, err := s.sqs.ReceiveMessage(s.ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(q.URL),
			MaxNumberOfMessages:         int32(min(src.BatchSize, sqsMaxReceive)),
			WaitTimeSeconds:             pollWait,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil || len(out.Messages) == 0 {
			<-sem
			if err != nil && s.ctx.Err() == nil {
				s.logf("poll %s: %v", q.Name, err)
				time.Sleep(time.Second)
			}
			continue
		}
		s.pollers.Add(1)
		go func() {
			defer func() { <-sem; s.pollers.Done() }()
			s.deliver(src, q, out.Messages)
		}()
	}
}

func (s *Stack) deliver(src SQSSource, q *Queue, msgs []sqstypes.Message) {
	records := make([]sqsRecord, 0, len(msgs))
	for _, m := range msgs {
		attrs := map[string]string{}
		for k, v := range m.Attributes {
			attrs[k] = v
		}
		records = append(records, sqsRecord{MessageID: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
			Body: aws.ToString(m.Body), Attributes: attrs, MessageAttributes: map[string]any{}, MD5OfBody: aws.ToString(m.MD5OfBody),
			EventSource: "aws:sqs", EventSourceARN: q.ARN, AWSRegion: s.names.Region})
	}
	payload, _ := json.Marshal(map[string]any{"Records": records})
	res, err := s.Runtime.Invoke(s.ctx, src.FunctionName, payload)
	if err != nil || res.FunctionError != "" {
		s.logf("sqs %s → %s: batch of %d failed: %v %s", q.Name, src.FunctionName, len(msgs), err, res.Payload)
		return
	}
	failed := map[string]bool{}
	if src.ReportItemFailures {
		var resp struct {
			BatchItemFailures []struct {
				ItemIdentifier string `json:"itemIdentifier"`
			} `json:"batchItemFailures"`
		}
		if len(res.Payload) > 0 && string(res.Payload) != "null" && json.Unmarshal(res.Payload, &resp) != nil {
			s.logf("sqs %s: unreadable batch response %s: the whole batch failed", q.Name, res.Payload)
			return
		}
		for _, f := range resp.BatchItemFailures {
			// An identifier that names no message of the batch fails the
			// whole batch, as Lambda treats it.
			if !slices.ContainsFunc(records, func(r sqsRecord) bool { return r.MessageID == f.ItemIdentifier }) {
				s.logf("sqs %s: batch response names unknown message %q: the whole batch failed", q.Name, f.ItemIdentifier)
				return
			}
			failed[f.ItemIdentifier] = true
		}
	}
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for i, r := range records {
		if !failed[r.MessageID] {
			entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r.ReceiptHandle)})
		}
	}
	if len(entries) == 0 {
		return
	}
	if _, err := s.sqs.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries}); err != nil {
		s.logf("sqs %s: delete: %v", q.Name, err)
	}
}

// s3Record is one record of an S3 event notification.
type s3Record struct {
	EventVersion string `json:"eventVersion"`
	EventSource  string `json:"eventSource"`
	AWSRegion    string `json:"awsRegion"`
	EventTime    string `json:"eventTime"`
	EventName    string `json:"eventName"`
	S3           struct {
		SchemaVersion   string `json:"s3SchemaVersion"`
		ConfigurationID string `json:"configurationId"`
		Bucket          struct {
			Name string `json:"name"`
			ARN  string `json:"arn"`
		} `json:"bucket"`
		Object struct {
			Key       string `json:"key"`
			Size      int64  `json:"size"`
			ETag      string `json:"eTag"`
			Sequencer string `json:"sequencer"`
		} `json:"object"`
	} `json:"s3"`
}

// NotificationKey encodes an object key as S3 event notifications do:
// form-encoded (space as '+') with the slashes kept.
func NotificationKey(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.QueryEscape(p)
	}
	return strings.Join(parts, "/")
}

// Notify raises the bucket's ObjectCreated:Put notification for an object
// just written, as S3 would after the PUT: the record carries the object's
// size and ETag as S3 reports them, and goes to every target whose event
// and key filter match (queues get a message, functions an asynchronous
// invocation). It returns how many targets were notified.
func (s *Stack) Notify(ctx context.Context, bucket, key string) (int, error) {
	head, err := s.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return 0, fmt.Errorf("notify s3://%s/%s: %w", bucket, key, err)
	}
	const event = "ObjectCreated:Put"
	rec := s3Record{EventVersion: "2.1", EventSource: "aws:s3", AWSRegion: s.names.Region,
		EventTime: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), EventName: event}
	rec.S3.SchemaVersion = "1.0"
	rec.S3.Bucket.Name, rec.S3.Bucket.ARN = bucket, "arn:aws:s3:::"+bucket
	rec.S3.Object.Key = NotificationKey(key)
	rec.S3.Object.Size = aws.ToInt64(head.ContentLength)
	rec.S3.Object.ETag = strings.Trim(aws.ToString(head.ETag), `"`)
	rec.S3.Object.Sequencer = strconv.FormatInt(time.Now().UnixNano(), 16)
	n := 0
	for _, t := range s.notifications {
		if t.Bucket != bucket || !strings.HasPrefix(key, t.Prefix) || !strings.HasSuffix(key, t.Suffix) || !matchesEvent(t.Events, event) {
			continue
		}
		rec.S3.ConfigurationID = "stand-in"
		body, _ := json.Marshal(map[string]any{"Records": []s3Record{rec}})
		if t.Queue != "" {
			q := s.queue(t.Queue)
			if _, err := s.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(string(body))}); err != nil {
				return n, fmt.Errorf("notify %s: %w", q.Name, err)
			}
		} else {
			s.invokeAsync(t.Function, body)
		}
		n++
	}
	return n, nil
}

func matchesEvent(patterns []string, event string) bool {
	for _, p := range patterns {
		p = strings.TrimPrefix(p, "s3:")
		if p == event || (strings.HasSuffix(p, "*") && strings.HasPrefix(event, strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}
