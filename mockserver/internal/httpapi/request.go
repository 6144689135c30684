package httpapi

import (
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// request is one request's state as it goes down the pipeline. Each step fills in what it
// learns, for the steps after it; none reaches back up. It travels as an argument, and across
// the ServeMux of the route step (which speaks http.Handler) in the writer (routedWriter).
type request struct {
	*http.Request
	// id is the request id (requestID), sent as X-Request-Id and in every problem.
	id string
	// caller is who the Authorization header names, whatever the credential's state (identify).
	caller caller
	// cred and acct are the authenticated credential and its account (authenticate).
	cred *auth.Credential
	acct *store.Account
	// route is the /api/v1 route the request matched (route).
	route *route
	// addr is the caller's address: the peer, or the trusted proxy's last hop (identify).
	addr netip.Addr
	// body is the request body, read once, at most MaxBodyBytes+1 bytes; tooBig says it was
	// longer than MaxBodyBytes (body).
	body   []byte
	tooBig bool
	// bodyDigest is the length and SHA-256 of a tooBig body whose signature is checked: the
	// whole body, streamed past what body keeps (body).
	bodyDigest *httpsig.Body
	// signed is set when the request's signature verified: its answer is signed too
	// (verifySignature, signResponse).
	signed *signedRequest
	// schema is what the OpenAPI document refuses in the request, in strict mode (strict).
	schema *schemaFindings
	// audit is the resource the handler touched, for the audit log (the handler, idempotency).
	audit auditInfo
	// fault says what an injected fault did to the request, for the journal (faults).
	// It also names the stub that answered the request (stubFault and the stub's id: stubbed),
	// rather than a field of its own, which would cost every request a larger allocation.
	fault string
	// status is the status of the answer the route's steps wrote (audit).
	status int
	// knownQuery are the query parameters the route's handler knows (parseQuery), for the
	// journal; nil when no handler read the query.
	knownQuery []string
	// query is the request's query, parsed once (queryValues) for the handler and the journal.
	query url.Values
	// routed carries the request across the route's ServeMux (serveMux).
	routed routedWriter
	// arrived is the real time the request arrived: read once, every clock's time for the
	// request (its id, journal entry, rate limit and audit event) is derived from it (Clock.At).
	arrived time.Time
	// statusW and auditW are the journal's and the audit step's writers, part of the request so
	// that they cost no allocation of their own (BenchmarkFenceRequestWriters).
	statusW statusWriter
	auditW  auditWriter
	// idHeader, limitHeaders and contentType back the values of the headers every answer
	// carries (X-Request-Id, the rate-limit headers, Content-Type): part of the request, so that
	// they cost no allocation of their own. net/http copies them before it writes the answer.
	idHeader     [1]string
	limitHeaders [3]string
	contentType  [1]string
}

// auditInfo is what a request did, as the audit log records it.
type auditInfo struct {
	action, resourceType, resourceID string
}

// handler serves a request whose state the pipeline carries.
type handler func(w http.ResponseWriter, rq *request)

// step is one stage of the pipeline: it answers the request itself, or passes it to next.
type step func(w http.ResponseWriter, rq *request, next handler)

// steps are pipeline stages in the order a request meets them.
type steps []step

// then composes the steps in front of last: the first step runs first.
func (ss steps) then(last handler) handler {
	h := last
	for i := len(ss) - 1; i >= 0; i-- {
		s, next := ss[i], h
		h = func(w http.ResponseWriter, rq *request) { s(w, rq, next) }
	}
	return h
}

// queryValues returns the request's query parameters, parsed on first use: the handler reads
// them, and the journal their names. Nobody changes the map it returns.
func (rq *request) queryValues() url.Values {
	if rq.query == nil {
		rq.query = rq.URL.Query()
	}
	return rq.query
}

func newRequest(r *http.Request) *request { return &request{Request: r, arrived: time.Now()} }

// accountNow is the time on the authenticated account's clock when the request arrived.
func (rq *request) accountNow() time.Time { return rq.acct.Clock().At(rq.arrived) }

// routedWriter carries a request's state across a ServeMux, which speaks http.Handler: the mux
// hands its route's handler the very *http.Request it was given (with the path values set) and
// this writer, from which the handler takes the state back (stateOf). Carrying it in the
// request's context instead costs a copy of the request and a context per request: a fenced
// optimisation kept by BenchmarkFenceRoutedWriter (BENCHMARKS.md).
type routedWriter struct {
	http.ResponseWriter
	rq *request
}

func (w *routedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serveMux serves rq through mux, whose handlers take its state back with stateOf.
func (rq *request) serveMux(mux *http.ServeMux, w http.ResponseWriter) {
	rq.routed = routedWriter{ResponseWriter: w, rq: rq} // part of rq: no allocation of its own
	mux.ServeHTTP(&rq.routed, rq.Request)
}

// stateOf returns the writer and the state of a request that serveMux sent through a mux.
func stateOf(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *request) {
	rw := w.(*routedWriter)
	rw.rq.Request = r // the one serveMux gave, now with the mux's path values
	return rw.ResponseWriter, rw.rq
}
