// Package acrcloud implements outside.Recognizer with the ACRCloud
// identify protocol (spec/gaps.md, outside recognition services): a
// multipart POST to {host}/v1/identify carrying the sample, the access
// key and an HMAC-SHA1 signature over the request's fixed fields and a
// timestamp. Status 0 is a match, 1001 no result; rate and limit errors
// (3003, 3015) are transient; bad keys, signatures and oversize samples
// (3001, 3014, 3016) are rejections.
package acrcloud
