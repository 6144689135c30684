package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// serveOAPI serves the public OpenAPI document (no credentials, not rate limited).
func (a *API) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	problem.Write(w, RequestID(r), problem.NotFound("route"))
}
