package httpapi

import (
	"errors"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// adminInspectRoutes are the admin endpoints that look at and steer the mock beyond faults and
// the clock (docs/mock-server.md "Inspector"): GET /__admin/faults, the stubs, event triggers
// and delivery resends.
func (a *API) adminInspectRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/faults", handle: func(rq *request) (int, any, error) {
			return ok, map[string]any{"faults": a.Faults(rq.URL.Query().Get("account"))}, nil
		}},
		{method: http.MethodPost, pattern: "/__admin/stubs", handle: withBody(created,
			func(_ *request, s Stub) (any, error) { return a.AddStub(s) })},
		{method: http.MethodGet, pattern: "/__admin/stubs", handle: func(rq *request) (int, any, error) {
			return ok, map[string]any{"stubs": a.Stubs(rq.URL.Query().Get("account"))}, nil
		}},
		{method: http.MethodDelete, pattern: "/__admin/stubs/{id}", handle: func(rq *request) (int, any, error) {
			return http.StatusNoContent, nil, a.DeleteStub(rq.PathValue("id"))
		}},
		{method: http.MethodDelete, pattern: "/__admin/stubs", handle: func(rq *request) (int, any, error) {
			a.ClearStubs(rq.URL.Query().Get("account"))
			return http.StatusNoContent, nil, nil
		}},
		{method: http.MethodPost, pattern: "/__admin/events", handle: withBody(created,
			func(_ *request, t Trigger) (any, error) { return a.TriggerEvent(t) })},
		{method: http.MethodPost, pattern: "/__admin/deliveries/{id}/resend", handle: withBody(created,
			func(rq *request, p accountBody) (any, error) { return a.Resend(rq, p.Account, rq.PathValue("id")) })},
	}
}

// Resend makes a new attempt now of a logged delivery (POST /__admin/deliveries/{id}/resend).
func (a *API) Resend(rq *request, account, id string) (webhook.Delivery, error) {
	d, err := a.opts.Webhooks.Resend(rq.Context(), account, id)
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
