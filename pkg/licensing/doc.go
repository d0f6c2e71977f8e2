// Package licensing issues licenses for one catalog track on behalf of one
// end user of a partner (interface.md §2.6, §4.6, §7.3, §8) and keeps them
// on the Licenses table, written once on the store port so that DynamoDB
// and the embedded twin behave the same.
//
// A license is idempotent on (client, end user, track, project name): the
// first call writes the license, its idempotency record, its listing
// entries and counts, and takes one unit of each of the client's burst,
// daily and monthly quotas, all in one transaction. A concurrent or later
// identical call loses that transaction's not-exists condition, reads the
// winner's license and counts nothing; a call over a quota takes nothing
// and writes nothing. So a license never exists without its count, nor a
// count without its license.
//
// Licenses are immutable documents: the public page (`/v/{license_id}`)
// shows what was recorded at issue time (track and artist names, the
// partner's display name), whatever the catalog or the account says later.
package licensing
