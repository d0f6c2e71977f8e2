// Package blob is the object-store port: streaming put/get, ranged get,
// head, delete, listing, and presigned URLs whose signature pins what S3
// pins (method, expiry, and for uploads the content type and exact length).
//
// Adapters: s3blob on Amazon S3 (and S3-compatible servers), fileblob on the
// local filesystem with HMAC-signed URLs served by the devserver. Both pass
// the conformance suite in blobtest.
package blob
