// Package blobtest is the conformance suite every blob.Store adapter must
// pass: the same tests run against fileblob on every `go test` and against
// s3blob on an S3-compatible server in the integration tier, so the local
// twin cannot drift from S3.
//
// Presigned URLs are exercised over plain HTTP, the way a client of the
// upload-url and download endpoints uses them, including the refusals S3
// gives: wrong method, type or length, expired or altered URLs.
package blobtest
