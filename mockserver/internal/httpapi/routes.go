package httpapi

import (
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/reports"
)

// route is one endpoint: one row of a route table.
type route struct {
	method, pattern string
	// scope is the scope a credential needs (docs/protocol.md §5); "" on the admin surface.
	scope string
	// audit is what a successful request does, as the audit log records it ("read patient"):
	// action and resource type (docs/protocol.md §10); "" when it is not audited.
	audit string
	// query are the query parameters the handler reads; any other is unknown_parameter, and
	// the journal names only these.
	query []string
	// handle answers the request: a status and a value to encode (or an *answer, made by the
	// handler itself), or an error (a problem).
	handle func(rq *request) (int, any, error)
}

// Query parameters several routes share.
var (
	pageQuery   = []string{"page", "perPage"}
	listQuery   = []string{"page", "perPage", "sort"}
	reportQuery = []string{"from", "to", "timezone", "groupBy"}
)

func params(groups ...[]string) []string { return slices.Concat(groups...) }

// apiRoutes is every /api/v1 endpoint: the router, the scopes, the audit's names, the known
// query parameters and the OpenAPI tie-in test (routes_test.go) all read it. Adding an endpoint
// is a row here, its handler, its store method and its operation in api/openapi.yaml.
func (a *API) apiRoutes() []route {
	const get, post, patch, del = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete
	createdQuery := []string{"createdFrom", "createdTo"}
	return []route{
		{get, "/api/v1/patients", "patients:read", "list patient", params(listQuery, []string{"q", "email"}, createdQuery), a.listPatients},
		{post, "/api/v1/patients", "patients:write", "create patient", nil, a.createPatient},
		{get, "/api/v1/patients/{id}", "patients:read", "read patient", nil, a.getPatient},
		{patch, "/api/v1/patients/{id}", "patients:write", "update patient", nil, a.updatePatient},

		{get, "/api/v1/appointments", "appointments:read", "list appointment", params(pageQuery, []string{"patientId", "providerId", "status", "from", "to"}), a.listAppointments},
		{post, "/api/v1/appointments", "appointments:write", "create appointment", nil, a.createAppointment},
		{get, "/api/v1/appointments/{id}", "appointments:read", "read appointment", nil, a.getAppointment},
		{patch, "/api/v1/appointments/{id}", "appointments:write", "update appointment", nil, a.updateAppointment},
		{del, "/api/v1/appointments/{id}", "appointments:write", "delete appointment", nil, a.cancelAppointment},

		{get, "/api/v1/invoices", "billing:read", "list invoice", params(listQuery, []string{"patientId", "status"}, createdQuery), a.listInvoices},
		{post, "/api/v1/invoices", "billing:write", "create invoice", nil, a.createInvoice},
		{get, "/api/v1/invoices/{id}", "billing:read", "read invoice", nil, a.getInvoice},
		{post, "/api/v1/invoices/{id}/void", "billing:write", "update invoice", nil, a.voidInvoice},
		{get, "/api/v1/payments", "billing:read", "", params(listQuery, []string{"invoiceId", "status", "method"}, createdQuery), a.listPayments},
		{post, "/api/v1/payments", "billing:write", "", nil, a.createPayment},
		{get, "/api/v1/payments/{id}", "billing:read", "", nil, a.getPayment},
		{get, "/api/v1/refunds", "billing:read", "list refund", params(listQuery, []string{"paymentId", "invoiceId"}), a.listRefunds},
		{post, "/api/v1/refunds", "billing:write", "create refund", nil, a.createRefund},
		{get, "/api/v1/refunds/{id}", "billing:read", "read refund", nil, a.getRefund},

		{get, "/api/v1/products", "inventory:read", "", params(listQuery, []string{"category", "q", "active"}), a.listProducts},
		{post, "/api/v1/products", "inventory:write", "", nil, a.createProduct},
		{get, "/api/v1/products/{id}", "inventory:read", "", nil, a.getProduct},
		{patch, "/api/v1/products/{id}", "inventory:write", "", nil, a.updateProduct},
		{get, "/api/v1/inventory", "inventory:read", "", params(pageQuery, []string{"productId", "location", "lowStock", "expiringBefore"}), a.listStock},
		{post, "/api/v1/inventory/adjust", "inventory:write", "create inventory_adjustment", nil, a.adjustStock},

		{get, "/api/v1/webhooks", "webhooks:read", "", pageQuery, a.listWebhooks},
		{post, "/api/v1/webhooks", "webhooks:write", "", nil, a.createWebhook},
		{get, "/api/v1/webhooks/{id}", "webhooks:read", "", nil, a.getWebhook},
		{patch, "/api/v1/webhooks/{id}", "webhooks:write", "", nil, a.updateWebhook},
		{del, "/api/v1/webhooks/{id}", "webhooks:write", "", nil, a.deleteWebhook},
		{post, "/api/v1/webhooks/{id}/test", "webhooks:write", "", nil, a.testWebhook},
		{post, "/api/v1/webhooks/{id}/rotate-secret", "webhooks:write", "", nil, a.rotateWebhookSecret},

		{get, "/api/v1/reports/revenue", "reports:read", "", reportQuery, runReport(reports.NameRevenue)},
		{get, "/api/v1/reports/appointments", "reports:read", "", reportQuery, runReport(reports.NameAppointments)},
		{get, "/api/v1/reports/patients", "reports:read", "", reportQuery, runReport(reports.NamePatients)},
		{get, "/api/v1/reports/custom", "reports:read", "", params(reportQuery, []string{"source", "metrics", "filter"}), runReport(reports.NameCustom)},
	}
}

