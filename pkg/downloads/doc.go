// Package downloads hands out audio files of the catalog (interface.md
// §4.4): it checks a request against the caller's plan (§5), picks the
// rendition ingest already stored for the asked format (never transcoding
// per request), signs a short-lived URL that saves as "Artist - Title.ext",
// and counts every download per client, asset and calendar month in the
// Quotas table for the partner's reporting.
//
// Requests for both formats or with stems are the ZIP flow of §3.2; until
// ZIP builds exist they are refused with errs.NotImplemented (501), after
// every other check, so a client learns all that is wrong with a request
// first.
package downloads
