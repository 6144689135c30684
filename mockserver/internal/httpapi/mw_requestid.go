package httpapi

import "net/http"

// requestID gives the request its id (docs/protocol.md §1: every response carries X-Request-Id;
// problems repeat it as requestId).
func (a *API) requestID(w http.ResponseWriter, rq *request, next handler) {
	rq.id = a.newRequestID(a.store.Clock().At(rq.arrived))
	rq.idHeader[0] = rq.id
	w.Header()["X-Request-Id"] = rq.idHeader[:] // canonical already
	next(w, rq)
}
