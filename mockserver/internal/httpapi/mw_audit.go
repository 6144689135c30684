package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// auditSuccess queues the audit event of a request that read or wrote a record
// (docs/protocol.md §10): its route says what (route.audit), the handler which record it
// created, an idempotent replay what the first request did. Requests that failed (4xx/5xx)
// read or wrote nothing and are not audited as successes. It returns the wait for the event to
// be in the log (and, under a data directory, in the same transaction as the request's
// changes); nil when nothing is audited.
func (a *API) auditSuccess(rq *request, ans *answer) func(context.Context) error {
	if ans.Status >= 400 {
		return nil
	}
	if rq.audit.action == "" {
		rq.audit = auditOf(rq)
	}
	if rq.audit.action == "" {
		return nil
	}
	return a.queueAudit(rq, rq.cred.Account, rq.cred.ID, rq.audit, audit.Success, rq.accountNow())
}

// awaitAudit holds the answer until its audit event is written: an event that cannot be written
// turns the answer into 503, so no PHI is handed out unaudited.
func (a *API) awaitAudit(rq *request, wait func(context.Context) error, ans *answer) *answer {
	if wait == nil || ans.Status >= 400 { // a failure's answer (a 503 of durability) hands nothing out
		return ans
	}
	if err := wait(rq.Context()); err != nil {
		return rq.problem(auditUnavailable())
	}
	return ans
}

func auditUnavailable() *problem.Problem {
	return problem.New("service_unavailable", "the audit log could not be written; retry later")
}

// deny answers a denied request (401/403) with p and records it in the audit log first: under
// the credential's account when it is known, else in the Anonymous ring (GET
// /__admin/audit-events?account=_anonymous), so anonymous probing is visible too.
func (a *API) deny(rq *request, p *problem.Problem) *answer {
	account, actor := audit.Anonymous, ""
	now := a.store.Clock().At(rq.arrived)
	if rq.cred != nil {
		account, actor = rq.cred.Account, rq.cred.ID
		now = a.store.Account(account).Clock().At(rq.arrived)
	}
	if err := a.appendAudit(rq, account, actor, describe(rq), audit.Denied, now); err != nil {
		p = auditUnavailable()
	}
	return rq.problem(p)
}

// appendAudit records an event of rq in account's chain and returns once it is written.
func (a *API) appendAudit(rq *request, account, actor string, what auditInfo, outcome string, now time.Time) error {
	return a.queueAudit(rq, account, actor, what, outcome, now)(rq.Context())
}

// queueAudit queues an event of rq in account's chain and returns the wait until it is written.
func (a *API) queueAudit(rq *request, account, actor string, what auditInfo, outcome string, now time.Time) func(context.Context) error {
	ip := ""
	if rq.addr.IsValid() {
		ip = rq.addr.String()
	}
	e := audit.Event{
		ID: a.store.IDs().New("aud", now), At: now, Actor: actor, Action: what.action,
		ResourceType: what.resourceType, ResourceID: what.resourceID, RequestID: rq.id, IP: ip, Outcome: outcome,
	}
	if account == audit.Anonymous {
		// No account, no resource: the path says what was tried, as the journal keeps it (route
		// words and well-formed ids; anything else, which may be PHI, redacted), cut to 256 bytes.
		e.ResourceID, e.Path = "", loggedPath(rq.URL.Path)
	}
	wait, err := a.audit.Enqueue(account, e)
	if err != nil {
		return func(context.Context) error { return err }
	}
	return wait
}

// singular names the resource type of a path's first segment.
var singular = map[string]string{
	"patients": "patient", "appointments": "appointment", "invoices": "invoice", "payments": "payment", "refunds": "refund",
	"products": "product", "inventory": "inventory", "webhooks": "webhook", "reports": "report", "events": "event",
}

// describe derives the audit action and resource of a request from its method and path (for
// denials, which happen before any handler says what it touches). A resource id is kept only
// when it has the shape of a server id (wire.WellFormedID): a denied request's path segment may
// be anything, an email or a name included, and PHI never lands in the audit log.
func describe(rq *request) auditInfo {
	var what auditInfo
	rest := strings.TrimPrefix(rq.URL.Path, "/api/v1")
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if t, ok := singular[segs[0]]; ok {
		what.resourceType = t
	} else if !wire.WellFormedID(segs[0]) && len(segs[0]) <= 32 && keptSegment(segs[0]) {
		what.resourceType = strings.TrimSuffix(segs[0], "s")
	}
	if len(segs) > 1 && wire.WellFormedID(segs[1]) {
		what.resourceID = segs[1]
	}
	switch rq.Method {
	case http.MethodPost:
		what.action = "create"
	case http.MethodPatch, http.MethodPut:
		what.action = "update"
	case http.MethodDelete:
		what.action = "delete"
	default:
		what.action = "list"
		if len(segs) > 1 && strings.Contains(segs[1], "_") { // an id, well-formed or not
			what.action = "read"
		}
	}
	return what
}

// Audit returns the audit log (for snapshots: Export, Import).
func (a *API) Audit() *audit.Log { return a.audit }
