package httpapi

import (
	"crypto/sha256"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"sync"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
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

// handler wraps a route with the checks that follow routing: scope, media type and size,
// idempotency; then runs it and writes its answer.
func (a *API) handler(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestFrom(r.Context())
		rq.Request = r // carries the mux's path values
		if !rq.cred.Allows(rt.scope) {
			p := problem.New(http.StatusForbidden, "insufficient_scope", "the credential lacks the scope "+rt.scope).
				WithHeader("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+rt.scope+`"`)
			a.sec.deny(rq, p)
			problem.Write(w, rq.id, p)
			return
		}
		if len(rq.body) > 0 || rq.tooBig {
			if p := checkMediaType(r); p != nil {
				problem.Write(w, rq.id, p)
				return
			}
			if rq.tooBig {
				problem.Write(w, rq.id, problem.New(http.StatusRequestEntityTooLarge, "payload_too_large", "the request body exceeds 1 MiB"))
				return
			}
		}
		if a.opts.Strict {
			if p := a.strictCheck(rq); p != nil {
				problem.Write(w, rq.id, p)
				return
			}
		}
		if r.Method == http.MethodPost {
			if keys := r.Header.Values("Idempotency-Key"); len(keys) > 0 {
				a.idempotent(w, rq, rt, keys)
				return
			}
		}
		a.respond(w, rq, rt)
	})
}

// respond runs the route and writes its answer.
func (a *API) respond(w http.ResponseWriter, rq *request, rt route) {
	status, header, body, buf := a.run(rq, rt)
	writeAnswer(w, status, header, body)
	recycle(buf, body)
}

// answerBuffers holds the buffers of self-encoded answers: an answer is written (copied) and
// then dead, so its buffer serves the next one.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// recycle returns an answer's buffer to the pool (buf nil: the answer was not pooled). Buffers
// grown past 64 KiB (a large page) are left to the collector rather than kept.
func recycle(buf *[]byte, body []byte) {
	if buf == nil || cap(body) > 64<<10 {
		return
	}
	*buf = body[:0]
	answerBuffers.Put(buf)
}

// jsonHeader and noHeader are the headers of most answers, made once: run's callers and
// writeAnswer only read them (writeAnswer shares the value slices with the response, whose
// users replace values with Set rather than editing them), and idempotency entries keep them
// without a copy per entry.
var (
	jsonHeader = http.Header{"Content-Type": {"application/json"}}
	noHeader   = http.Header{}
)

// run calls the handler and encodes its answer. The returned header must not be modified; buf,
// when not nil, holds the body and goes back to the pool (recycle) once the body is written.
func (a *API) run(rq *request, rt route) (status int, header http.Header, body []byte, buf *[]byte) {
	status, v, err := rt.handle(rq)
	if err != nil {
		p := problem.As(err)
		h := make(http.Header, len(p.Header)+1)
		for k, vs := range p.Header {
			h[k] = vs
		}
		h.Set("Content-Type", "application/problem+json")
		if p.Status >= 500 && p.Code == "internal_error" && a.opts.Logger != nil {
			a.opts.Logger.Error("handler failed", "request_id", rq.id, "route", rt.pattern, "error_type", errType(err))
		}
		return p.Status, h, p.Body(rq.id), nil
	}
	switch b := v.(type) {
	case nil:
		return status, noHeader, nil, nil
	case rawBody:
		return status, http.Header{"Content-Type": {b.contentType}}, b.body, nil
	case jsonAppender:
		buf := answerBuffers.Get().(*[]byte)
		return status, jsonHeader, b.appendJSON((*buf)[:0]), buf
	default:
		out, err := json.Marshal(v)
		if err != nil {
			p := problem.As(err)
			return p.Status, http.Header{"Content-Type": {"application/problem+json"}}, p.Body(rq.id), nil
		}
		return status, jsonHeader, out, nil
	}
}

func errType(err error) string { return strconv.Quote(err.Error()) }

func writeAnswer(w http.ResponseWriter, status int, header http.Header, body []byte) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	w.WriteHeader(status)
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
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
	return problem.New(http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be "+want)
}

// idempotent runs a keyed POST at most once per credential and key (docs/protocol.md §8).
func (a *API) idempotent(w http.ResponseWriter, rq *request, rt route, keys []string) {
	key := keys[0]
	if len(keys) != 1 || !validIdempotencyKey(key) {
		problem.Write(w, rq.id, problem.Field("Idempotency-Key", "invalid_value", "must be 1–255 printable ASCII characters, sent once"))
		return
	}
	// The fingerprint is a digest of method, path and body: fixed-size, so a key kept for a day
	// costs the same whatever the request.
	h := sha256.New()
	h.Write([]byte(rq.Method + " " + rq.URL.Path + " "))
	h.Write(rq.body)
	var fingerprint [sha256.Size]byte
	h.Sum(fingerprint[:0])
	scoped := rq.cred.ID + "\x00" + key
	outcome, entry := rq.acct.BeginIdempotent(scoped, fingerprint)
	switch outcome {
	case store.IdempotencyReplay:
		if len(entry.Audit) == 3 {
			rq.audit = auditInfo{entry.Audit[0], entry.Audit[1], entry.Audit[2]}
		}
		entry.Header.Set("Idempotent-Replayed", "true") // the entry's header is this replay's own copy
		writeAnswer(w, entry.Status, entry.Header, entry.Body)
		return
	case store.IdempotencyInUse:
		problem.Write(w, rq.id, problem.New(http.StatusConflict, "idempotency_key_in_use", "a request with this Idempotency-Key is still in progress"))
		return
	case store.IdempotencyReused:
		problem.Write(w, rq.id, problem.New(http.StatusUnprocessableEntity, "idempotency_key_reused", "this Idempotency-Key was used with a different request"))
		return
	}
	status, header, body, buf := a.run(rq, rt)
	defer recycle(buf, body)
	var audited []string
	if rq.audit.action != "" {
		audited = []string{rq.audit.action, rq.audit.resourceType, rq.audit.resourceID}
	}
	rq.acct.FinishIdempotent(scoped, status, header, body, audited...)
	writeAnswer(w, status, header, body)
}

func validIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// writeProblem writes a problem for r outside the route handlers.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string) {
	problem.Write(w, RequestID(r), problem.New(status, code, detail))
}
