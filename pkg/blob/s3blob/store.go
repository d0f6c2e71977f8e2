package s3blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"musiccatalog/pkg/blob"
)

var _ blob.Store = (*Store)(nil)

// Store keeps objects in one S3 bucket.
type Store struct {
	client  *s3.Client
	presign *s3.PresignClient
	bucket  string
}

// New returns a Store on bucket, which must exist.
func New(client *s3.Client, bucket string) *Store {
	return &Store{client: client, presign: s3.NewPresignClient(client), bucket: bucket}
}

// Open returns a Store on bucket with a client from the SDK
// configuration (a function's object store).
func Open(cfg aws.Config, bucket string) blob.Store { return New(s3.NewFromConfig(cfg), bucket) }

// NewCompatibleClient returns a client for an S3-compatible server such as
// versitygw: path-style addressing (no bucket DNS names), static
// credentials, region us-east-1. Checksums are sent and checked only where
// S3 requires them, since such servers vary in what they support.
func NewCompatibleClient(endpoint, accessKey, secretKey string) *s3.Client {
	return s3.New(s3.Options{
		Region:                     "us-east-1",
		BaseEndpoint:               aws.String(endpoint),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// Put streams r to S3. With an unknown size the body is first spooled to a
// temporary file, because S3 wants a Content-Length on every PUT.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := blob.ValidateKey(key); err != nil {
		return err
	}
	if err := blob.ValidateContentType(contentType); err != nil {
		return err
	}
	opts := []func(*s3.Options){s3.WithAPIOptions(
		// Hashing the payload for the signature needs a seekable body
		// read twice; streaming it unsigned needs neither.
		v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware,
	)}
	var body io.Reader
	var checked *readErr
	if size < 0 {
		// A seekable file also lets the SDK retry.
		f, n, err := spool(r)
		if err != nil {
			return fmt.Errorf("s3blob: put %q: %w", key, err)
		}
		defer f.Close()
		body, size = f, n
	} else {
		checked = &readErr{r: blob.ExactReader(r, size)}
		body = checked
		// A stream cannot be rewound for a retry; waiting for one only
		// delays the error.
		opts = append(opts, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &key,
		Body:          body,
		ContentLength: &size,
		ContentType:   &contentType,
	}, opts...)
	if err != nil {
		// The SDK's error for a failed body read does not wrap the
		// body's own (a wrong size, say), which is the one that matters.
		if checked != nil && checked.err != nil {
			err = checked.err
		}
		return fmt.Errorf("s3blob: put %q: %w", key, err)
	}
	return nil
}

// readErr remembers the first error of r other than io.EOF.
type readErr struct {
	r   io.Reader
	err error
}

func (b *readErr) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// spool copies r to an unlinked temporary file and rewinds it.
func spool(r io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp("", "s3blob-spool-*")
	if err != nil {
		return nil, 0, err
	}
	// Unlinked at once: the open file keeps the data until Close.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, 0, err
	}
	n, err := io.Copy(f, r)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, n, nil
}

func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, blob.Attrs, error) {
	if err := blob.ValidateKey(key); err != nil {
		return nil, blob.Attrs{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return nil, blob.Attrs{}, s.wrap("get", key, err)
	}
	return out.Body, attrs(key, out.ContentLength, out.ContentType, out.ETag, out.LastModified), nil
}

// GetRange asks S3 for the range. S3 answers a range that starts at or past
// the end (any range of an empty object, too) with 416 InvalidRange, which
// here is the empty read the port promises.
func (s *Store) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := blob.ValidateKey(key); err != nil {
		return nil, err
	}
	if err := blob.ValidateRange(offset, length); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: &s.bucket,
		Key:    &key,
		// ValidateRange keeps the end from overflowing.
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+length-1)),
	})
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusRequestedRangeNotSatisfiable {
		return io.NopCloser(strings.NewReader("")), nil
	}
	if err != nil {
		return nil, s.wrap("get range", key, err)
	}
	return out.Body, nil
}

