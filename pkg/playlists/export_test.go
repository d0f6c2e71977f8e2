package playlists

// SetMaxOwned lowers the playlists one user may own, for a test.
func SetMaxOwned(s *Service, n int64) { s.maxOwned = n }

// HeldScope names the counters of owned playlists (quota.Held).
const HeldScope = heldScope
