package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// adminAuditRoutes are GET /__admin/audit-events.
func (a *API) adminAuditRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/audit-events", handle: func(rq *request) (int, any, error) {
			account := rq.URL.Query().Get("account")
			if _, ok := a.store.LookupAccount(account); !ok && account != "" {
				return 0, nil, problem.NotFound("account")
			}
			events := a.AuditEvents(account)
			return http.StatusOK, map[string]any{"events": events, "verified": audit.Verify(events)}, nil
		}},
	}
}
