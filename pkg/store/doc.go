// Package store is the item-store port: a small, DynamoDB-shaped key/value
// store with conditional writes, atomic counters, expiring items, ordered
// queries and multi-item transactions.
//
// Every repository of the service (accounts, playlists, licenses, jobs,
// quotas) is written once against this port. Two adapters implement it and
// pass the same conformance suite (storetest): dynamostore on DynamoDB and
// boltstore on a local bbolt file.
package store
