// Package quota counts metered calls in fixed windows (daily, monthly, per
// minute) on the Quotas table, atomically and exactly under concurrency: a
// take is one conditional counter update, so no number of concurrent callers
// can push a counter past its cap. TakeOp returns that update as a
// transaction op, so counting can be made atomic with the write it pays for
// (a recognition job is created only when its quota unit is taken, and a
// failed creation takes nothing). Held counts, without a window, what a
// subject holds (allowlist channels, owned playlists) against a fixed cap,
// in the same transaction as the write that adds or removes it.
package quota
