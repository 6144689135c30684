package mockserver

import (
	"encoding/json"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
)

// Stub is a custom answer for the /api/v1 requests that match it (AddStub, or the body of POST
// /__admin/stubs; docs/mock-server.md "Stubs"). It acts once a request has passed
// authentication, the allowlist, its signature, the rate limit, routing and its scope: it
// changes what the server answers, never who may ask. A stubbed request never reaches the
// store, and its journal entry names the stub (JournalEntry.Stub).
type Stub struct {
	// Account limits the stub to requests authenticated for that account ("" = any).
	Account string `json:"account,omitempty"`
	// Method is the request's method (required unless Route starts with it).
	Method string `json:"method,omitempty"`
	// Route is a route pattern of the API, "/api/v1/patients/{id}" or "GET /api/v1/patients/{id}".
	// Exactly one of Route and Path.
	Route string `json:"route,omitempty"`
	// Path is an exact request path (/api/v1/patients/pat_…), which a route must serve.
	Path string `json:"path,omitempty"`
	// Query, when set, must all be present in the request's query with exactly these values.
	Query map[string]string `json:"query,omitempty"`
	// Status is the answer's status, 200–599.
	Status int `json:"status"`
	// Headers are added to the answer (Content-Type is application/json unless given).
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the answer's body, any JSON value (absent: none).
	Body json.RawMessage `json:"body,omitempty"`
	// DelayMs delays the answer, 0–50,000.
	DelayMs int `json:"delayMs,omitempty"`
	// Times is how many requests the stub answers; 0 means until deleted.
	Times int `json:"times,omitempty"`
}

// StubState is an armed stub as Stubs (GET /__admin/stubs) lists it.
type StubState struct {
	ID string `json:"id"`
	Stub
	// Left is how many answers are left (nil: until deleted); Used how many were given.
	Left       *int       `json:"left"`
	Used       int        `json:"used"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// AddStub arms s and returns it with its id. An invalid stub (an unknown route, a status
// outside 200–599, a body that is not JSON, a delay over the bound, …) is refused with the
// problem POST /__admin/stubs answers, every invalid field named.
func (s *Server) AddStub(st Stub) (StubState, error) {
	got, err := s.admin.AddStub(controls.Stub(st))
	if err != nil {
		return StubState{}, httpcore.AsProblem(err)
	}
	return stubState(got), nil
}

func stubState(st controls.StubState) StubState {
	return StubState{ID: st.ID, Stub: Stub(st.Stub), Left: st.Left, Used: st.Used, CreatedAt: st.CreatedAt, LastUsedAt: st.LastUsedAt}
}

// Stubs lists the armed stubs, oldest first; with an account, those that can answer its
// requests (its own and those of any account).
func (s *Server) Stubs(account string) []StubState {
	in := s.admin.Stubs(account)
	out := make([]StubState, len(in))
	for i, st := range in {
		out[i] = stubState(st)
	}
	return out
}

// DeleteStub disarms one stub (an unknown id is a not_found problem).
func (s *Server) DeleteStub(id string) error { return httpcore.AsProblem(s.admin.DeleteStub(id)) }

// ClearStubs disarms the stubs of account ("" = every stub). Reset does it too.
func (s *Server) ClearStubs(account string) { s.admin.ClearStubs(account) }

// FaultState is a fault as Faults (GET /__admin/faults) lists it: its definition (Times is
// what it was armed with), the uses left and made, and when.
type FaultState struct {
	ID string `json:"id"`
	Fault
	Left       int        `json:"left"`
	Used       int        `json:"used"`
	ArmedAt    time.Time  `json:"armedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// Faults lists the armed faults, oldest first, then the newest used-up ones (at most 100); with
// an account, those that can apply to its requests (its own and those of any account).
func (s *Server) Faults(account string) []FaultState {
	in := s.admin.Faults(account)
	out := make([]FaultState, len(in))
	for i, f := range in {
		out[i] = FaultState{ID: f.ID, Fault: Fault(f.Fault), Left: f.Left, Used: f.Used, ArmedAt: f.ArmedAt, LastUsedAt: f.LastUsedAt}
	}
	return out
}
