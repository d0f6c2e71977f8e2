package integration

import (
	"context"
	"encoding/json"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"musiccatalog/infra/local/lambdastub"
)

// queueDeadline bounds how long the poison message takes to reach the DLQ.
const queueDeadline = 2 * time.Minute

// TestPoisonMessageLandsInTheDLQ sends three upload notifications and one
// message that is no S3 notification to the upload queue, so they arrive
// in one batch: recognition-prepare reports the poison message as the only
// failure of the batch (ReportBatchItemFailures), the three uploads are
// prepared and deleted, and the poison message, delivered again after each
// visibility timeout, moves to the dead-letter queue after the template's
// maxReceiveCount deliveries.
func TestPoisonMessageLandsInTheDLQ(t *testing.T) {
	const poison = `{"not":"an S3 event notification"}`
	s := newStack(t, nil, func(st *lambdastub.Stack) {
		// The template's 1800 s visibility and batch size 1, shortened and
		// widened so the test sees redeliveries and a batch.
		st.Queue("RecognitionUploadQueue").Visibility = 2 * time.Second
		st.Function("RecognitionPrepareFunction").SQS[0].BatchSize = 4
	})
	queue := s.Queue("RecognitionUploadQueue")
	dlq := s.Queue(queue.DLQ)
	if queue.MaxReceiveCount < 1 {
		t.Fatalf("the template gives the upload queue no redrive policy")
	}
	prepare := s.Function("RecognitionPrepareFunction")
	var mu sync.Mutex
	var poisonDeliveries int
	var batches []int
	s.Runtime.OnInvoke = func(inv *lambdastub.Invocation) {
		if inv.Function != prepare.Name {
			return
		}
		var ev struct{ Records []struct{ Body string } }
		json.Unmarshal(inv.Payload, &ev)
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, len(ev.Records))
		for _, r := range ev.Records {
			if r.Body == poison {
				poisonDeliveries++
			}
		}
	}
	c := lambdaClient{s: s, t: t}
	ctx := context.Background()
	for i, freq := range []int{330, 440, 550} {
		key := uploadVideo(t, c, shortVideo(t, 6, freq), "clip"+string(rune('a'+i))+".mp4")
		if n, err := s.Notify(ctx, s.bucket, key); err != nil || n != 1 {
			t.Fatalf("notification reached %d targets: %v", n, err)
		}
	}
	if _, err := s.SQS().SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queue.URL), MessageBody: aws.String(poison)}); err != nil {
		t.Fatal(err)
	}
	s.StartEventSources()

	deadline := time.Now().Add(queueDeadline)
	var dead []sqstypes.Message
	for len(dead) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no message in the DLQ after %s (prepare batches %v)", queueDeadline, batches)
		}
		out, err := s.SQS().ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq.URL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		dead = out.Messages
	}
	if len(dead) != 1 || aws.ToString(dead[0].Body) != poison {
		t.Errorf("DLQ holds %d messages, want only the poison one: %v", len(dead), dead)
	}
	// Nothing is left in the queue: the uploads were deleted after the
	// first batch, the poison message moved.
	for time.Now().Before(deadline) {
		out, err := s.SQS().GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queue.URL),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Attributes["ApproximateNumberOfMessages"] == "0" && out.Attributes["ApproximateNumberOfMessagesNotVisible"] == "0" {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	mu.Lock()
	if poisonDeliveries != queue.MaxReceiveCount {
		t.Errorf("poison message delivered %d times, want maxReceiveCount %d", poisonDeliveries, queue.MaxReceiveCount)
	}
	if len(batches) == 0 || batches[0] < 2 {
		t.Errorf("prepare batches %v: the poison message did not share a batch", batches)
	}
	mu.Unlock()
	// The three uploads were prepared: one work directory each.
	out, err := s.S3().ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String("recognition-work/")})
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, o := range out.Contents {
		parts := strings.SplitN(aws.ToString(o.Key), "/", 4) // recognition-work/<version>/<upload>/...
		dirs[path.Join(parts[:min(3, len(parts))]...)] = true
	}
	if len(dirs) != 3 {
		var keys []string
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		t.Errorf("prepared work for %d uploads, want 3: %s", len(dirs), strings.Join(keys, " "))
	}
}
