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
		ans := a.run(rq, rt)
		writeAnswer(w, rq, ans)
		recycle(ans.buf, ans.body)
	}
}

// answer is a handler's result, encoded.
type answer struct {
	status int
	// contentType is the body's media type ("" when there is no body, or header has it).
	contentType string
	// header holds further header lines (a problem's WWW-Authenticate, Retry-After, Allow).
	header http.Header
	body   []byte
	// buf, when not nil, is the pooled buffer that holds body (answerbuf.go).
	buf *[]byte
}

// run calls the handler and encodes its answer.
func (a *API) run(rq *request, rt route) answer {
	status, v, err := rt.handle(rq)
	err = rq.withSchemaFindings(err) // strict mode: the document's findings a body did not carry
	if err != nil {
		p := problemFor(err)
		if p.Status >= 500 && p.Code == "internal_error" && a.opts.Logger != nil {
			a.opts.Logger.Error("handler failed", "request_id", rq.id, "route", rt.pattern, "error_type", strconv.Quote(err.Error()))
		}
		return answer{status: p.Status, contentType: "application/problem+json", header: p.Header, body: p.Body(rq.id)}
	}
	switch b := v.(type) {
	case nil:
		return answer{status: status}
	case rawBody:
		return answer{status: status, contentType: b.contentType, body: b.body}
	case jsonAppender:
		buf := answerBuffers.Get().(*[]byte)
		body := b.appendJSON((*buf)[:0])
		if r, ok := v.(releaser); ok {
			r.release()
		}
		return answer{status: status, contentType: "application/json", body: body, buf: buf}
	default:
		out, err := json.Marshal(v)
		if err != nil {
			p := problemFor(err)
			return answer{status: p.Status, contentType: "application/problem+json", body: p.Body(rq.id)}
		}
		return answer{status: status, contentType: "application/json", body: out}
	}
}

// chunkingThreshold is the size of net/http's response buffer: an answer longer than it, written
// without a Content-Length, goes out chunked.
const chunkingThreshold = 2048

// writeAnswer writes an answer and records its status for the steps above (audit).
func writeAnswer(w http.ResponseWriter, rq *request, a answer) {
	rq.status = a.status
	h := w.Header()
	for k, vs := range a.header {
		h[k] = vs
	}
	if a.contentType != "" {
		rq.contentType[0] = a.contentType
		h["Content-Type"] = rq.contentType[:]
	}
	if len(a.body) > chunkingThreshold {
		// net/http sends the length of a shorter answer itself; a longer one it would send
		// chunked (more bytes, and no length for the client to check the body against).
		h["Content-Length"] = []string{strconv.Itoa(len(a.body))}
	}
	w.WriteHeader(a.status)
	if len(a.body) > 0 {
		_, _ = w.Write(a.body)
	}
}
