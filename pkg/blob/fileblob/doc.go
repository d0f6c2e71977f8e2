// Package fileblob is the local twin of s3blob: a blob.Store on a directory,
// with presigned URLs signed by HMAC-SHA256 and served by Store.Handler,
// which the devserver mounts at /_blob/.
//
// Layout under the root directory:
//
//	objects/  one file per object; each key segment is a directory named
//	          "d"+segment and the last one a file named "f"+segment, so that
//	          "a" and "a/b" can both exist, as on S3
//	tmp/      uploads in progress, renamed into objects/ when complete
//
// An object file holds the content, then a JSON trailer (content type,
// ETag, size) and a 16-byte footer (magic, trailer length). Keeping the
// metadata in the same file means one rename replaces content and metadata
// together: a reader never sees the new content with the old type, and two
// writers of the same key cannot leave a mixed pair behind.
//
// The ETag is the first 128 bits of the content's SHA-256, in hex.
//
// A URL is {baseURL}/_blob/{key}?expires=..&signature=.. plus, for uploads,
// content-type and (when pinned) content-length, and for attachments
// filename. The signature covers the request method, the key and every
// parameter, so the handler refuses a wrong method, an expired or altered
// URL, and an upload whose Content-Type or Content-Length differs, with the
// status codes and XML error bodies S3 uses.
package fileblob
