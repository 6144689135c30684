package httpapi

import (
	"io"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// readBody reads the request body once, at most MaxBodyBytes+1 bytes: the signature covers
// it, the handler decodes it, idempotency fingerprints it. A longer body is marked tooBig and
// answered 413 after the route is known (mediaType).
func (a *API) readBody(w http.ResponseWriter, rq *request, next handler) {
	if b := rq.Body; b != nil && b != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(b, MaxBodyBytes+1))
		if err != nil {
			problem.Write(w, rq.id, problem.New("malformed_json", "the request body could not be read"))
			return
		}
		rq.body, rq.tooBig = body, len(body) > MaxBodyBytes
	}
	next(w, rq)
}
