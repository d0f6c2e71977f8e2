// Package idempotency makes retried requests safe: a client names a
// request with a key, and every later request with the same key (from the
// same principal, within Retention) gets the first request's response
// instead of running again (issue 14, item 3).
//
// A key is claimed with one conditional put in the Jobs table, so exactly
// one of any number of concurrent requests runs, on one instance or many.
// The claim is a lease (Lease, kept alive while the request runs), so a
// crashed instance blocks its key for at most one lease. The first request's
// fingerprint (a hash of what was sent, computed by the caller) is kept
// with the claim: the same key with another fingerprint is refused
// (ErrMismatch), never replayed. Only responses the caller chooses to keep
// (successes) are stored; a released claim lets the next retry run afresh.
package idempotency
