package httpapi

import (
	"errors"
	"net/http"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// adminAuditRoutes are GET /__admin/audit-events (docs/protocol.md §10, api/admin-openapi.yaml):
// without after, the events kept in memory and the checkpoint of those that left; with after,
// the page of up to 1,000 events that follow that one (from the account's audit file when it
// left memory).
func (a *API) adminAuditRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/audit-events", handle: func(rq *request) (int, any, error) {
			q := rq.URL.Query()
			account := anonymousAccount(q.Get("account"))
			if _, ok := a.store.LookupAccount(account); !ok && account != audit.Anonymous && !a.audit.Has(account) {
				return 0, nil, problem.NotFound("account")
			}
			after, paged := q["after"]
			if !paged {
				return http.StatusOK, a.audit.Kept(account), nil
			}
			if len(after) != 1 || !wire.IsID(after[0], "aud") {
				return 0, nil, problem.Field("after", "invalid_format", "must be an audit event id (aud_ and 32 hex digits), once")
			}
			p, err := a.audit.After(account, after[0])
			switch {
			case errors.Is(err, audit.ErrNotFound):
				return 0, nil, problem.NotFound("audit event")
			case err != nil:
				return 0, nil, auditUnavailable()
			}
			return http.StatusOK, p, nil
		}},
	}
}
