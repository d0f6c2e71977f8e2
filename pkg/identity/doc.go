// Package identity knows who is calling: partner clients (plan, download
// and sound-effect rights, status, quotas), the users of a client, and the
// bearer tokens that stand for either. Tokens are kept only as SHA-256
// digests, carry scopes, may expire and may be revoked.
//
// Authenticate resolves a token to a Principal or to one of the sentinel
// errors below; the HTTP layer turns those into each area's exact body.
package identity
