package mockserver

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/admin"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
)

// Fault makes the next Times matching requests fail (InjectFault, or the body of POST
// /__admin/faults; docs/protocol.md §12): with a status and the protocol's problem body, after a
// delay, or by dropping the connection.
type Fault struct {
	// Account limits the fault to requests whose credential belongs to that account ("" = any).
	Account string `json:"account,omitempty"`
	// Method limits it to one HTTP method ("" = any).
	Method string `json:"method,omitempty"`
	// Path is the request path as sent (/api/v1/patients), or a prefix ending in "*" ("" = any).
	Path string `json:"path,omitempty"`
	// Status answers with this status and the protocol's problem body: 429 rate_limited,
	// 500 internal_error, 502 bad_gateway, 503 service_unavailable, 504 gateway_timeout,
	// 401 unauthorized, 404 not_found; any other 4xx/5xx injected_fault (docs/protocol.md §14).
	Status int `json:"status,omitempty"`
	// RetryAfter sets Retry-After (seconds) on the answer.
	RetryAfter *int `json:"retryAfter,omitempty"`
	// DelayMs delays the answer (the request's context still cancels the wait).
	DelayMs int `json:"delayMs,omitempty"`
	// DropConnection closes the connection without an answer (clients see a transport error).
	DropConnection bool `json:"dropConnection,omitempty"`
	// AfterCommit (extension) processes the request normally first and then replaces the answer
	// with Status or drops the connection: the write happened, the client does not know it. This
	// is how a test checks that retries of committed writes are safe (idempotency keys).
	AfterCommit bool `json:"afterCommit,omitempty"`
	// Times is how many matching requests fail (at least 1).
	Times int `json:"times"`
}

// InjectFault arms f: the next f.Times requests matching its account, method and path fail
// that way. Faults apply to /api/v1 and /oauth requests, never to /__admin/. An invalid fault is
// refused with the problem POST /__admin/faults answers, every invalid field named.
func (s *Server) InjectFault(f Fault) error {
	return httpcore.AsProblem(s.admin.InjectFault(controls.Fault(f)))
}

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.admin.ClearFaults() }

// JournalEntry is one journalled request (GET /__admin/requests): metadata only, at most 4 KiB.
// Bodies, the Authorization header, query values and idempotency keys are never kept (they may
// carry credentials or PHI).
type JournalEntry struct {
	// At is when the request arrived, on its account's clock (millisecond precision).
	At        time.Time `json:"at"`
	RequestID string    `json:"requestId"`
	Method    string    `json:"method"`
	// Path keeps route words and well-formed ids; any other segment is "{redacted}". Cut to
	// 1,024 bytes.
	Path string `json:"path"`
	// QueryParams are the names of the query parameters the route knows, sorted; "other" stands
	// (once) for any name it does not know, which is not kept.
	QueryParams []string `json:"queryParams"`
	// Status is the answer's status; 0 when the connection was dropped.
	Status     int     `json:"status"`
	DurationMs float64 `json:"durationMs"`
	// Account and CredentialID are empty for requests without a known credential.
	Account      string `json:"account,omitempty"`
	CredentialID string `json:"credentialId,omitempty"`
	// IdempotencyKey is a digest of a POST's Idempotency-Key (16 hex digits, salted per server):
	// the same key shows the same digest, the key itself is never kept.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// Fault says what an injected fault did: "status", "drop", "delay", or with afterCommit
	// "status-after-commit", "drop-after-commit".
	Fault string `json:"fault,omitempty"`
	// Stub is the id of the stub that answered the request (AddStub), if one did.
	Stub string `json:"stub,omitempty"`
}

// Requests returns the request journal of account ("" for every request), newest last. The
// journal keeps the newest DefaultJournalSize requests per account (WithJournalSize), of the
// 1,000 most recently active accounts, 200,000 in all (Bounds).
func (s *Server) Requests(account string) []JournalEntry {
	entries := s.admin.Requests(account)
	out := make([]JournalEntry, len(entries))
	for i, e := range entries {
		out[i] = JournalEntry(e)
	}
	return out
}

// Fixtures are records to create in one account (LoadFixtures, or the body of POST
// /__admin/fixtures; docs/protocol.md §12). Each item is anything that encodes to a JSON object
// in the API's create shape (a CreateParams struct, or a map); an item may also carry
// "createdAt" (RFC 3339) to backdate it, and an appointment "status" (reached through legal
// transitions). A string "@<kind>.<index>" anywhere in an item names the id of an earlier
// fixture ("patientId": "@patients.0").
type Fixtures struct {
	// Account is the account to load into (LoadFixtures takes it as an argument instead).
	Account      string `json:"account"`
	Patients     []any  `json:"patients,omitempty"`
	Products     []any  `json:"products,omitempty"`
	Adjustments  []any  `json:"adjustments,omitempty"`
	Appointments []any  `json:"appointments,omitempty"`
	Invoices     []any  `json:"invoices,omitempty"`
	Payments     []any  `json:"payments,omitempty"`
	// Refunds come after payments: "paymentId": "@payments.0".
	Refunds []any `json:"refunds,omitempty"`
}

// FixtureIDs are the ids LoadFixtures created, per kind, in input order.
type FixtureIDs struct {
	Patients     []string `json:"patients"`
	Products     []string `json:"products"`
	Adjustments  []string `json:"adjustments"`
	Appointments []string `json:"appointments"`
	Invoices     []string `json:"invoices"`
	Payments     []string `json:"payments"`
	Refunds      []string `json:"refunds"`
}

// LoadFixtures creates fx's records in account, in the order patients, products, adjustments,
// appointments, invoices, payments, refunds, each decoded like the API's request body and created by the
// same rules (every validation and invariant applies). On a failing item nothing is created and
// the error is the problem the API would answer, its pointers prefixed with the item's
// (/appointments/2/startAt).
func (s *Server) LoadFixtures(account string, fx Fixtures) (FixtureIDs, error) {
	fx.Account = account
	ids, err := s.admin.LoadFixtures(admin.Fixtures(fx))
	return FixtureIDs(ids), s.durableAfter(httpcore.AsProblem(err))
}

// Snapshot saves account's whole state under name, replacing an earlier snapshot of that name:
// its records and idempotency keys, its own clock, its pending webhook deliveries and retries,
// and the codes and tokens of its OAuth clients.
func (s *Server) Snapshot(account, name string) error {
	return s.durableAfter(httpcore.AsProblem(s.admin.Snapshot(account, name)))
}

// Restore puts back account's whole state saved under name (the snapshot stays, for more
// restores): records and keys, clock, pending deliveries (those due run at once), OAuth codes
// and tokens (those issued since the snapshot no longer work).
func (s *Server) Restore(account, name string) error {
	return s.durableAfter(httpcore.AsProblem(s.admin.Restore(account, name)))
}
