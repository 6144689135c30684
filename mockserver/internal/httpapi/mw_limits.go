package httpapi

import "net/http"

// limits is the slot for the request-size limits of docs/protocol.md §13: request line and
// path ≤ 8 KiB (414), headers ≤ 64 KiB (431). It comes first, before the request has an id or
// a journal entry, so that an oversized request costs the server nothing it keeps. It passes
// every request for now (the body limit, 413, is the mediaType step's).
func (a *API) limits(w http.ResponseWriter, rq *request, next handler) { next(w, rq) }
