package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// adminSurface sends /__admin/ requests to the admin routes (docs/protocol.md §12), unless the
// surface is off: they are test controls, not API requests, so they are neither journalled nor
// faulted, limited, audited or signed.
func (a *API) adminSurface(w http.ResponseWriter, rq *request, next handler) {
	if a.opts.NoAdmin || !strings.HasPrefix(rq.URL.Path, "/__admin/") {
		next(w, rq)
		return
	}
	a.admin().ServeHTTP(w, rq.Request)
}

// adminHandler serves /__admin/: JSON in, JSON or problem+json out. Its routes come by topic:
// credentials, tools (faults, journal, snapshots, fixtures), clock, audit, webhooks.
func (a *API) adminHandler() http.Handler {
	mux := http.NewServeMux()
	var routes []route
	for _, topic := range [][]route{
		a.adminCredentialRoutes(), // admin_credentials.go
		a.adminToolRoutes(),       // admin_tools.go
		a.adminClockRoutes(),      // admin_clock.go
		a.adminAuditRoutes(),      // admin_audit.go
		a.adminWebhookRoutes(),    // admin_webhooks.go
	} {
		routes = append(routes, topic...)
	}
	for _, rt := range routes {
		serve := a.serveRoute(rt)
		mux.HandleFunc(rt.method+" "+rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			rq := &request{Request: r, id: a.newRequestID()}
			body, err := readAdminBody(r)
			if err != nil {
				problem.Write(w, rq.id, problemFor(err))
				return
			}
			rq.body = body
			w.Header().Set("X-Request-Id", rq.id)
			if rt.method == http.MethodGet {
				serve(w, rq)
				return
			}
			a.synced(w, rq, serve)
		})
	}
	mux.HandleFunc("/__admin/", func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, "", problem.NotFound("admin route"))
	})
	return mux
}

func readAdminBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		b = append(b, buf[:n]...)
		if len(b) > 16*MaxBodyBytes {
			return nil, problem.New("payload_too_large", "the admin request body is too large")
		}
		if err != nil {
			return b, nil
		}
	}
}

// withBody is the handler of an admin route that takes a JSON body: the body decoded into B
// (strictly, decodeAdmin), then do, whose result is the answer's body (nil: none).
func withBody[B any](status int, do func(rq *request, b B) (any, error)) func(rq *request) (int, any, error) {
	return func(rq *request) (int, any, error) {
		var b B
		if err := decodeAdmin(rq, &b); err != nil {
			return 0, nil, err
		}
		v, err := do(rq, b)
		return status, v, err
	}
}

// accountBody is an admin body that names an account.
type accountBody struct {
	Account string `json:"account"`
}

// decodeAdmin decodes an admin body strictly (unknown fields are errors); an empty body is {}.
func decodeAdmin(rq *request, dst any) error {
	if len(strings.TrimSpace(string(rq.body))) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(rq.body)))
	dec.DisallowUnknownFields()
	dec.UseNumber() // free-form members (fixture items) keep their numbers exact
	if err := dec.Decode(dst); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field") {
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return problem.Field("/"+name, "unknown_field", "is not a field of this request")
		}
		return problem.New("malformed_json", "the request body is not a valid JSON object of the expected shape")
	}
	return nil
}

// Reset empties one account's data (or every account's when account is ""); keys survive.
func (a *API) Reset(account string) error {
	if account == "" {
		for _, acct := range a.store.Accounts() {
			acct.Reset()
		}
		return nil
	}
	acct, ok := a.store.LookupAccount(account)
	if !ok {
		return problem.NotFound("account")
	}
	acct.Reset()
	return nil
}
