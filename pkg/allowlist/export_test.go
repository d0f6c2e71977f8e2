package allowlist

// SetMaxChannels lowers the cap of one allowlist for a test.
func SetMaxChannels(s *Service, n int64) { s.max = n }
