// Package storetest is the conformance suite of the item-store port: every
// adapter of store.Store runs storetest.Run in its tests, so the local twin
// and the DynamoDB adapter are held to the same behaviour.
package storetest
