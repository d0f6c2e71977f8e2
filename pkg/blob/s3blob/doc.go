// Package s3blob is the blob.Store adapter on Amazon S3 and S3-compatible
// servers (versitygw in the integration tier).
//
// Presigned URLs come from the SDK's presign client. A PUT URL signs
// Content-Type and, when pinned, Content-Length as headers, so S3 itself
// refuses an upload of another type or size; PresignPut verifies that the
// SDK really signed them.
package s3blob
