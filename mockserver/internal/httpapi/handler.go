package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// route is one endpoint: its scope, and a handler that returns the status and the value to
// encode (or an error, written as a problem).
type route struct {
	method, pattern string
	scope           string
	handle          func(rq *request) (int, any, error)
}

// rawBody is a handler result written as is (CSV reports, the OpenAPI document).
type rawBody struct {
	contentType string
	body        []byte
}

// serveRoute is the end of the pipeline: it runs the route's handler and writes its answer.
func (a *API) serveRoute(rt route) handler {
	return func(w http.ResponseWriter, rq *request) {
		status, header, body, buf := a.run(rq, rt)
		writeAnswer(w, rq, status, header, body)
		recycle(buf, body)
	}
}

// run calls the handler and encodes its answer. buf, when not nil, holds the body and goes back
// to the pool (recycle) once the body is written.
func (a *API) run(rq *request, rt route) (status int, header http.Header, body []byte, buf *[]byte) {
	status, v, err := rt.handle(rq)
	if err != nil {
		p := problemFor(err)
		h := make(http.Header, len(p.Header)+1)
		for k, vs := range p.Header {
			h[k] = vs
		}
		h.Set("Content-Type", "application/problem+json")
		if p.Status >= 500 && p.Code == "internal_error" && a.opts.Logger != nil {
			a.opts.Logger.Error("handler failed", "request_id", rq.id, "route", rt.pattern, "error_type", strconv.Quote(err.Error()))
		}
		return p.Status, h, p.Body(rq.id), nil
	}
	switch b := v.(type) {
	case nil:
		return status, nil, nil, nil
	case rawBody:
		return status, http.Header{"Content-Type": {b.contentType}}, b.body, nil
	case jsonAppender:
		buf := answerBuffers.Get().(*[]byte)
		return status, jsonHeader(), b.appendJSON((*buf)[:0]), buf
	default:
		out, err := json.Marshal(v)
		if err != nil {
			p := problemFor(err)
			return p.Status, http.Header{"Content-Type": {"application/problem+json"}}, p.Body(rq.id), nil
		}
		return status, jsonHeader(), out, nil
	}
}

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

// writeAnswer writes an answer and records its status for the steps above (audit).
func writeAnswer(w http.ResponseWriter, rq *request, status int, header http.Header, body []byte) {
	rq.status = status
	for k, vs := range header {
		w.Header()[k] = vs
	}
	w.WriteHeader(status)
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
}
