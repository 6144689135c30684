package mockserver

// CrashForTest stops s as a crash would, for the data directory's tests: its directory is
// released without the last compaction (what was logged stays as logged), the webhook
// dispatcher stops.
func CrashForTest(s *Server) error {
	s.closeMu.Lock()
	s.closed = true
	s.closeMu.Unlock()
	err := s.data.Abandon()
	s.hooks.Close()
	return err
}
