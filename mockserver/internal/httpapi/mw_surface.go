package httpapi

import (
	"net/http"
	"strings"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// surface sends a request to the part of the server its path names: the public OpenAPI
// documents (no credentials, not rate limited: docs/protocol.md §4), the OAuth endpoints
// (oauth.go), or the API's own pipeline; anything else is 404. /v1/… is an alias of /api/v1/…
// (docs/protocol.md §1).
func (a *API) surface(w http.ResponseWriter, rq *request) {
	if rest, ok := strings.CutPrefix(rq.URL.Path, "/v1/"); ok || rq.URL.Path == "/v1" {
		r := rq.Clone(rq.Context())
		r.URL.Path = "/api/v1/" + rest
		r.URL.RawPath = ""
		rq.Request = r
	}
	switch p := rq.URL.Path; {
	case p == "/api/v1/openapi.yaml" || p == "/api/v1/openapi.json":
		serveOpenAPI(w, rq)
	case strings.HasPrefix(p, "/oauth/"):
		a.serveOAuth(w, rq)
	case p == "/api/v1" || strings.HasPrefix(p, "/api/v1/"):
		a.apiV1(w, rq)
	default:
		problem.Write(w, rq.id, problem.NotFound("route"))
	}
}

// serveOpenAPI serves the public OpenAPI document, as YAML or JSON.
func serveOpenAPI(w http.ResponseWriter, rq *request) {
	if rq.Method != http.MethodGet && rq.Method != http.MethodHead {
		problem.Write(w, rq.id, problem.New("method_not_allowed", rq.Method+" is not allowed here").
			WithHeader("Allow", "GET, HEAD"))
		return
	}
	if rq.URL.Path == "/api/v1/openapi.json" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(api.OpenAPIJSON())
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(api.OpenAPIYAML)
}
