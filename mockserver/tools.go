package mockserver

import (
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
)

// Fault makes the next Times matching requests fail: with a status and the protocol's problem
// body, after a delay, or by dropping the connection (see InjectFault).
type Fault = httpapi.Fault

// JournalEntry is one journalled request: metadata only, never bodies, Authorization or query
// values.
type JournalEntry = httpapi.JournalEntry

// Fixtures are records to create in one account through the API's rules (see LoadFixtures).
type Fixtures = httpapi.Fixtures

// FixtureIDs are the ids LoadFixtures created, per kind, in input order.
type FixtureIDs = httpapi.FixtureIDs

// InjectFault arms f: the next f.Times requests matching its account, method and path fail
// that way. Faults apply to /api/v1 and /oauth requests, never to /__admin/.
func (s *Server) InjectFault(f Fault) error { return httpapi.AsProblem(s.api.InjectFault(f)) }

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.api.ClearFaults() }

// Requests returns the request journal of account ("" for every request), newest last.
func (s *Server) Requests(account string) []JournalEntry { return s.api.Requests(account) }

// LoadFixtures creates fx's records in account, in the order patients, products, adjustments,
// appointments, invoices, payments, each through the API's own handler (every rule applies).
// On a failing item nothing is created and the error is the problem the API would answer, its
// pointers prefixed with the item's (/appointments/2/startAt).
func (s *Server) LoadFixtures(account string, fx Fixtures) (FixtureIDs, error) {
	fx.Account = account
	ids, err := s.api.LoadFixtures(fx)
	return ids, httpapi.AsProblem(err)
}

// Snapshot saves account's whole state (data and idempotency keys) under name.
func (s *Server) Snapshot(account, name string) error {
	return httpapi.AsProblem(s.api.Snapshot(account, name))
}

// Restore puts back account's state saved under name (the snapshot stays, for more restores).
func (s *Server) Restore(account, name string) error {
	return httpapi.AsProblem(s.api.Restore(account, name))
}
