package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/api"
)

// serveOpenAPI serves the public OpenAPI document (no credentials, not rate limited).
func (a *API) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeProblem(w, r, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed here")
		return
	}
	if r.URL.Path == "/api/v1/openapi.json" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(api.OpenAPIJSON())
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(api.OpenAPIYAML)
}
