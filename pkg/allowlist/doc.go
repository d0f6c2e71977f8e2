// Package allowlist keeps the channels a partner (or one of the partner's
// end users, named by X-User-ID) has allowlisted on video platforms
// (interface.md §2.8, §4.8): list newest first, add idempotently, remove.
package allowlist
