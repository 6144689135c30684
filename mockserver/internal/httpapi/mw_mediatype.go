package httpapi

import (
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// mediaType checks a request that has a body (docs/protocol.md §1): 415 unless it is
// application/json (PATCH also application/merge-patch+json), then 413 when it is over
// MaxBodyBytes.
func (a *API) mediaType(rq *request) *answer {
	if len(rq.body) > 0 || rq.tooBig {
		if p := httpcore.CheckMediaType(rq.Request); p != nil {
			return rq.problem(p)
		}
		if rq.tooBig {
			return rq.problem(problem.New("payload_too_large", "the request body exceeds 1 MiB"))
		}
	}
	return nil
}
