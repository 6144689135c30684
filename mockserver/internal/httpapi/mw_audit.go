package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// auditAccess appends the audit event of a request that read or wrote a record
// (docs/protocol.md §10), once its answer is written: the handler (or an idempotent replay)
// says what it touched in rq.audit. Requests that failed (4xx/5xx) read or wrote nothing and
// are not audited as successes.
func (a *API) auditAccess(w http.ResponseWriter, rq *request, next handler) {
	next(w, rq)
	if rq.audit.action != "" && rq.status < 400 {
		a.appendAudit(rq.cred.Account, rq, rq.cred.ID, rq.audit, audit.Success, a.accountNow(rq.cred.Account))
	}
}

// deny answers a denied request (401/403) with p and records it in the audit log: under the
// credential's account when it is known, else in the server-level chain (account ""), so
// anonymous probing is visible too (GET /__admin/audit-events without account).
func (a *API) deny(w http.ResponseWriter, rq *request, p *problem.Problem) {
	account, actor := "", ""
	if rq.cred != nil {
		account, actor = rq.cred.Account, rq.cred.ID
	}
	now := a.store.Clock().Now()
	if account != "" {
		now = a.accountNow(account)
	}
	a.appendAudit(account, rq, actor, describe(rq), audit.Denied, now)
	problem.Write(w, rq.id, p)
}

func (a *API) appendAudit(account string, rq *request, actor string, what auditInfo, outcome string, now time.Time) {
	ip := ""
	if rq.addr.IsValid() {
		ip = rq.addr.String()
	}
	a.audit.Append(account, audit.Event{
		ID: a.store.IDs().New("aud", now), At: now, Actor: actor, Action: what.action,
		ResourceType: what.resourceType, ResourceID: what.resourceID, RequestID: rq.id, IP: ip, Outcome: outcome,
	})
}

// auditAdmin records an admin action on an account's credentials (a key revoked or rotated)
// in the account's audit chain: actor "admin", the admin request's id and caller address, or
// for a Go call of the in-process server a fresh request id and no address.
func (a *API) auditAdmin(account string, rq *request, what auditInfo) {
	if rq == nil {
		rq = &request{id: a.newRequestID()}
	}
	a.appendAudit(account, rq, "admin", what, audit.Success, a.accountNow(account))
}

// singular names the resource type of a path's first segment.
var singular = map[string]string{
	"patients": "patient", "appointments": "appointment", "invoices": "invoice", "payments": "payment", "refunds": "refund",
	"products": "product", "inventory": "inventory", "webhooks": "webhook", "reports": "report", "events": "event",
}

// describe derives the audit action and resource of a request from its method and path (for
// denials, which happen before any handler says what it touches).
func describe(rq *request) auditInfo {
	var what auditInfo
	rest := strings.TrimPrefix(rq.URL.Path, "/api/v1")
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if t, ok := singular[segs[0]]; ok {
		what.resourceType = t
	} else {
		what.resourceType = strings.TrimSuffix(segs[0], "s")
	}
	if len(segs) > 1 && strings.Contains(segs[1], "_") {
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
		if what.resourceID != "" {
			what.action = "read"
		}
	}
	return what
}

// AuditEvents returns account's audit chain, oldest first (account "" is the server-level
// chain of denied requests whose credentials were unknown).
func (a *API) AuditEvents(account string) []audit.Event { return a.audit.Events(account) }
