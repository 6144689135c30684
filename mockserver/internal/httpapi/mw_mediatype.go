package httpapi

import (
	"mime"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// mediaType checks a request that has a body (docs/protocol.md §1): 415 unless it is
// application/json (PATCH also application/merge-patch+json), then 413 when it is over
// MaxBodyBytes.
func (a *API) mediaType(rq *request) *answer {
	if len(rq.body) > 0 || rq.tooBig {
		if p := checkMediaType(rq.Request); p != nil {
			return rq.problem(p)
		}
		if rq.tooBig {
			return rq.problem(problem.New("payload_too_large", "the request body exceeds 1 MiB"))
		}
	}
	return nil
}

// checkMediaType accepts application/json (any charset) and, for PATCH, merge-patch+json.
func checkMediaType(r *http.Request) *problem.Problem {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil && (mt == "application/json" || (r.Method == http.MethodPatch && mt == "application/merge-patch+json")) {
		return nil
	}
	want := "application/json"
	if r.Method == http.MethodPatch {
		want += " or application/merge-patch+json"
	}
	return problem.New("unsupported_media_type", "Content-Type must be "+want)
}
