package s3blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"musiccatalog/pkg/blob"
)

var _ blob.Creator = (*Store)(nil)

// PartSize is the size of every part of a streamed upload but the last.
// S3 wants at least 5 MiB per part and at most 10,000 parts: 8 MiB parts
// allow objects of 78 GiB. A writer holds two parts in memory (one
// filling, one uploading), so memory stays at 16 MiB whatever the size.
const PartSize = 8 << 20

// abortTimeout bounds the AbortMultipartUpload of a failed upload.
const abortTimeout = 30 * time.Second

// Create streams an object of unknown size into S3 as a multipart upload,
// part by part, uploading one part while the next fills. An object that
// ends within its first part is one PutObject instead. Close completes the
// upload; Abort (or a failed Close) aborts it, and the bucket's lifecycle
// rule removes what an interrupted process leaves.
func (s *Store) Create(ctx context.Context, key, contentType string) (blob.Writer, error) {
	if err := blob.ValidateKey(key); err != nil {
		return nil, err
	}
	if err := blob.ValidateContentType(contentType); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	return &multipartWriter{s: s, ctx: ctx, cancel: cancel, key: key, contentType: contentType,
		buf: bytes.NewBuffer(make([]byte, 0, PartSize)), spare: make([]byte, 0, PartSize)}, nil
}

type multipartWriter struct {
	s           *Store
	ctx         context.Context
	cancel      context.CancelFunc
	key         string
	contentType string

	buf      *bytes.Buffer // the part being filled
	spare    []byte        // the other part's memory, once its upload ended
	uploadID string
	parts    []types.CompletedPart
	inflight sync.WaitGroup
	mu       sync.Mutex
	err      error // the first failure; every later call returns it
	done     bool
}

// unsigned streams a part without hashing it for the signature.
var unsigned = s3.WithAPIOptions(v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)

func (w *multipartWriter) fail() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *multipartWriter) setErr(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

func (w *multipartWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, errors.New("s3blob: write after close")
	}
	n := 0
	for len(p) > 0 {
		if err := w.fail(); err != nil {
			return n, err
		}
		room := PartSize - w.buf.Len()
		k := min(room, len(p))
		w.buf.Write(p[:k])
		n += k
		p = p[k:]
		if w.buf.Len() == PartSize {
			if err := w.flush(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// flush uploads the filled part in the background after the previous
// part's upload ended, and takes that part's memory for the next one.
func (w *multipartWriter) flush() error {
	if w.uploadID == "" {
		out, err := w.s.client.CreateMultipartUpload(w.ctx, &s3.CreateMultipartUploadInput{
			Bucket: &w.s.bucket, Key: &w.key, ContentType: &w.contentType})
		if err != nil {
			err = fmt.Errorf("s3blob: create %q: %w", w.key, err)
			w.setErr(err)
			return err
		}
		w.uploadID = aws.ToString(out.UploadId)
	}
	w.inflight.Wait()
	if err := w.fail(); err != nil {
		return err
	}
	data := w.buf.Bytes()
	num := int32(len(w.parts) + 1)
	w.parts = append(w.parts, types.CompletedPart{PartNumber: aws.Int32(num)})
	w.buf = bytes.NewBuffer(w.spare[:0])
	w.inflight.Add(1)
	go func() {
		defer w.inflight.Done()
		size := int64(len(data))
		out, err := w.s.client.UploadPart(w.ctx, &s3.UploadPartInput{
			Bucket: &w.s.bucket, Key: &w.key, UploadId: &w.uploadID, PartNumber: aws.Int32(num),
			Body: bytes.NewReader(data), ContentLength: &size}, unsigned)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.spare = data
		if err != nil {
			if w.err == nil {
				w.err = fmt.Errorf("s3blob: upload part %d of %q: %w", num, w.key, err)
			}
			return
		}
		w.parts[num-1].ETag = out.ETag
	}()
	return nil
}

func (w *multipartWriter) Close() error {
	if w.done {
		return errors.New("s3blob: close after close or abort")
	}
	defer func() { w.done = true; w.cancel() }()
	if err := w.fail(); err != nil {
		w.abort()
		return err
	}
	if w.uploadID == "" { // within one part: a plain PutObject
		size := int64(w.buf.Len())
		_, err := w.s.client.PutObject(w.ctx, &s3.PutObjectInput{Bucket: &w.s.bucket, Key: &w.key,
			Body: bytes.NewReader(w.buf.Bytes()), ContentLength: &size, ContentType: &w.contentType}, unsigned)
		if err != nil {
			return fmt.Errorf("s3blob: put %q: %w", w.key, err)
		}
		return nil
	}
	if w.buf.Len() > 0 {
		if err := w.flush(); err != nil {
			w.abort()
			return err
		}
	}
	w.inflight.Wait()
	if err := w.fail(); err != nil {
		w.abort()
		return err
	}
	_, err := w.s.client.CompleteMultipartUpload(w.ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &w.s.bucket, Key: &w.key, UploadId: &w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts}})
	if err != nil {
		w.abort()
		return fmt.Errorf("s3blob: complete %q: %w", w.key, err)
	}
	return nil
}

func (w *multipartWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.abort()
	w.cancel()
}

// abort ends the multipart upload, if one began, once no part is in
// flight. It runs on a fresh context: the writer's may be the reason.
func (w *multipartWriter) abort() {
	w.setErr(errors.New("s3blob: upload aborted"))
	w.inflight.Wait()
	if w.uploadID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), abortTimeout)
	defer cancel()
	w.s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &w.s.bucket, Key: &w.key, UploadId: &w.uploadID})
}
