package admin

import (
	"errors"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// inspectRoutes are the admin endpoints that look at and steer the mock beyond faults and
// the clock (docs/mock-server.md "Inspector"): GET /__admin/faults, the stubs, event triggers
// and delivery resends.
func (s *Surface) inspectRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/faults", handle: func(rq *request) (int, any, error) {
			return http.StatusOK, map[string]any{"faults": s.Faults(rq.URL.Query().Get("account"))}, nil
		}},
		{method: http.MethodPost, pattern: "/__admin/stubs", handle: withBody(http.StatusCreated,
			func(_ *request, st controls.Stub) (any, error) { return s.AddStub(st) })},
		{method: http.MethodGet, pattern: "/__admin/stubs", handle: func(rq *request) (int, any, error) {
			return http.StatusOK, map[string]any{"stubs": s.Stubs(rq.URL.Query().Get("account"))}, nil
		}},
		{method: http.MethodDelete, pattern: "/__admin/stubs/{id}", handle: func(rq *request) (int, any, error) {
			return http.StatusNoContent, nil, s.DeleteStub(rq.PathValue("id"))
		}},
		{method: http.MethodDelete, pattern: "/__admin/stubs", handle: func(rq *request) (int, any, error) {
			s.ClearStubs(rq.URL.Query().Get("account"))
			return http.StatusNoContent, nil, nil
		}},
		{method: http.MethodPost, pattern: "/__admin/events", handle: withBody(http.StatusCreated,
			func(_ *request, t Trigger) (any, error) { return s.TriggerEvent(t) })},
		{method: http.MethodPost, pattern: "/__admin/deliveries/{id}/resend", handle: withBody(http.StatusCreated,
			func(rq *request, p accountBody) (any, error) { return s.Resend(rq, p.Account, rq.PathValue("id")) })},
	}
}

// Resend makes a new attempt now of a logged delivery (POST /__admin/deliveries/{id}/resend).
func (s *Surface) Resend(rq *request, account, id string) (webhook.Delivery, error) {
	d, err := s.hooks.Resend(rq.Context(), account, id)
	switch {
	case errors.Is(err, webhook.ErrNoDelivery):
		return d, problem.NotFound("delivery")
	case errors.Is(err, webhook.ErrEndpointGone):
		return d, problem.WithStatus(http.StatusConflict, "endpoint_unavailable", "the delivery's endpoint was deleted or is disabled")
	case errors.Is(err, webhook.ErrNotResendable):
		return d, problem.WithStatus(http.StatusConflict, "not_resendable", "the delivery was dropped before it reached an endpoint: there is nothing to resend")
	}
	return d, err
}

// InjectFault validates and arms a fault (POST /__admin/faults).
func (s *Surface) InjectFault(f controls.Fault) error { return s.ctl.Faults.Arm(f) }

// ClearFaults disarms every fault (and forgets those used up).
func (s *Surface) ClearFaults() { s.ctl.Faults.Clear() }

// Faults lists the armed faults, then the newest used-up ones (GET /__admin/faults); with an
// account, those that can apply to its requests.
func (s *Surface) Faults(account string) []controls.FaultState { return s.ctl.Faults.List(account) }

// Requests returns the journal of an account ("" = all), newest last (GET /__admin/requests).
func (s *Surface) Requests(account string) []controls.JournalEntry {
	return s.ctl.Journal.List(account)
}

// AddStub checks a stub against the API's routes and arms it, and returns it as listed.
func (s *Surface) AddStub(st controls.Stub) (controls.StubState, error) {
	st, err := st.Check(s.api)
	if err != nil {
		return controls.StubState{}, err
	}
	if st.Account != "" {
		if _, ok := s.store.LookupAccount(st.Account); !ok {
			return controls.StubState{}, problem.Field("/account", "not_found", "no such account")
		}
	}
	return s.ctl.Stubs.Add(st)
}

// Stubs lists the armed stubs, oldest first; with an account, those that can answer its requests.
func (s *Surface) Stubs(account string) []controls.StubState { return s.ctl.Stubs.List(account) }

// DeleteStub disarms one stub; an unknown id is a 404.
func (s *Surface) DeleteStub(id string) error { return s.ctl.Stubs.Delete(id) }

// ClearStubs disarms the stubs of an account ("" = every stub).
func (s *Surface) ClearStubs(account string) { s.ctl.Stubs.Clear(account) }
