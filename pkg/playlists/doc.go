// Package playlists keeps end users' playlists (interface.md §2.7, §4.7):
// ordered items (tracks, stems, sound effects), an owner and `can_edit`
// collaborators of the same partner client, a cover image, and a slug
// unique per owner that never changes once given.
//
// The repository is written once on the item-store port (store.Store), so
// bbolt and DynamoDB behave the same. Table Playlists holds:
//
//   - the playlist record, PK "PL#<id>", SK "META": every field including
//     the ordered items and the collaborators as one JSON document, plus a
//     "version" number. Every change reads the record, applies itself and
//     writes it back on the condition that the version is unchanged,
//     retrying on a lost race; `tracks` and `duration` are computed from
//     the items, so they cannot drift from them whatever the interleaving.
//   - one viewer row per user who can see the playlist, PK "PLU#<user>",
//     SK "OWN#<slug>" for the owner (its conditional put makes slugs
//     unique per owner) or "SHR#<slug>#<id>" for a collaborator, with
//     GSI1 keys "PLU#<user>" / "<created_at>#<id>": the "playlists I can
//     see" index, newest first. Rows and record change in one transaction.
//
// The search port (search.PlaylistFinder) is implemented here too: the
// caller's playlists that hold any of a page of results.
package playlists
