// Package catalog is the content the API serves: tracks (with their stems,
// rights, translations and analysis), sound effects, and the keys of the
// fingerprint index segments, held as an immutable in-memory snapshot.
//
// Ingestion (subpackage ingest) builds a Catalog from a manifest (subpackage
// manifest) and publishes it to the blob store as a versioned snapshot plus a
// pointer naming the current version; a Loader in every function reads the
// pointer at cold start and re-checks it now and then, so a newly published
// catalog is served without a redeploy. The snapshot encoding (codec.go)
// interns strings, which keeps a 50k-track catalog quick to load and small
// in memory.
package catalog
