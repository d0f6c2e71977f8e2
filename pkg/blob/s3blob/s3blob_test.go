package s3blob_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/blob/blobtest"
	"musiccatalog/pkg/blob/s3blob"
)

// TestConformance runs the suite against the S3-compatible server named by
// TEST_S3_ENDPOINT, in fresh buckets that it removes afterwards.
func TestConformance(t *testing.T) {
	endpoint := os.Getenv("TEST_S3_ENDPOINT")
	if endpoint == "" {
		const msg = "TEST_S3_ENDPOINT is not set; run: bash infra/local/versitygw.sh start && . infra/local/.run/versitygw.env"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	client := s3blob.NewCompatibleClient(endpoint, os.Getenv("TEST_S3_ACCESS_KEY"), os.Getenv("TEST_S3_SECRET_KEY"))
	run := make([]byte, 4)
	rand.Read(run)
	var n atomic.Int64
	blobtest.Run(t, blobtest.Harness{
		NewStore: func(t *testing.T) blob.Store {
			bucket := fmt.Sprintf("blobtest-%s-%d", hex.EncodeToString(run), n.Add(1))
			if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
				t.Fatalf("creating bucket %s: %v", bucket, err)
			}
			s := s3blob.New(client, bucket)
			t.Cleanup(func() { removeBucket(t, client, s, bucket) })
			return s
		},
		Client: &http.Client{Timeout: time.Minute},
		Elapse: time.Sleep,
		// versitygw serves presigned requests that also carry an
		// Authorization header; S3 (and fileblob) refuse them.
		LaxAuthorization: os.Getenv("TEST_S3_SERVER") == "versitygw",
	})
}

func removeBucket(t *testing.T, client *s3.Client, s *s3blob.Store, bucket string) {
	// t.Context is already cancelled when cleanups run.
	ctx := context.Background()
	list, err := s.List(ctx, "")
	if err != nil {
		t.Errorf("listing bucket %s for removal: %v", bucket, err)
		return
	}
	for _, a := range list {
		if err := s.Delete(ctx, a.Key); err != nil {
			t.Errorf("emptying bucket %s: %v", bucket, err)
		}
	}
	if _, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket}); err != nil {
		t.Errorf("removing bucket %s: %v", bucket, err)
	}
}

// The pins must be in the signature itself; this needs no server.
func TestPresignPutSignsTypeAndLength(t *testing.T) {
	s := s3blob.New(s3blob.NewCompatibleClient("http://127.0.0.1:1", "AKID", "SECRET"), "bucket")
	for _, c := range []struct {
		length int64
		want   string
	}{
		{1234, "content-length;content-type;host"},
		{blob.UnpinnedLength, "content-type;host"},
	} {
		raw, err := s.PresignPut(t.Context(), "uploads/v.mp4", "video/mp4", c.length, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if got := q.Get("X-Amz-SignedHeaders"); got != c.want {
			t.Errorf("length %d: signed headers %q, want %q", c.length, got, c.want)
		}
		// Hoisted into the query, a pin would bind nothing the client sends.
		for name := range q {
			if strings.EqualFold(name, "Content-Type") || strings.EqualFold(name, "Content-Length") {
				t.Errorf("length %d: %s is a query parameter, not a signed header", c.length, name)
			}
		}
		if q.Get("X-Amz-Expires") != "60" || u.Path != "/bucket/uploads/v.mp4" {
			t.Errorf("unexpected URL %s", raw)
		}
	}
}