func (s *Store) Head(ctx context.Context, key string) (blob.Attrs, error) {
	if err := blob.ValidateKey(key); err != nil {
		return blob.Attrs{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		return blob.Attrs{}, s.wrap("head", key, err)
	}
	return attrs(key, out.ContentLength, out.ContentType, out.ETag, out.LastModified), nil
}

func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blob.ValidateKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &key})
	if err == nil {
		return nil
	}
	// S3 answers 204 for a missing key; some compatible servers say 404.
	if err = s.wrap("delete", key, err); errors.Is(err, blob.ErrNotFound) {
		return nil
	}
	return err
}

// List leaves ContentType empty: S3 listings do not carry it.
func (s *Store) List(ctx context.Context, prefix string) ([]blob.Attrs, error) {
	if err := blob.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	var list []blob.Attrs
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: &prefix})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, s.wrap("list", prefix, err)
		}
		for _, o := range page.Contents {
			list = append(list, attrs(aws.ToString(o.Key), o.Size, nil, o.ETag, o.LastModified))
		}
	}
	// S3 already lists in UTF-8 byte order; S3-compatible servers need not.
	slices.SortFunc(list, func(a, b blob.Attrs) int { return strings.Compare(a.Key, b.Key) })
	return list, nil
}

func (s *Store) PresignGet(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	if err := blob.ValidatePresignGet(key, ttl, filename); err != nil {
		return "", err
	}
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &key}
	if filename != "" {
		d, err := blob.AttachmentDisposition(filename)
		if err != nil {
			return "", err
		}
		in.ResponseContentDisposition = &d
	}
	req, err := s.presign.PresignGetObject(ctx, in, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("s3blob: presign get %q: %w", key, err)
	}
	return req.URL, nil
}

// PresignPut signs Content-Type and, when pinned, Content-Length as headers,
// so S3 refuses an upload whose headers differ. The signed-header list of
// the URL is checked because the SDK leaves out a header it cannot sign
// (a zero length, for one) without telling.
func (s *Store) PresignPut(ctx context.Context, key, contentType string, contentLength int64, ttl time.Duration) (string, error) {
	if err := blob.ValidatePresignPut(key, contentType, contentLength, ttl); err != nil {
		return "", err
	}
	in := &s3.PutObjectInput{Bucket: &s.bucket, Key: &key, ContentType: &contentType}
	want := []string{"content-type", "host"}
	if contentLength != blob.UnpinnedLength {
		in.ContentLength = &contentLength
		want = append(want, "content-length")
	}
	req, err := s.presign.PresignPutObject(ctx, in, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("s3blob: presign put %q: %w", key, err)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return "", fmt.Errorf("s3blob: presign put %q: %w", key, err)
	}
	signed := strings.Split(u.Query().Get("X-Amz-SignedHeaders"), ";")
	for _, h := range want {
		if !slices.Contains(signed, h) {
			return "", fmt.Errorf("s3blob: presign put %q: the SDK did not sign %s (signed: %v)", key, h, signed)
		}
	}
	return req.URL, nil
}

// wrap maps S3's answers for a missing key (NoSuchKey, or HEAD's bare 404)
// to blob.ErrNotFound. A missing bucket is a configuration error and stays
// what it is.
func (s *Store) wrap(op, key string, err error) error {
	var re *awshttp.ResponseError
	var ae smithy.APIError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound &&
		!(errors.As(err, &ae) && ae.ErrorCode() == "NoSuchBucket") {
		return fmt.Errorf("s3blob: %s %q in bucket %q: %w: %w", op, key, s.bucket, blob.ErrNotFound, err)
	}
	return fmt.Errorf("s3blob: %s %q in bucket %q: %w", op, key, s.bucket, err)
}

func attrs(key string, size *int64, contentType, etag *string, mod *time.Time) blob.Attrs {
	return blob.Attrs{
		Key:         key,
		Size:        aws.ToInt64(size),
		ContentType: aws.ToString(contentType),
		ETag:        strings.Trim(aws.ToString(etag), `"`),
		ModTime:     aws.ToTime(mod),
	}
}