// route finds the /api/v1 route of the request. A path that is not clean (dot segments, double
// slashes) names no resource.
func (a *API) route(rq *request) *answer {
	if path.Clean(rq.URL.Path) != rq.URL.Path {
		return rq.problem(problem.NotFound("route"))
	}
	rq.params = rq.paramBuf[:0]
	r, p := a.routes.Find(rq.Method, rq.URL.EscapedPath(), "route",
		func(name, value string) { rq.params = append(rq.params, pathParam{name, value}) })
	if p != nil {
		return rq.problem(p)
	}
	rq.route = r
	return nil
}

// auditOf is what rq did, for the audit log: its route's action and resource type, and the
// record it created (rq.created) or named ({id}).
func auditOf(rq *request) auditInfo {
	action, resource, ok := strings.Cut(rq.route.audit, " ")
	if !ok {
		return auditInfo{}
	}
	id := rq.created
	if id == "" {
		id = rq.PathValue("id")
	}
	return auditInfo{action: action, resourceType: resource, resourceID: id}
}

// routeScopes are the scopes of docs/protocol.md §5: every route's, and "*".
func routeScopes(routes []route) []string {
	scopes := []string{"*"}
	for _, r := range routes {
		if r.scope != "" && !slices.Contains(scopes, r.scope) {
			scopes = append(scopes, r.scope)
		}
	}
	return scopes
}

// Query parameters outside the /api/v1 table: the OAuth authorization request's, and the
// admin surface's.
var (
	oauthQuery = []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"}
	adminQuery = []string{"account", "after"}
)

// queryNameSet is every query parameter a route knows, and those of extra.
func queryNameSet(routes []route, extra ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, r := range routes {
		for _, n := range r.query {
			m[n] = true
		}
	}
	for _, names := range extra {
		for _, n := range names {
			m[n] = true
		}
	}
	return m
}

// listAnswer is the list envelope of docs/protocol.md §3.
type listAnswer[T any] struct {
	Data []T       `json:"data"`
	Meta wire.Meta `json:"meta"`
}

func list[T any](items []T, total int, w store.Window) listAnswer[T] {
	if items == nil {
		items = []T{}
	}
	return listAnswer[T]{Data: items, Meta: wire.Meta{Total: total, Page: w.Page, PerPage: w.PerPage}}
}

// pathID returns the {id} path value when it has the prefix's shape; a malformed id is a 404.
func (rq *request) pathID(prefix, what string) (string, error) {
	id := rq.PathValue("id")
	if !wire.IsID(id, prefix) {
		return "", problem.NotFound(what)
	}
	return id, nil
}

// created and ok are the usual successful statuses.
const (
	created = http.StatusCreated
	ok      = http.StatusOK
)
