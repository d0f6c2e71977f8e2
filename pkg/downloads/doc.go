// Package downloads hands out audio files of the catalog (interface.md
// §4.4): it checks a request against the caller's plan (§5), picks the
// rendition ingest already stored for the asked format (never transcoding
// per request), signs a short-lived URL that saves as "Artist - Title.ext",
// and counts every download per client, asset and calendar month in the
// Quotas table for the partner's reporting.
//
// Requests for both formats or with stems are the ZIP flow of §3.2, after
// every other check: the first request for a cache key writes the build
// record conditionally and starts the "zip" state machine, whose build-zip
// task (BuildZIP) streams the renditions from the blob store into one
// stored (not deflated) archive in the blob store; repeats answer 202
// while it builds and the signed URL once built; a failed build answers
// 500 once and is then built afresh.
package downloads
