package httpapi

import "net/http"

// requestID gives the request its id (docs/protocol.md §1: every response carries X-Request-Id;
// problems repeat it as requestId).
func (a *API) requestID(w http.ResponseWriter, rq *request, next handler) {
	rq.id = a.newRequestID()
	w.Header().Set("X-Request-Id", rq.id)
	next(w, rq)
}
