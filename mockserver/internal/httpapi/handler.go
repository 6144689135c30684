package httpapi

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
)

// rawBody is a handler result written as is (CSV reports, the OpenAPI document).
type rawBody struct {
	contentType string
	body        []byte
}

// runHandler is the end of the way in: the route's handler, its result encoded.
func (a *API) runHandler(rq *request) *answer {
	status, v, err := rq.route.handle(rq)
	err = rq.withSchemaFindings(err) // strict mode: the document's findings a body did not carry
	if err != nil {
		p := httpcore.ProblemFor(err)
		if p.Status >= 500 && p.Code == "internal_error" && a.opts.Logger != nil {
			a.opts.Logger.Error("handler failed", "request_id", rq.id, "route", rq.route.pattern, "error_type", strconv.Quote(err.Error()))
		}
		return rq.problem(p)
	}
	switch b := v.(type) {
	case nil:
		return &answer{Status: status}
	case *answer:
		return b
	case rawBody:
		return httpcore.New(status, b.contentType, b.body)
	case jsonAppender:
		buf := answerBuffers.Get().(*[]byte)
		body := b.appendJSON(slices.Grow((*buf)[:0], b.sizeHint()))
		if p, ok := v.(*patientList); ok {
			p.release()
		}
		ans := httpcore.New(status, "application/json", body)
		ans.Pooled = buf
		return ans
	}
	out, err := json.Marshal(v)
	if err != nil {
		return rq.problem(httpcore.ProblemFor(err))
	}
	return httpcore.New(status, "application/json", out)
}
