package httpapi

import (
	"net/http"
	"strings"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// aliasV1 serves /v1/… as /api/v1/… (docs/protocol.md §1) and returns the path.
func (a *API) aliasV1(rq *request) string {
	if rest, ok := strings.CutPrefix(rq.URL.Path, "/v1/"); ok || rq.URL.Path == "/v1" {
		r := rq.Clone(rq.Context())
		r.URL.Path = "/api/v1/" + rest
		r.URL.RawPath = ""
		rq.Request = r
	}
	return rq.URL.Path
}

// serveOpenAPI serves the public OpenAPI document, as YAML or JSON.
func serveOpenAPI(rq *request) *answer {
	if rq.Method != http.MethodGet && rq.Method != http.MethodHead {
		return rq.problem(problem.New("method_not_allowed", rq.Method+" is not allowed here").
			WithHeader("Allow", "GET, HEAD"))
	}
	if rq.URL.Path == "/api/v1/openapi.json" {
		return httpcore.New(http.StatusOK, "application/json", api.OpenAPIJSON())
	}
	return httpcore.New(http.StatusOK, "application/yaml", api.OpenAPIYAML)
}
