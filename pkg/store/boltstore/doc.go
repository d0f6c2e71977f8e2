// Package boltstore is the local twin of the item store: store.Store on a
// single bbolt file, for the devserver, the admin CLI and tests. It passes
// the same conformance suite (storetest) as the DynamoDB adapter.
//
// Each table is a bucket keyed by an order-preserving encoding of (PK, SK);
// each index is a bucket of (index PK, index SK, PK, SK) keys pointing back
// into the table. Expired items stay on disk until Sweep removes them, but
// every read and condition treats them as absent from their expiry on.
package boltstore
