package httpapi

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/medspa/medspa-go/internal/httpsig"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// request is one request's state as it goes down the pipeline. Each step fills in what it
// learns, for the steps after it; none reaches back up. It travels as an argument, and in the
// context only across the ServeMux of the route step (which speaks http.Handler).
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
	fault string
	// status is the status of the answer the route's steps wrote (audit).
	status int
	// knownQuery are the query parameters the route's handler knows (parseQuery), for the
	// journal; nil when no handler read the query.
	knownQuery []string
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

func newRequest(r *http.Request) *request { return &request{Request: r} }

type requestKey struct{}

// withContext puts rq in its request's context, for the ServeMux to hand back (route).
func (rq *request) withContext() {
	rq.Request = rq.WithContext(context.WithValue(rq.Context(), requestKey{}, rq))
}

// requestOf returns the state of a request that came through the route step.
func requestOf(r *http.Request) *request {
	rq, _ := r.Context().Value(requestKey{}).(*request)
	return rq
}
