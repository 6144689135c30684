package audit

// Tamper changes the outcome recorded for the account's i-th event kept in memory (oldest
// first) without rehashing it, so that the chain no longer verifies: a test hook for the
// displays of a broken chain (the mock's inspector page). It reports whether there was such an
// event.
func (l *Log) Tamper(account string, i int, outcome string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[account]
	if c == nil || i < 0 || i >= c.n {
		return false
	}
	c.at(i).outcome = l.intern(outcome)
	return true
}
