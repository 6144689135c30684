package mockserver

import "time"

// The short forms: the controls of *Server that take an account, on the test's own account
// (TestServer.Account). Each shadows the *Server method of the same name; the explicit form
// stays reachable for other accounts, and for "" (the server-wide clock, every account's
// journal or deliveries), through the embedded field: ts.Server.SetTime(other, t).
// InjectFault has no short form: a Fault names its account itself (Fault.Account).

// Now returns the time as the test's account sees it (Server.Now for another account).
func (ts *TestServer) Now() time.Time { return ts.Server.Now(ts.Account) }

// Frozen reports whether the test's account's clock is frozen (Server.Frozen for another).
func (ts *TestServer) Frozen() bool { return ts.Server.Frozen(ts.Account) }

// SetTime freezes the test's account's clock at t (Server.SetTime for another account or the
// server-wide clock). The account then has a clock of its own, which ts.Server.AdvanceTime("",
// d) still moves with the server's.
func (ts *TestServer) SetTime(t time.Time) { ts.Server.SetTime(ts.Account, t) }

// AdvanceTime moves the test's account's clock forward by d; webhook retries that fall due run
// (Server.AdvanceTime for another account, or "" for the server-wide clock and every account).
func (ts *TestServer) AdvanceTime(d time.Duration) { ts.Server.AdvanceTime(ts.Account, d) }

// RealTime makes the test's account follow the server-wide clock again (Server.RealTime).
func (ts *TestServer) RealTime() { ts.Server.RealTime(ts.Account) }

// Requests returns the test's account's request journal, newest last (Server.Requests for
// another account, or "" for every request).
func (ts *TestServer) Requests() []JournalEntry { return ts.Server.Requests(ts.Account) }

// Deliveries returns the test's account's webhook delivery attempts, oldest first
// (Server.Deliveries for another account, or "" for every account's).
func (ts *TestServer) Deliveries() []Delivery { return ts.Server.Deliveries(ts.Account) }

// Reset empties the test's account's data; keys survive (Server.Reset for another account, or
// "" for every account).
func (ts *TestServer) Reset() error { return ts.Server.Reset(ts.Account) }

// LoadFixtures creates fx's records in the test's account (Server.LoadFixtures).
func (ts *TestServer) LoadFixtures(fx Fixtures) (FixtureIDs, error) {
	return ts.Server.LoadFixtures(ts.Account, fx)
}

// Snapshot saves the test's account's whole state under name (Server.Snapshot).
func (ts *TestServer) Snapshot(name string) error { return ts.Server.Snapshot(ts.Account, name) }

// Restore puts back the test's account's state saved under name (Server.Restore).
func (ts *TestServer) Restore(name string) error { return ts.Server.Restore(ts.Account, name) }

// RecordEvents starts recording the test's account's events (Server.RecordEvents).
func (ts *TestServer) RecordEvents() *EventRecorder { return ts.Server.RecordEvents(ts.Account) }

// AuditEvents returns the test's account's audit events kept in memory (Server.AuditEvents).
func (ts *TestServer) AuditEvents() []AuditEvent { return ts.Server.AuditEvents(ts.Account) }

// AuditLog returns the test's account's audit events with their checkpoint (Server.AuditLog).
func (ts *TestServer) AuditLog() AuditPage { return ts.Server.AuditLog(ts.Account) }

// AuditEventsAfter pages the test's account's audit chain (Server.AuditEventsAfter).
func (ts *TestServer) AuditEventsAfter(after string) (AuditPage, error) {
	return ts.Server.AuditEventsAfter(ts.Account, after)
}
