// Package dynamostore implements the item-store port on Amazon DynamoDB
// (and DynamoDB Local). It passes the same conformance suite (storetest)
// as the local twin.
//
// DynamoDB deletes expired items lazily, so the adapter enforces expiry
// itself: reads filter expired items out, conditions treat them as absent,
// and a write that must see an expired item as absent (an update whose
// old attributes must not survive) deletes it first and retries.
package dynamostore
