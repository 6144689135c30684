package httpapi

// requestID gives the request its id (docs/protocol.md §1: every response carries X-Request-Id;
// problems repeat it as requestId).
func (a *API) requestID(rq *request) {
	rq.id = a.newRequestID(a.store.Clock().At(rq.arrived))
	rq.header["X-Request-Id"] = []string{rq.id} // canonical already
}
