package idempotency

// RecordKey exposes where a key's record lives, for tests that inspect it.
var RecordKey = recordKey
