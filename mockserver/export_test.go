package mockserver

import "time"

// CrashForTest stops s as a crash would, for the data directory's tests: its directory is
// released without the last compaction (what was logged stays as logged), the webhook
// dispatcher stops.
func CrashForTest(s *Server) error {
	s.closeMu.Lock()
	s.closed = true
	closers := s.closers
	s.closers = nil
	s.closeMu.Unlock()
	err := s.data.Abandon()
	for i := len(closers) - 1; i >= 0; i-- {
		_ = closers[i]() // the sweeper, the audit files
	}
	s.hooks.Close()
	return err
}

// WithRealTime replaces the real time the server reads where the admin clock does not apply
// (the credential-stuffing guard), so tests can move it.
func WithRealTime(now func() time.Time) Option { return func(o *options) { o.realTime = now } }

// TamperAuditForTest changes the outcome of the account's i-th audit event kept in memory
// without rehashing it: the chain no longer verifies (the inspector page's broken-chain view).
func TamperAuditForTest(s *Server, account string, i int) bool {
	return s.api.Audit().Tamper(account, i, "tampered")
}

// Sweep runs the periodic sweep now.
func (s *Server) Sweep() { s.api.Sweep() }

// Counts returns the sizes of the bounded structures.
func (s *Server) Counts() map[string]int {
	c := s.api.Counts()
	return map[string]int{
		"oauthCodes": c.OAuthCodes, "oauthTokens": c.OAuthTokens, "oauthFamilies": c.OAuthFamilies,
		"nonceCaches": c.NonceCaches, "rateLimitStates": c.RateLimitStates, "stuffingPairs": c.StuffingPairs,
		"journalAccounts": c.JournalAccounts, "journalEntries": c.JournalEntries, "armedFaults": c.ArmedFaults,
	}
}
