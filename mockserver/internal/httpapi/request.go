package httpapi

import (
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// request is one request's state as it goes through the pipeline (pipeline.go). Each step
// fills in what it learns, for the steps after it; none reaches back up.
type request struct {
	*http.Request
	// id is the request id (requestID), sent as X-Request-Id and in every problem.
	id string
	// header holds the header lines every answer to the request carries, whoever answers it:
	// X-Request-Id (requestID), CORS (cors), the rate-limit state (rateLimit). It is the
	// response's own header map, so they need no copy.
	header http.Header
	// caller is who the Authorization header names, whatever the credential's state (identify).
	caller caller
	// cred and acct are the authenticated credential and its account (authenticate).
	cred *auth.Credential
	acct *store.Account
	// route is the route the request matched, and params the values of its pattern's
	// wildcards (router.find); paramBuf holds them for the usual one or two.
	route    *route
	params   []pathParam
	paramBuf [2]pathParam
	// addr is the caller's address: the peer, or the trusted proxy's last hop (identify).
	addr netip.Addr
	// body is the request body, read once, at most MaxBodyBytes+1 bytes; tooBig says it was
	// longer than MaxBodyBytes (readBody).
	body   []byte
	tooBig bool
	// bodyDigest is the length and SHA-256 of a tooBig body whose signature is checked: the
	// whole body, streamed past what body keeps (readBody).
	bodyDigest *httpsig.Body
	// signed is set when the request's signature verified: its answer is signed too
	// (verifySignature, signAnswer).
	signed *signedRequest
	// schema is what the OpenAPI document refuses in the request, in strict mode (strict).
	schema *schemaFindings
	// created is the id of the record the handler created, for the audit log.
	created string
	// audit is what the request did, for the audit log (auditSuccess; an idempotent replay
	// restores the first request's).
	audit auditInfo
	// fault says what an injected fault or a stub did to the request, for the journal (faults,
	// stubbed).
	fault string
	// query is the request's query, parsed once (queryValues) for the handler and the journal.
	query url.Values
	// arrived is the real time the request arrived: read once, every clock's time for the
	// request (its id, journal entry, rate limit and audit event) is derived from it (Clock.At).
	arrived time.Time
}

func newRequest(w http.ResponseWriter, r *http.Request) *request {
	return &request{Request: r, arrived: time.Now(), header: w.Header()}
}

// pathParam is a wildcard of the route's pattern and its value in the request's path.
type pathParam struct{ name, value string }

// PathValue returns the value of the route pattern's wildcard name ("" if none).
func (rq *request) PathValue(name string) string {
	for _, p := range rq.params {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// auditInfo is what a request did, as the audit log records it.
type auditInfo struct {
	action, resourceType, resourceID string
}

// queryValues returns the request's query parameters, parsed on first use: the handler reads
// them, and the journal their names. Nobody changes the map it returns.
func (rq *request) queryValues() url.Values {
	if rq.query == nil {
		rq.query = rq.URL.Query()
	}
	return rq.query
}

// accountNow is the time on the authenticated account's clock when the request arrived.
func (rq *request) accountNow() time.Time { return rq.acct.Clock().At(rq.arrived) }

// answer is what the server says to one request (httpcore.Answer): made by the step or
// handler that answers, reworked on the way out, and put on the wire once, by httpcore.Write.
type answer = httpcore.Answer

// problem is the answer of a problem document to rq.
func (rq *request) problem(p *problem.Problem) *answer { return httpcore.Problem(rq.id, p) }
