package admin

import (
	"context"
	"errors"
	"net/http"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// auditRoutes are GET /__admin/audit-events (docs/protocol.md §10, api/admin-openapi.yaml):
// without after, the events kept in memory and the checkpoint of those that left; with after,
// the page of up to 1,000 events that follow that one (from the account's audit file when it
// left memory).
func (s *Surface) auditRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/__admin/audit-events", handle: func(rq *request) (int, any, error) {
			q := rq.URL.Query()
			account := anonymousAccount(q.Get("account"))
			if _, ok := s.store.LookupAccount(account); !ok && account != audit.Anonymous && !s.audit.Has(account) {
				return 0, nil, problem.NotFound("account")
			}
			after, paged := q["after"]
			if !paged {
				return http.StatusOK, s.audit.Kept(account), nil
			}
			if len(after) != 1 || !wire.IsID(after[0], "aud") {
				return 0, nil, problem.Field("after", "invalid_format", "must be an audit event id (aud_ and 32 hex digits), once")
			}
			p, err := s.audit.After(account, after[0])
			switch {
			case errors.Is(err, audit.ErrNotFound):
				return 0, nil, problem.NotFound("audit event")
			case err != nil:
				return 0, nil, problem.New("service_unavailable", "the audit log could not be written; retry later")
			}
			return http.StatusOK, p, nil
		}},
	}
}

// auditAdmin records an admin action on an account's API key (action: "update" for a rotation,
// "delete" for a revocation) in the account's audit chain: actor "admin", the admin request's
// id and caller address, or for a Go call of the in-process server (rq nil) a fresh request id
// and no address. It returns once the event is written.
func (s *Surface) auditAdmin(account string, rq *request, action, keyID string) error {
	ctx, requestID, ip := context.Background(), "", ""
	if rq != nil {
		ctx, requestID = rq.Context(), rq.id
		if rq.addr.IsValid() {
			ip = rq.addr.String()
		}
	} else {
		requestID = s.store.IDs().New("req", s.store.Clock().Now())
	}
	now := s.store.Account(account).Clock().Now()
	wait, err := s.audit.Enqueue(account, audit.Event{ID: s.store.IDs().New("aud", now), At: now, Actor: "admin",
		Action: action, ResourceType: "apiKey", ResourceID: keyID, RequestID: requestID, IP: ip, Outcome: audit.Success})
	if err != nil {
		return err
	}
	return wait(ctx)
}

// anonymousAccount maps the account names of the anonymous chain ("" in the Go API,
// "_anonymous" on the admin surface) to the log's.
func anonymousAccount(account string) string {
	if account == "" {
		return audit.Anonymous
	}
	return account
}

// AuditEvents returns account's audit events kept in memory, oldest first (account "" or
// "_anonymous" is the ring of denied requests without a valid credential).
func (s *Surface) AuditEvents(account string) []audit.Event {
	return s.audit.Events(anonymousAccount(account))
}
